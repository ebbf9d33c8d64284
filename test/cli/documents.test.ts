// Documents through the `trove` command, run as a real child process: hits carry the page in
// --json and in the text output, --kind filters by document kind, get prints the extracted text
// with its markers, status counts kinds and lists the file that failed with its reason. On SQLite:
// the command prints what the engine answers; what the index keeps of a document (pages, kinds,
// get's markers) runs on both backends in test/integration/formats.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, oneJson, runTrove, type CliResult } from '../helpers/cli.js';
import { fixtureFiles } from '../helpers/formats.js';
import { tempDir, writeTree } from '../helpers/tmp.js';

let home: string;
const trove = (...args: string[]) => runTrove(args, { home });
const ok = (r: CliResult): CliResult => {
  expect(r.code, `exit ${r.code}; stderr: ${r.stderr}`).toBe(0);
  return r;
};

beforeAll(async () => {
  ensureBuilt();
  home = tempDir('trove-cli-home-');
  const docs = tempDir('trove-cli-docs-');
  const good = fixtureFiles('good');
  writeTree(docs, {
    'report.pdf': good['report.pdf']!,
    'deck.pptx': good['deck.pptx']!,
    'notes.md': '# Notes\n\nThe moraine is mentioned here too.\n',
    'broken/truncated.pdf': fixtureFiles('broken')['truncated.pdf']!,
  });
  ok(await trove('collection', 'add', docs, '--name', 'docs', '--json'));
}, 120_000);

type Hit = { path: string; kind: string; page: number | null; line: number; chunk: { page: number | null } };

describe('documents on the command line', () => {
  it('search --json: every hit has page (and chunk.page), null where the format has none', async () => {
    const r = oneJson<{ results: Hit[] }>(ok(await trove('search', 'moraine', '--json')));
    const byPath = Object.fromEntries(r.results.map((h) => [h.path, h]));
    expect(byPath['report.pdf']).toMatchObject({ kind: 'pdf', page: 2, chunk: { page: 2 } });
    expect(byPath['notes.md']).toMatchObject({ kind: 'markdown', page: null, chunk: { page: null } });
    const text = ok(await trove('search', 'harpsichord')).stdout;
    expect(text).toMatch(/^1\. docs\/deck\.pptx {2}slide 3 {2}#[0-9a-f]+/m);
  });

  it('--kind filters by document kind; an unknown kind exits with a usage error', async () => {
    const r = oneJson<{ results: Hit[] }>(ok(await trove('search', 'moraine', '--kind', 'pdf', '--json')));
    expect(r.results.map((h) => h.path)).toEqual(['report.pdf']);
    const bad = await trove('search', 'moraine', '--kind', 'pfd');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown kind "pfd" \(kinds: markdown, text, html, code, pdf, docx/);
  });

  it('get prints the extracted text with page markers; path:LINE reads from there', async () => {
    const all = ok(await trove('get', 'docs/report.pdf')).stdout;
    expect(all).toMatch(/^\[page 1\]\n\nQuarterly Field Report\n/);
    const hit = oneJson<{ results: Hit[] }>(ok(await trove('search', 'albatross', '--json'))).results[0]!;
    expect(ok(await trove('get', `docs/report.pdf:${hit.line}`, '--max-lines', '5')).stdout).toContain('albatross');
  });

  it('status counts documents per kind and lists the failed file with its reason', async () => {
    const s = oneJson<{ totals: { kinds: Record<string, number>; failed: number }; collections: { kinds: Record<string, number>; problems: unknown[] }[] }>(ok(await trove('status', '--json')));
    expect(s.totals.kinds).toEqual({ pdf: 1, pptx: 1, markdown: 1 });
    expect(s.totals.failed).toBe(1);
    expect(s.collections[0]!.problems).toEqual([{ path: 'broken/truncated.pdf', status: 'failed', reason: expect.stringMatching(/^cannot read as pdf: not a readable PDF/) }]);
    const human = ok(await trove('status')).stdout;
    expect(human).toMatch(/kinds: markdown 1, pdf 1, pptx 1/);
    expect(human).toMatch(/failed {2}broken\/truncated\.pdf: cannot read as pdf/);
  });
});
