// Members of a downloaded ZIP archive (a jar from a package registry holding a model's files),
// read with fflate within bounds: each wanted member's declared size is checked before anything
// is inflated (fflate inflates into a buffer of the declared size, so a member that lies about
// its size cannot grow past it). Which bytes are right is decided by the caller's sha256 check.
import fs from 'node:fs';
import { unzipSync } from 'fflate';

/** Largest member read when the manifest gives no size: far above any model file Trove ships. */
const MAX_MEMBER_BYTES = 2 ** 31 - 1;

export interface WantedMember {
  name: string;
  /** The size the manifest expects (undefined: unknown, bounded by MAX_MEMBER_BYTES). */
  bytes?: number;
}

/**
 * The wanted members' bytes by name. Throws (with what is wrong) when the file is not a readable
 * ZIP, a member is missing, or a member's declared size is not the expected one.
 */
export function readZipMembers(file: string, wanted: readonly WantedMember[]): Map<string, Uint8Array> {
  const bytes = fs.readFileSync(file);
  const want = new Map(wanted.map((w) => [w.name, w]));
  const problems: string[] = [];
  let out: Record<string, Uint8Array>;
  try {
    out = unzipSync(bytes, {
      filter: (f) => {
        const w = want.get(f.name);
        if (!w) return false;
        if (w.bytes !== undefined ? f.originalSize !== w.bytes : f.originalSize > MAX_MEMBER_BYTES) {
          problems.push(`member ${f.name} would decompress to ${f.originalSize} bytes, expected ${w.bytes ?? `at most ${MAX_MEMBER_BYTES}`}`);
          return false;
        }
        return true;
      },
    });
  } catch (err) {
    throw new Error(`not a readable ZIP archive (truncated or damaged: ${(err as Error).message})`);
  }
  for (const w of wanted) if (!out[w.name] && !problems.some((p) => p.includes(` ${w.name} `))) problems.push(`it has no member ${w.name}`);
  if (problems.length) throw new Error(problems.join('; '));
  return new Map(wanted.map((w) => [w.name, out[w.name]!]));
}
