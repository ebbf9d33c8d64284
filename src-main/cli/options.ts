// Shared option parsers for CLI commands.
export class UsageError extends Error {}

export const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

export const integer =
  (name: string) =>
  (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new UsageError(`${name} must be a whole number (got "${v}")`);
    return n;
  };
