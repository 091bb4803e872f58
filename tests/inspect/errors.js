// errors.js — the one error type of the OpenViking client (OpenVikingError), its client-side
// codes, and the secret redaction every message goes through before an Error is built.

/** Codes produced by the client itself (server codes such as NOT_FOUND pass through). */
export const CLIENT_CODES = Object.freeze({
  UNREACHABLE: "OV_UNREACHABLE", // connection refused / reset / DNS failure
  TIMEOUT: "OV_TIMEOUT", // no complete answer within the per-call (or wait) deadline
  HTTP_5XX: "OV_HTTP_5XX", // the server (or something in front of it) answered 5xx
  BAD_RESPONSE: "OV_BAD_RESPONSE", // not JSON, or not the {status, result|error} envelope
  ABORTED: "OV_ABORTED", // the caller's own AbortSignal fired
});

const RETRYABLE = new Set([CLIENT_CODES.UNREACHABLE, CLIENT_CODES.TIMEOUT, CLIENT_CODES.HTTP_5XX]);

export class OpenVikingError extends Error {
  /**
   * @param {string} message already redacted text
   * @param {{code: string, status?: number, endpoint?: string, retryable?: boolean,
   *          serverCode?: string, details?: unknown}} info
   */
  constructor(message, { code, status = 0, endpoint = "", retryable, serverCode, details } = {}) {
    super(message);
    this.name = "OpenVikingError";
    this.code = code;
    this.status = status;
    this.endpoint = endpoint;
    this.retryable = retryable ?? RETRYABLE.has(code);
    if (serverCode !== undefined) this.serverCode = serverCode;
    if (details !== undefined) this.details = details;
  }
}

/**
 * A function that replaces every occurrence of the given secrets (and their URL-encoded
 * forms) with "[redacted]". Secrets shorter than 4 characters are ignored.
 * @param {Array<string|undefined>} secrets
 */
export function makeRedactor(secrets) {
  const list = [];
  for (const s of secrets) {
    if (typeof s !== "string" || s.length < 4) continue;
    list.push(s);
    const enc = encodeURIComponent(s);
    if (enc !== s) list.push(enc);
  }
  list.sort((a, b) => b.length - a.length);
  return (text) => {
    let out = String(text ?? "");
    for (const s of list) out = out.split(s).join("[redacted]");
    return out;
  };
}
