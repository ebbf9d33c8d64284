// Trove's own secret patterns, for what secretlint's recommended preset does not cover (Stripe,
// Google API keys and OAuth client secrets, JWTs, passwords in any URL scheme, high-entropy
// values assigned to *_KEY / *_TOKEN / *_SECRET / password names) or cannot see in what Trove
// returns: private-key blocks whose lines carry `N: ` prefixes or that a snippet cut in half.
// Every pattern is linear (no nested quantifiers) and has a test (test/unit/secret-patterns.test.ts).
import type { SecretFinding } from './secret-finding.js';

interface Pattern {
  rule: string;
  re: RegExp;
  /** Which capture group is the secret (default: the whole match). */
  group?: number;
  /** A last look at the secret (placeholders, variables and words are not secrets) and the whole match. */
  accept?: (secret: string, match: string) => boolean;
  /**
   * Text every match contains (a superset test, checked by reading the pattern): texts without it
   * skip the pattern. For the two patterns that start with a variable-width run, which the regex
   * engine otherwise tries at every word boundary.
   */
  cue?: RegExp;
}

const KEY_BEGIN = /-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/;
const KEY_END = /-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/;
/** Key material: a run of base64. */
const KEY_BODY = /[A-Za-z0-9+/=]{40,}/;

const PATTERNS: Pattern[] = [
  { rule: 'stripe', re: /\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,247}\b/g },
  { rule: 'stripe-webhook', re: /\bwhsec_[0-9A-Za-z]{24,64}\b/g },
  { rule: 'google-api-key', re: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g },
  { rule: 'google-oauth-secret', re: /\bGOCSPX-[0-9A-Za-z_-]{28}(?![0-9A-Za-z_-])/g },
  { rule: 'jwt', re: /\beyJ[0-9A-Za-z_-]{8,}\.eyJ[0-9A-Za-z_-]{8,}\.[0-9A-Za-z_-]{16,}(?![0-9A-Za-z_-])/g },
  // OpenAI keys in every generation (sk-…, sk-proj-…, sk-svcacct-…); words joined by hyphens are not keys
  { rule: 'openai', re: /\bsk-(?:proj-|svcacct-|admin-)?[0-9A-Za-z_-]{32,200}(?![0-9A-Za-z_-])/g, accept: looksRandom },
  // user:password@ in any scheme's URL (secretlint covers http(s) and database URLs); the password is the secret
  { rule: 'url-password', re: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@"'<>]{0,100}:([^\s/@"'<>]{3,200})@[\w.-]/gi, group: 1, accept: notPlaceholder, cue: /:\/\// },
  // NAME_KEY = value, "apiToken": "value", password: value — a value that looks random
  {
    rule: 'assigned-secret',
    re: /\b[\w.-]{0,40}?(?:api[_-]?key|secret[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?token|access[_-]?token|refresh[_-]?token|_key|_token|_secret|secret|token|password|passwd|pwd)["']?\s{0,4}(?::(?!:)|=(?!=)|:=|=>)\s{0,4}["'`]?([A-Za-z0-9+/_-][^\s"'`,;()}\]]{7,299})/gi,
    group: 1,
    // every name in the alternation contains one of these
    cue: /key|token|secret|passw|pwd/i,
    // public keys are public; a value without a digit is a word or a name far more often than a secret
    accept: (v, m) => !/^\W*(?:public|pub)[_-]?key/i.test(m) && /\d/.test(v) && notPlaceholder(v) && looksRandom(v),
  },
];

/** Secrets Trove's own patterns find in a text (private-key blocks included). */
export function extraFindings(text: string): SecretFinding[] {
  const found = privateKeyBlocks(text);
  for (const p of PATTERNS) {
    if (p.cue && !p.cue.test(text)) continue;
    p.re.lastIndex = 0;
    for (const m of text.matchAll(p.re)) {
      const secret = p.group ? m[p.group] : m[0];
      if (secret === undefined || (p.accept && !p.accept(secret, m[0]))) continue;
      const start = m.index + (p.group ? m[0].lastIndexOf(secret) : 0);
      found.push({ start, end: start + secret.length, rule: p.rule });
    }
  }
  return found;
}

/**
 * A private key block from BEGIN to END, whatever lies between (line-number prefixes of `get`);
 * a BEGIN without an END runs to the end of the text and an END without a BEGIN from its start
 * (a snippet cut through the block) — only when key material (a run of base64) is there.
 */
function privateKeyBlocks(text: string): SecretFinding[] {
  const out: SecretFinding[] = [];
  let from = 0;
  for (;;) {
    const rest = text.slice(from);
    const begin = KEY_BEGIN.exec(rest);
    const end = KEY_END.exec(rest);
    if (!begin && !end) return out;
    if (end && (!begin || end.index < begin.index)) {
      // an END with no BEGIN before it: a snippet cut through the block, if key material precedes it
      const stop = from + end.index + end[0].length;
      if (KEY_BODY.test(text.slice(Math.max(from, stop - end[0].length - 400), stop - end[0].length))) out.push({ start: from, end: stop, rule: 'private-key' });
      from = stop;
      continue;
    }
    const start = from + begin!.index;
    const after = text.slice(start + begin![0].length);
    const close = KEY_END.exec(after);
    const body = close ? after.slice(0, close.index) : after.slice(0, 400);
    const stop = close ? start + begin![0].length + close.index + close[0].length : text.length;
    // a marker without key material after it is prose about keys ("it begins with -----BEGIN …")
    if (KEY_BODY.test(body)) out.push({ start, end: stop, rule: 'private-key' });
    from = close ? stop : start + begin![0].length;
  }
}

const PLACEHOLDER = /^(?:[$%{<[]|\*{3,}|x{3,}$|\.{3})|^(?:password|passwd|pass|secret|token|changeme|example|redacted|none|null|true|false|undefined)$/i;

function notPlaceholder(v: string): boolean {
  return !PLACEHOLDER.test(v) && !/^(?:[Yy]our|[Mm]y|[Ss]ome|[Tt]he)(?:[-_]|(?=[A-Z]))/.test(v);
}

/**
 * High entropy and mixed characters: 16+ characters with digits and letters (or symbols) at
 * 3.5+ bits per character. Identifiers, words, CamelCase names and calls fail one of the tests.
 */
export function looksRandom(v: string): boolean {
  if (v.length < 16) return false;
  if (/^[a-z]+(?:[-_][a-z]+)*$/i.test(v) || /^[\w-]+\([^)]*\)?$/.test(v)) return false; // words, calls
  if (/^(?:[A-Z][a-z]+)+$/.test(v)) return false; // CamelCase names
  const classes = [/[a-z]/, /[A-Z]/, /\d/, /[^0-9A-Za-z]/].filter((c) => c.test(v)).length;
  if (classes < 2 || (classes === 2 && !/\d/.test(v))) return false;
  return entropy(v) >= 3.5;
}

function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}
