// Test-only preload (`node --import`): this process's wall clock runs OV_E2E_CLOCK_OFFSET_MS
// milliseconds off (negative: in the past). Date.now(), `new Date()` and `Date()` are shifted;
// timers, performance.now() and other processes (OpenViking, the fake model, the test) are
// not. The history-search e2e runs each OpenClaw turn of a "past day" under it, so OpenClaw
// stamps that turn's messages with that day, as it would have on the day.
const offset = Number(process.env.OV_E2E_CLOCK_OFFSET_MS || 0);
if (Number.isFinite(offset) && offset !== 0) {
  const RealDate = globalThis.Date;
  const realNow = RealDate.now.bind(RealDate);
  function ShiftedDate(...args) {
    if (!new.target) return new RealDate(realNow() + offset).toString();
    return Reflect.construct(RealDate, args.length === 0 ? [realNow() + offset] : args, new.target);
  }
  Object.setPrototypeOf(ShiftedDate, RealDate);
  ShiftedDate.prototype = RealDate.prototype;
  ShiftedDate.now = () => realNow() + offset;
  globalThis.Date = ShiftedDate;
}
