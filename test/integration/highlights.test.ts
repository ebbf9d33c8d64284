// Which words a result marks, tried as a new user would on the PowerShell docs: "how do I get the
// running processes" must mark "running" and "processes" (and their stemmed forms, on whole words),
// never "the" — a stop word the planner leaves out — nor "the" inside "their" or "then". The engine
// decides once; the same spans reach the app (get's preview), the CLI and MCP (test/mcp/tools.test.ts).
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine, SearchResult, Span } from '../../src-main/engine/index.js';
import { redactTextWithSpans } from '../../src-main/engine/redaction/spans.js';
import { stem } from '../../src-main/engine/text/terms.js';
import { describeBackends } from '../helpers/backends.js';
import { modelsDir } from '../embed/models-dir.js';

const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/powershell');
const QUESTION = 'how do I get the running processes';
const marked = (text: string, spans: readonly Span[]) => spans.map(([s, e]) => text.slice(s, e));

/** Each span is a whole word: no letter or digit right before or after it. */
function wholeWords(text: string, spans: readonly Span[]): boolean {
  return spans.every(([s, e]) => !/[\p{L}\p{N}]/u.test(text[s - 1] ?? ' ') && !/[\p{L}\p{N}]/u.test(text[e] ?? ' '));
}

/** `some`: the snippets need not hold every word asked for (a vector hit's chunk is chosen by meaning), only mark no other. */
function checkQuestion(results: SearchResult[], some = false): void {
  expect(results.length).toBeGreaterThan(0);
  const words = results.flatMap((r) => marked(r.snippet, r.highlights).map((w) => w.toLowerCase()));
  expect(words.length).toBeGreaterThan(0);
  const stems = new Set(words.map((w) => stem(w)));
  if (some) expect([...stems].filter((s) => s !== 'run' && s !== 'process')).toEqual([]);
  else expect(stems).toEqual(new Set(['run', 'process'])); // running, processes, process, …
  for (const r of results) expect(wholeWords(r.snippet, r.highlights)).toBe(true);
  // the snippets do show "the", unmarked ("their" and "then": the preview's test below)
  expect(results.map((r) => r.snippet).join('\n')).toMatch(/\bthe\b/);
}

describeBackends('highlights', (b) => {
  let engine: Engine;

  beforeAll(async () => {
    engine = await b.open({ embeddings: { modelsDir, workers: 1 } });
    await engine.addCollection({ root: FIXTURE, name: 'ps', exclude: ['SOURCE.md'] });
    await engine.index();
    await engine.embed();
  });

  it('mark the words a keyword search used, on whole words with stemmed forms, and not the stop words', async () => {
    const r = await engine.search({ query: QUESTION });
    checkQuestion(r.results);
    expect(r.results[0]!.snippet.length).toBeGreaterThan(0);
  });

  it('are the same for vector and hybrid results', async () => {
    for (const mode of ['vector', 'hybrid'] as const) checkQuestion((await engine.search({ query: QUESTION, mode, minScore: 0 })).results, mode === 'vector');
  });

  it('mark what a query of stop words alone searched for, and words starting with a prefix in prefix syntax', async () => {
    const the = (await engine.search({ query: 'the' })).results[0]!;
    expect(new Set(marked(the.snippet, the.highlights).map((w) => w.toLowerCase()))).toEqual(new Set(['the']));
    expect(wholeWords(the.snippet, the.highlights)).toBe(true); // not inside "their" or "then"
    const prefix = (await engine.search({ query: 'debugg', syntax: 'prefix' })).results[0]!;
    expect(marked(prefix.snippet, prefix.highlights).every((w) => w.toLowerCase().startsWith('debugg'))).toBe(true);
  });

  it('mark the same words in a document the preview shows, skipping line numbers', async () => {
    const doc = await engine.get('ps/Get-Process.md', { lineNumbers: true, highlight: { query: 'get-process example 2' } });
    const words = marked(doc.text, doc.highlights!);
    expect(words.length).toBeGreaterThan(3);
    // "get" is a stop word; "2" is marked in "Example 2", never as line 2's number; "processes", "EXAMPLES" are stemmed forms
    expect(new Set(words.map((w) => stem(w.toLowerCase())))).toEqual(new Set(['process', 'exampl', '2']));
    expect(wholeWords(doc.text, doc.highlights!)).toBe(true);
    const asked = await engine.get('ps/Get-Process.md', { highlight: { query: QUESTION } });
    expect(asked.text).toMatch(/\btheir\b/);
    expect(asked.text).toMatch(/\bthen\b/);
    expect(new Set(marked(asked.text, asked.highlights!).map((w) => stem(w.toLowerCase())))).toEqual(new Set(['run', 'process']));
    // no line number is marked: every span starts after its line's "N: "
    for (const [s] of doc.highlights!) {
      const lineStart = doc.text.lastIndexOf('\n', s - 1) + 1;
      expect(s).toBeGreaterThanOrEqual(lineStart + /^\d+: /.exec(doc.text.slice(lineStart))![0].length);
    }
    expect((await engine.get('ps/Get-Process.md')).highlights).toBeUndefined(); // only when asked
  });

  it('redacted search results keep their spans on the right words', async () => {
    engine.settings.update({ redaction: ['\\blocal\\b'] });
    try {
      const r = await engine.settings.redact(await engine.search({ query: QUESTION }));
      expect(r.results.map((h) => h.snippet).join('\n')).toContain('[redacted]');
      for (const h of r.results) expect(h.snippet).not.toMatch(/\blocal\b/);
      checkQuestion(r.results); // a span off by the length change would mark other text
    } finally {
      engine.settings.update({ redaction: [] });
    }
  });
});

// the spans' arithmetic alone: no index
describe('highlights and redaction', () => {
  it('move with redacted text, and a marked word that is redacted is no longer marked', () => {
    const text = '12: The running processes of alice@example.com are running';
    const at = (w: string, from = 0): Span => [text.indexOf(w, from), text.indexOf(w, from) + w.length];
    const spans: Span[] = [at('running'), at('processes'), at('running', 20)];
    const rules = [/[a-z]+@[a-z.]+/gu];
    const out = redactTextWithSpans(text, rules, spans);
    expect(out.text).toBe('12: The running processes of [redacted] are running');
    expect(marked(out.text, out.spans)).toEqual(['running', 'processes', 'running']);
    expect(redactTextWithSpans('secret word', [/secret/gu], [[0, 6], [7, 11]]).spans).toEqual([[11, 15]]);
  });
});
