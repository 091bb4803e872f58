// Layout of the shared counters (one Int32Array per worker, read by the orchestrator even
// after it killed the worker) and of the pool (next case, calls so far).
export const SLOT = {
  HEARTBEAT: 0, SYNC_CASE: 2, LAST_CASE: 3, HOST_CALLS: 4,
  calls: 8, traps: 9, codeless: 10, unsettled: 11, invariant: 12, ok: 13, probes: 14, cases: 15, unhandled: 16, escaped: 17, hangs: 18,
  codes: 20, // INVALID_CONFIG, INVALID_INPUT, HOST_FAILED, HOST_TIMEOUT, INTERNAL
  maxSettleMs: 26, runaways: 27, misuse: 28, known: 29,
  INFLIGHT: 32, INFLIGHT_N: 1024,
};
export const VIEW_LEN = SLOT.INFLIGHT + SLOT.INFLIGHT_N;
export const POOL = { NEXT: 0, CALLS: 1 };
