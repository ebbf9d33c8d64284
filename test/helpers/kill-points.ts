// Where a crash test kills its child: drawn from a seeded generator, so a run is repeatable and a
// failure names the seed and the point that produced it. The seed is fixed per suite; set
// TROVE_CRASH_SEED to explore other points (CI runs the same ones every time).

export interface KillPoint {
  /** Kill once the child has printed this many progress lines. */
  line: number;
  /** Then wait this long, so the kill can land inside a write. */
  extraMs: number;
}

export interface KillPoints {
  seed: number;
  /** The next point: a line in 1..lines and a delay in 0..maxExtraMs-1. */
  next(lines: number, maxExtraMs: number): KillPoint;
  /** "seed S, kill I at line L +E ms": for assertion messages. */
  describe(index: number, p: KillPoint): string;
}

export function killPoints(suiteSeed: number): KillPoints {
  const fromEnv = Number(process.env.TROVE_CRASH_SEED);
  const seed = Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : suiteSeed;
  let state = seed >>> 0;
  // mulberry32: small, fast, well spread for a handful of draws
  const rand = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  return {
    seed,
    next: (lines, maxExtraMs) => ({ line: 1 + Math.floor(rand() * lines), extraMs: Math.floor(rand() * maxExtraMs) }),
    describe: (index, p) => `TROVE_CRASH_SEED=${seed}, kill ${index + 1} at line ${p.line} +${p.extraMs} ms`,
  };
}
