// The engine's host callbacks (HostCallbacks in pkg/*.d.ts): one HTTP exchange with fetch
// (`request`; the OpenViking protocol itself — URLs, headers, envelope, error classes,
// redaction — is the engine's, in Rust), durable state and outbox through the state store,
// the clock, logging. No decisions here — the wasm engine makes them; this only does I/O.
import { localServerGate } from "./openviking/local-server.js";

/** Short, key-free name of a low-level fetch failure (ECONNREFUSED, ENOTFOUND, ...). */
function causeName(err) {
  let e = err;
  for (let i = 0; i < 4 && e; i++) {
    if (typeof e.code === "string" && e.code) return e.code;
    e = e.cause;
  }
  return (err && err.name) || "Error";
}

const failure = (kind, message) => Object.assign(new Error(message), { kind });

/**
 * `request({method, url, headers, body, timeoutMs})` → `{status, body}`: sends it as given
 * (no redirects followed) within timeoutMs. Fails `{kind: "timeout"}` or `{kind:
 * "unreachable"}`. In local mode nothing but `GET /health` is sent to a port until it was
 * verified as OpenViking's (local-server.js): no key, no turn reaches an impostor.
 * @param {{fetch?: typeof fetch, localServer?: boolean}} opts
 */
export function createTransport({ fetch: fetchImpl = globalThis.fetch, localServer = false } = {}) {
  return async function request({ method, url, headers, body, timeoutMs }) {
    const target = new URL(url);
    if (!target.pathname.endsWith("/health")) {
      let verdict;
      try {
        verdict = await localServerGate(target.origin, { managed: localServer });
      } catch (err) {
        verdict = { ok: false, reason: causeName(err) };
      }
      if (verdict && !verdict.ok) {
        throw failure("unreachable", `not sent to ${target.origin}: ${verdict.reason ?? "not verified as OpenViking"}`);
      }
    }
    const ctrl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctrl.abort();
    }, timeoutMs);
    try {
      const res = await fetchImpl(target, { method, headers, body, signal: ctrl.signal, redirect: "manual" });
      return { status: res.status, body: await res.text() }; // the body under the same deadline
    } catch (err) {
      if (timedOut) throw failure("timeout", `no answer within ${timeoutMs} ms`);
      throw failure("unreachable", causeName(err));
    } finally {
      clearTimeout(timer);
    }
  };
}

/** `now` is the wall clock (`Date.now()`); `monotonic` a clock its jumps do not move
 *  (`performance.now()`), which the engine measures its waits on — a send that may still land,
 *  a pause of a silent server, a lock. A host given a `now` of its own (a test's virtual time)
 *  and no `monotonic` has none: its waits are measured on that `now`.
 * @param {{store: object, request?: Function, logger?: {warn: Function}, now?: () => number, monotonic?: () => number}} deps */
export function createEngineHost({ store, request = createTransport(), logger = console, now, monotonic }) {
  const wall = now ?? (() => Date.now());
  const steady = monotonic ?? (now ? null : () => performance.now());
  return {
    request,
    // documents and outbox entries cross as the engine's own JSON text: written and read as
    // is, parsed by neither side but the engine
    loadStateText: (key) => store.loadStateText(key),
    saveStateText: (key, text) => store.saveStateText(key, text),
    saveCacheText: (key, text) => store.saveCacheText(key, text),
    outboxAppendText: (key, text, turnId) => store.outboxAppendText(key, text, turnId),
    outboxReadText: (key) => store.outboxReadText(key),
    listStateKeys: (prefix) => store.listStateKeys(prefix),
    outboxDrop: (key, turnIds) => store.outboxDrop(key, turnIds),
    tryLock: (name, ttlMs) => store.tryLock(name, ttlMs),
    unlock: (name) => store.unlock(name),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    nowMs: () => wall(),
    ...(steady ? { monotonicMs: () => steady() } : {}),
    warn: (message) => logger.warn(`[openviking] ${message}`),
  };
}
