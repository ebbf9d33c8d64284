// Secret-looking text in what Trove returns: secretlint's maintained rules plus Trove's own
// patterns, their ranges merged, each replaced by a marker that says a secret was there. The
// index is never changed; this runs on the way out.
//
// The finds of recent texts are remembered: assistants read the same documents and get the same
// snippets again and again, and running every rule over a text costs far more than looking it up
// (~60 rules: an eighth of a loaded host's main thread under reliability:load went to them). The
// rules are fixed for the life of the process (the user's own rules run apart, user-rules.ts), so
// a text's finds never go stale; the memory is bounded by the characters it keeps.
import { extraFindings } from './extra-patterns.js';
import type { SecretFinding } from './secret-finding.js';
import { secretlintFindings } from './secretlint-rules.js';
import type { Cut } from './spans.js';

export const REDACTED_SECRET = '[redacted secret]';

/** Characters of text whose finds are remembered (~4–8 MB of strings). */
const REMEMBERED_CHARS = 4_000_000;
/** A text longer than this is scanned every time: one would crowd out many. */
const LONGEST_REMEMBERED = 256_000;

/** Recent texts' finds, least recently used first (a Map keeps insertion order). */
const remembered = new Map<string, readonly SecretFinding[]>();
let rememberedChars = 0;

/** Every secret in a text, overlapping finds merged, in order (shared: do not change them). */
export function findSecrets(text: string): readonly SecretFinding[] {
  if (text.length < 8) return [];
  const known = remembered.get(text);
  if (known) {
    remembered.delete(text);
    remembered.set(text, known);
    return known;
  }
  const found = scan(text);
  if (text.length <= LONGEST_REMEMBERED) {
    remembered.set(text, found);
    rememberedChars += text.length;
    for (const old of remembered.keys()) {
      if (rememberedChars <= REMEMBERED_CHARS) break;
      remembered.delete(old);
      rememberedChars -= old.length;
    }
  }
  return found;
}

/** How much the finds of recent texts hold (tests check the bound). */
export function rememberedScans(): { texts: number; chars: number } {
  return { texts: remembered.size, chars: rememberedChars };
}

function scan(text: string): SecretFinding[] {
  const all = [...secretlintFindings(text), ...extraFindings(text)].filter((f) => f.end > f.start).sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: SecretFinding[] = [];
  for (const f of all) {
    const last = merged[merged.length - 1];
    if (last && f.start < last.end) last.end = Math.max(last.end, f.end);
    else merged.push({ ...f });
  }
  return merged;
}

/** The text with every secret replaced, how many there were, and where (to move highlight spans). */
export function redactSecrets(text: string): { text: string; count: number; cuts: Cut[] } {
  const found = findSecrets(text);
  if (!found.length) return { text, count: 0, cuts: [] };
  let out = '';
  let at = 0;
  for (const f of found) {
    out += text.slice(at, f.start) + REDACTED_SECRET;
    at = f.end;
  }
  return { text: out + text.slice(at), count: found.length, cuts: found.map((f) => ({ start: f.start, end: f.end, length: REDACTED_SECRET.length })) };
}
