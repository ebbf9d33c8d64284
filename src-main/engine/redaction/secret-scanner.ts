// Secret-looking text in what Trove returns: secretlint's maintained rules plus Trove's own
// patterns, their ranges merged, each replaced by a marker that says a secret was there. The
// index is never changed; this runs on the way out.
import { extraFindings } from './extra-patterns.js';
import type { SecretFinding } from './secret-finding.js';
import { secretlintFindings } from './secretlint-rules.js';
import type { Cut } from './spans.js';

export const REDACTED_SECRET = '[redacted secret]';

/** Every secret in a text, overlapping finds merged, in order. */
export function findSecrets(text: string): SecretFinding[] {
  if (text.length < 8) return [];
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
