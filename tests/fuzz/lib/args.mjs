// The argument a case calls a method with: valid, one field mutated, or hostile, and how
// many arguments it passes.
import { hostile } from "./values.mjs";
import * as S from "./shapes.mjs";
import { hasLone } from "./checks.mjs";

/** valid / mutated one field / hostile, with whether a success is required. */
export function arg(c, valid, { hostileP = 0.12, mutateP = 0.33 } = {}) {
  const r = c.rng.float();
  if (r < hostileP) return { value: hostile(c.rng), expectOk: false, how: "hostile" };
  if (r < hostileP + mutateP) {
    const m = S.mutate(c.rng, valid);
    return { value: m.value, expectOk: false, how: m.how };
  }
  return { value: valid, expectOk: true, how: "valid" };
}

/** Sometimes no argument, sometimes extra ones. */
export function arity(c, args) {
  const r = c.rng.float();
  if (r < 0.03) return [];
  if (r < 0.06) return [...args, hostile(c.rng), hostile(c.rng)];
  return args;
}

export function anyLone(v, depth = 0) {
  if (typeof v === "string") return hasLone(v);
  if (depth > 8 || v === null || typeof v !== "object") return false;
  try {
    return Object.values(v).some((x) => anyLone(x, depth + 1));
  } catch {
    return true;
  }
}

export function isNonNegInt(x) {
  return Number.isInteger(x) && x >= 0;
}
