// Redaction: the user's saved rules (settings.json `redaction`, regex sources) replace their
// matches with [redacted] in document text a face returns — search snippets, get, multi_get and
// their structured content, knowledge.get's content, resource reads, the app's preview — and in
// memory entries' text (the context server's text_content and highlighted, the persistence
// server's content, preview and highlights). Locators (uri, file, docid, path) stay usable, and
// highlight spans beside a redacted text move with it (a span inside a redacted stretch is
// dropped: nothing may be marked that is not shown). The index itself is unchanged.
import type { Span } from '../types/search.js';

export const REDACTED = '[redacted]';

/** Keys whose string values are document or memory text. */
const TEXT_KEYS = new Set(['text', 'snippet', 'title', 'context', 'text_content', 'highlighted', 'content', 'preview', 'highlights']);

/** The text with every rule's matches replaced. */
export function redactText(text: string, rules: readonly RegExp[]): string {
  let out = text;
  for (const re of rules) {
    re.lastIndex = 0;
    out = out.replace(re, REDACTED);
  }
  return out;
}

/** The text with every rule's matches replaced, and the spans moved with it (spans touching a replacement are dropped). */
export function redactTextWithSpans(text: string, rules: readonly RegExp[], spans: readonly Span[]): { text: string; spans: Span[] } {
  let out = text;
  let kept = spans.map((s): Span => [s[0], s[1]]);
  for (const re of rules) {
    const cuts: { start: number; end: number }[] = [];
    re.lastIndex = 0;
    const next = out.replace(re, (match: string, ...args: unknown[]) => {
      const offset = args.find((a) => typeof a === 'number')!;
      cuts.push({ start: offset, end: offset + match.length });
      return REDACTED;
    });
    if (!cuts.length) continue;
    kept = kept.flatMap(([a, b]): Span[] => {
      let shift = 0;
      for (const c of cuts) {
        if (c.start < b && a < c.end) return []; // marked text is gone
        if (c.end <= a) shift += REDACTED.length - (c.end - c.start);
      }
      return [[a + shift, b + shift]];
    });
    out = next;
  }
  return { text: out, spans: kept };
}

/** A copy of a result with the document text under TEXT_KEYS redacted. */
export function redactResult<T>(value: T, rules: readonly RegExp[]): T {
  if (!rules.length) return value;
  const walk = (v: unknown, key: string | null): unknown => {
    if (typeof v === 'string') return key !== null && TEXT_KEYS.has(key) ? redactText(v, rules) : v;
    if (Array.isArray(v)) return v.map((x) => walk(x, key));
    if (v && typeof v === 'object') {
      const entries = Object.entries(v);
      const record = v as Record<string, unknown>;
      // highlight spans belong to the text beside them (a hit's snippet, a document's text, knowledge.get's
      // content): they move together. Highlights that are text (the persistence server's fragments) are text.
      const spans = Array.isArray(record.highlights) && record.highlights.every(isSpan);
      const marked = spans ? (['snippet', 'text', 'content'] as const).find((k) => typeof record[k] === 'string') : undefined;
      const moved = marked ? redactTextWithSpans(record[marked] as string, rules, record.highlights as Span[]) : null;
      return Object.fromEntries(
        entries.map(([k, x]) => [k, moved && k === marked ? moved.text : moved && k === 'highlights' ? moved.spans : walk(x, k)]),
      );
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

function isSpan(x: unknown): boolean {
  return Array.isArray(x) && x.length === 2 && typeof x[0] === 'number' && typeof x[1] === 'number';
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
