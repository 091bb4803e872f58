// http.js — one HTTP exchange with OpenViking: URL building, per-call timeout plus optional
// caller AbortSignal, no redirects, envelope unwrapping, and mapping of every failure to an
// OpenVikingError whose message has been scrubbed of the API keys.

import { CLIENT_CODES as C, OpenVikingError } from "./errors.js";

const MAX_MESSAGE = 500;

/** Short, key-free name of a low-level fetch failure (ECONNREFUSED, ENOTFOUND, ...). */
function causeName(err) {
  let e = err;
  for (let i = 0; i < 4 && e; i++) {
    if (typeof e.code === "string" && e.code) return e.code;
    e = e.cause;
  }
  return (err && err.name) || "Error";
}

function clip(text) {
  const t = String(text ?? "");
  return t.length > MAX_MESSAGE ? t.slice(0, MAX_MESSAGE) + "…" : t;
}

/**
 * @param {{baseUrl: URL, fetchImpl: Function, timeoutMs: number, baseHeaders: Record<string,string>,
 *          redact: (s: string) => string}} cfg
 * @returns {(method: string, path: string, opts?: object) => Promise<any>}
 */
export function createTransport({ baseUrl, fetchImpl, timeoutMs, baseHeaders, redact }) {
  const prefix = baseUrl.pathname.replace(/\/+$/, "");
  const origin = baseUrl.origin; // never carries user:password

  function fail(message, info) {
    return new OpenVikingError(redact(message), info);
  }

  function scrubDetails(details) {
    if (details === undefined || details === null) return undefined;
    try {
      return JSON.parse(redact(JSON.stringify(details)));
    } catch {
      return undefined;
    }
  }

  /**
   * @param {string} method
   * @param {string} path  absolute API path, segments already encoded
   * @param {{query?: object, body?: unknown, signal?: AbortSignal, timeoutMs?: number,
   *          envelope?: boolean, headers?: Record<string,string>, auth?: boolean}} [opts]
   *   auth:false — sent without the API key (GET /health)
   */
  return async function request(method, path, opts = {}) {
    const endpoint = `${method} ${prefix}${path}`;
    const url = new URL(origin + prefix + path);
    for (const [k, v] of Object.entries(opts.query ?? {})) {
      if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
    }
    const headers = { ...baseHeaders, ...(opts.headers ?? {}), Accept: "application/json" };
    if (opts.auth === false) delete headers["X-API-Key"];
    let body;
    if (opts.body !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(opts.body);
    }
    const limit = Number.isFinite(opts.timeoutMs) && opts.timeoutMs > 0 ? opts.timeoutMs : timeoutMs;
    const signal = opts.signal;
    if (signal?.aborted) throw fail(`aborted by caller before ${endpoint}`, { code: C.ABORTED, endpoint });

    const ctrl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctrl.abort();
    }, limit);
    const onAbort = () => ctrl.abort();
    signal?.addEventListener("abort", onAbort, { once: true });

    let status = 0;
    let text;
    try {
      const res = await fetchImpl(url, { method, headers, body, signal: ctrl.signal, redirect: "manual" });
      status = res.status;
      text = await res.text(); // still under the same deadline
    } catch (err) {
      if (timedOut) throw fail(`OpenViking did not answer ${endpoint} within ${limit} ms`, { code: C.TIMEOUT, status, endpoint });
      if (signal?.aborted) throw fail(`aborted by caller during ${endpoint}`, { code: C.ABORTED, status, endpoint });
      throw fail(`OpenViking unreachable at ${origin} (${causeName(err)}) during ${endpoint}`,
        { code: C.UNREACHABLE, status, endpoint });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }

    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const isObj = parsed !== null && typeof parsed === "object" && !Array.isArray(parsed);
    const serverError = isObj && parsed.error && typeof parsed.error === "object" ? parsed.error : null;
    const serverCode = serverError && typeof serverError.code === "string" ? serverError.code : undefined;
    const serverMsg = serverError ? clip(serverError.message) : "";

    if (status >= 500) {
      throw fail(`OpenViking answered HTTP ${status} to ${endpoint}${serverCode ? ` (${serverCode})` : ""}${serverMsg ? `: ${serverMsg}` : ""}`,
        { code: C.HTTP_5XX, status, endpoint, serverCode, details: scrubDetails(serverError?.details) });
    }
    if (!isObj) {
      throw fail(`OpenViking answered ${endpoint} with HTTP ${status} and a body that is not a JSON object`,
        { code: C.BAD_RESPONSE, status, endpoint });
    }
    if (serverCode && (parsed.status === "error" || status >= 400)) {
      throw fail(`OpenViking ${serverCode} on ${endpoint}${serverMsg ? `: ${serverMsg}` : ""}`,
        { code: serverCode, status, endpoint, retryable: false, details: scrubDetails(serverError.details) });
    }
    if (status < 200 || status >= 300) {
      throw fail(`OpenViking answered ${endpoint} with HTTP ${status} without an error code`,
        { code: C.BAD_RESPONSE, status, endpoint });
    }
    if (opts.envelope === false) return parsed;
    if (parsed.status !== "ok" || !Object.prototype.hasOwnProperty.call(parsed, "result")) {
      throw fail(`OpenViking answered ${endpoint} without the {status:"ok", result} envelope`,
        { code: C.BAD_RESPONSE, status, endpoint });
    }
    return parsed.result;
  };
}
