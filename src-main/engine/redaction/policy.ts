// What gets redacted in a result a face returns (MCP tool and resource results, the app's search
// and preview). Document and memory text only — the strings under TEXT_KEYS (a memory entry's
// text_content and highlighted, the persistence server's content, preview and highlights too);
// locators (uri, file, docid, path) stay usable — and in two passes: secret-looking text (on by default; the Settings switch and a
// per-collection override decide, the collection read from the object that holds the text), then
// the user's own rules (in a worker, under a time budget). Highlight spans beside a text (a hit's
// snippet, a document's text) move with it. The index is never changed.
import type { Span } from '../types/search.js';
import { redactSecrets } from './secret-scanner.js';
import { moveSpans } from './spans.js';
import type { UserRuleRunner } from './user-rules.js';

/** Keys whose string values are document or memory text. */
const TEXT_KEYS = new Set(['text', 'snippet', 'title', 'context', 'text_content', 'highlighted', 'content', 'preview', 'highlights']);

export interface RedactionPolicy {
  /** The Settings switch: secret redaction for collections without an override. */
  secrets: boolean;
  /** Collection name (lower case) → its override (null: follows the switch). */
  collections: ReadonlyMap<string, boolean | null>;
  /** The user's rules (regex sources). */
  rules: readonly string[];
}

interface Leaf {
  text: string;
  secrets: boolean;
  /** The highlight spans of this text, when its object has them. */
  spans?: Span[];
}

type Visit = (text: string, collection: string | undefined, spans: Span[] | undefined) => { text: string; spans?: Span[] } | void;

/** A copy of a result with the policy applied to its document text; the value itself when nothing in it needed redacting. */
export async function redactValue<T>(value: T, policy: RedactionPolicy, runner: UserRuleRunner): Promise<T> {
  const anySecrets = policy.secrets || [...policy.collections.values()].some((v) => v === true);
  if (!anySecrets && !policy.rules.length) return value;
  const leaves: Leaf[] = [];
  const secretsFor = (collection: string | undefined) => {
    const override = collection === undefined ? null : policy.collections.get(collection.toLowerCase());
    return override ?? policy.secrets;
  };
  walk(value, null, undefined, (text, collection, spans) => void leaves.push({ text, secrets: secretsFor(collection), spans }));
  if (!leaves.length) return value;
  const afterSecrets = leaves.map((l) => {
    if (!l.secrets) return { text: l.text, spans: l.spans };
    const r = redactSecrets(l.text);
    return { text: r.text, spans: l.spans && moveSpans(l.spans, r.cuts) };
  });
  let done = afterSecrets;
  if (policy.rules.length) {
    const out = await runner.apply(afterSecrets.map((l) => l.text), policy.rules);
    done = afterSecrets.map((l, i) => ({ text: out.texts[i]!, spans: l.spans && out.passes[i]!.reduce((spans, pass) => moveSpans(spans, pass), l.spans) }));
  }
  if (done.every((d, i) => d.text === leaves[i]!.text)) return value; // nothing to redact: no copy
  let i = 0;
  return walk(value, null, undefined, () => done[i++]!) as T;
}

/**
 * Visits document-text strings in a fixed order, with the collection they belong to and, for a
 * hit's snippet or a document's text, the highlights beside it (or knowledge.get's content); returns a copy with each replaced.
 */
function walk(v: unknown, key: string | null, collection: string | undefined, visit: Visit): unknown {
  if (typeof v === 'string') {
    if (key === null || !TEXT_KEYS.has(key)) return v;
    return visit(v, collection, undefined)?.text ?? v;
  }
  if (Array.isArray(v)) return v.map((x) => walk(x, key, collection, visit));
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const own = collectionOf(o) ?? collection;
    // highlight spans belong to the text beside them (a hit's snippet, a document's text, knowledge.get's
    // content): they move together. Highlights that are text (the persistence server's fragments) are text.
    const spans = Array.isArray(o.highlights) && o.highlights.every(isSpan);
    const marked = spans ? (['snippet', 'text', 'content'] as const).find((k) => typeof o[k] === 'string') : undefined;
    let moved: Span[] | undefined;
    const entries = Object.entries(o).map(([k, x]): [string, unknown] => {
      if (k !== marked) return [k, walk(x, k, own, visit)];
      const r = visit(x as string, own, o.highlights as Span[]);
      moved = r?.spans;
      return [k, r?.text ?? x];
    });
    return Object.fromEntries(moved ? entries.map(([k, x]) => [k, k === 'highlights' ? moved : x]) : entries);
  }
  return v;
}

function isSpan(x: unknown): boolean {
  return Array.isArray(x) && x.length === 2 && typeof x[0] === 'number' && typeof x[1] === 'number';
}

/** The collection an object's text belongs to: its `collection`, or the first segment of its trove:// `uri` or `file`. */
function collectionOf(o: Record<string, unknown>): string | undefined {
  if (typeof o.collection === 'string') return o.collection;
  if (typeof o.uri === 'string' && o.uri.startsWith('trove://')) {
    const first = o.uri.slice('trove://'.length).split('/')[0]!;
    try {
      return decodeURIComponent(first);
    } catch {
      return first;
    }
  }
  if (typeof o.file === 'string' && o.file.includes('/')) return o.file.slice(0, o.file.indexOf('/'));
  return undefined;
}
