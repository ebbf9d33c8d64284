// Redaction: the user's saved rules (settings.json `redaction`, regex sources) replace their
// matches with [redacted] in document text a face returns — search snippets, get, multi_get and
// their structured content, knowledge.get's content, resource reads, the app's preview. Locators
// (uri, file, docid, path) stay usable. The index itself is unchanged.
export const REDACTED = '[redacted]';

/** Keys whose string values are document text. */
const TEXT_KEYS = new Set(['text', 'snippet', 'title', 'context', 'content']);

/** The text with every rule's matches replaced. */
export function redactText(text: string, rules: readonly RegExp[]): string {
  let out = text;
  for (const re of rules) {
    re.lastIndex = 0;
    out = out.replace(re, REDACTED);
  }
  return out;
}

/** A copy of a result with the document text under TEXT_KEYS redacted. */
export function redactResult<T>(value: T, rules: readonly RegExp[]): T {
  if (!rules.length) return value;
  const walk = (v: unknown, key: string | null): unknown => {
    if (typeof v === 'string') return key !== null && TEXT_KEYS.has(key) ? redactText(v, rules) : v;
    if (Array.isArray(v)) return v.map((x) => walk(x, key));
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    }
    return v;
  };
  return walk(value, null) as T;
}

/** Compiles rule sources once each; a bad or empty-matching one (hand-edited file) is skipped, not fatal. */
export class RuleCompiler {
  private readonly compiled = new Map<string, RegExp | null>();

  compile(sources: readonly string[]): RegExp[] {
    const out: RegExp[] = [];
    for (const source of sources) {
      let re = this.compiled.get(source);
      if (re === undefined) {
        re = compileRule(source);
        this.compiled.set(source, re);
      }
      if (re) out.push(re);
    }
    return out;
  }
}

function compileRule(source: string): RegExp | null {
  let re: RegExp;
  try {
    re = new RegExp(source, 'gu');
  } catch {
    return null; // the store validates rules; a hand-edited bad one is skipped
  }
  return re.test('') ? null : re; // an empty match would redact between every character
}
