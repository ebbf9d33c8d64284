// OCR through the `trove` command, run as a real child process: `collection add --no-ocr` indexes
// a scan by its name only and status says what is left; `trove index` then reads it (the text of
// everything first) and a search hit says it came from OCR; `--ocr-languages` is checked.
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, oneJson, runTrove, type CliResult } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/tmp.js';
import { LETTER_PNG } from './helpers.js';

let home: string;
let docs: string;
const trove = (...args: string[]) => runTrove(args, { home });
const ok = (r: CliResult): CliResult => {
  expect(r.code, `exit ${r.code}; stderr: ${r.stderr}`).toBe(0);
  return r;
};

type OcrStatus = { collection: string; pages: number; done: number; left: number; summary: string };

beforeAll(() => {
  ensureBuilt();
  home = tempDir('trove-cli-home-');
  docs = tempDir('trove-cli-docs-');
  writeTree(docs, { 'notes.md': '# Notes\n\nThe harbour crane.\n', 'scan.png': LETTER_PNG });
}, 180_000);

describe('OCR on the command line', () => {
  it('--no-ocr leaves the scan for later; trove index reads it; the hit says OCR', async () => {
    const added = oneJson<{ collection: { ocrLanguages: string[] }; ocr?: unknown }>(ok(await trove('collection', 'add', docs, '--name', 'docs', '--no-ocr', '--json')));
    expect(added.collection.ocrLanguages).toEqual(['eng']);
    expect(added.ocr).toBeUndefined();
    const before = oneJson<{ ocr: { collections: OcrStatus[] } }>(ok(await trove('status', '--json')));
    expect(before.ocr.collections).toEqual([expect.objectContaining({ collection: 'docs', pages: 1, done: 0, left: 1 })]);
    expect(ok(await trove('search', 'Rotterdam')).stdout).toMatch(/^No results/);

    const indexed = oneJson<{ ocr: OcrStatus[] }>(ok(await trove('index', '--json')));
    expect(indexed.ocr).toEqual([expect.objectContaining({ collection: 'docs', pages: 1, done: 1, left: 0, summary: 'OCR: 1 of 1 page read' })]);
    expect(ok(await trove('search', 'Rotterdam')).stdout).toMatch(/^1\. docs\/scan\.png {2}page 1 \(OCR, \d+% confidence\)/m);
    expect(ok(await trove('status')).stdout).toContain('OCR: 1 of 1 page read');
  });

  it('--ocr-languages: an unknown code is refused with the reason, nothing added', async () => {
    const r = await trove('collection', 'add', docs, '--name', 'other', '--ocr-languages', 'eng,xx_bogus');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/xx_bogus/);
    const list = oneJson<{ collections: { name: string }[] }>(ok(await trove('collection', 'list', '--json')));
    expect(list.collections.map((c) => c.name)).toEqual(['docs']);
  });
});
