// scopes.js — viking:// memory scope URIs for a user/agent pair and a strict "is this URI
// inside that scope" check (segment-wise, after percent-decoding; `..`, `.`, `...`, encoded dots,
// backslashes, control characters, queries and sibling prefixes never pass).

const SCHEME = "viking://";

/** A single path segment usable as a user or agent id. */
function assertId(name, value) {
  if (typeof value !== "string" || value.length === 0 || value.length > 256 || value === "." || value === ".."
    || /[\/\\%?#\s\u0000-\u001f\u007f]/.test(value)) {
    throw new TypeError(`${name} must be a non-empty path segment without / \\ % ? # or whitespace`);
  }
}

/** @returns {{user: string, agent: string}} */
export function resolveMemoryScopes({ userId, agentId } = {}) {
  assertId("userId", userId);
  assertId("agentId", agentId);
  return { user: `${SCHEME}user/${userId}/memories`, agent: `${SCHEME}agent/${agentId}/memories` };
}

/** Decode %XX repeatedly until stable (max 4 rounds); null on malformed or still-encoded input. */
function fullyDecode(text) {
  let cur = text;
  for (let i = 0; i < 4; i++) {
    let next;
    try {
      next = decodeURIComponent(cur);
    } catch {
      return null;
    }
    if (next === cur) return cur;
    cur = next;
  }
  return null;
}

/** The path segments of a viking:// URI, or null when it is not a clean absolute URI. */
export function vikingSegments(uri) {
  if (typeof uri !== "string" || !uri.startsWith(SCHEME) || uri.length > 4096) return null;
  const decoded = fullyDecode(uri.slice(SCHEME.length));
  if (decoded === null || /[\\?#\u0000-\u001f\u007f]/.test(decoded)) return null;
  const segs = decoded.split("/");
  if (segs.length > 1 && segs[segs.length - 1] === "") segs.pop(); // one trailing slash is fine
  if (segs.length === 0) return null;
  for (const s of segs) {
    if (s === "" || /^\.+$/.test(s)) return null; // ".", ".." and any all-dots name
  }
  return segs;
}

/** True when `uri` is `scopeUri` itself or lies below it (whole segments, no traversal). */
export function isWithinScope(uri, scopeUri) {
  const u = vikingSegments(uri);
  const s = vikingSegments(scopeUri);
  if (!u || !s || u.length < s.length) return false;
  for (let i = 0; i < s.length; i++) if (u[i] !== s[i]) return false;
  return true;
}
