// "Did you mean": the indexed paths closest to one that was not found.

export function closestPaths(wanted: string, candidates: readonly string[], max = 3): string[] {
  const w = wanted.toLowerCase();
  const wBase = basename(w);
  const scored = candidates.map((c) => {
    const lc = c.toLowerCase();
    // a path whose file name matches is closer than raw edit distance says
    const d = Math.min(editDistance(w, lc), editDistance(wBase, basename(lc)) + 1);
    return { c, d };
  });
  const limit = Math.max(3, Math.ceil(w.length * 0.4));
  return scored
    .filter((s) => s.d <= limit)
    .sort((a, b) => a.d - b.d || a.c.localeCompare(b.c))
    .slice(0, max)
    .map((s) => s.c);
}

function basename(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

/** Levenshtein distance, two rows of memory. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (!a.length) return b.length;
  if (!b.length) return a.length;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let cur = new Array<number>(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}
