// Documents a person keeps, indexed from one folder through the real pipeline (parse workers,
// chunker, the index): every format's text, title and page/slide/sheet/chapter locators; CJK in
// documents found like Markdown; legacy encodings decoded; and the broken files — truncated and
// encrypted PDFs, a zip-bomb DOCX, an EPUB missing a chapter, a million-row workbook, an e-mail
// with a broken part, a legacy .doc, a scanned PDF — each reported with its reason while the
// rest of the folder indexes.
//
// Parsing is backend-neutral: the whole fixture folder is asserted once, on the profile's SQLite
// index. What the index keeps of a document — its kind, pages and headings in hits, get's markers,
// a partial document's warning, a failed or skipped file's status — is asserted on both backends
// with a few of the files (the last block).
import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine, SearchResult } from '../../src-main/engine/index.js';
import { describeBackends } from '../helpers/backends.js';
import { indexedFolder, troveErrorAsync } from '../helpers/engine.js';
import { fixtureFiles, manyRowsXlsx } from '../helpers/formats.js';

let engine: Engine;

beforeAll(async () => {
  ({ engine } = await indexedFolder(
    {
      ...fixtureFiles('good'),
      ...Object.fromEntries(Object.entries(fixtureFiles('broken')).map(([k, v]) => [`broken/${k}`, v])),
      ...Object.fromEntries(Object.entries(fixtureFiles('encodings')).map(([k, v]) => [`encodings/${k}`, v])),
      'broken/million-rows.xlsx': manyRowsXlsx(1_000_000),
      'notes.md': '# Notes\n\nThe moraine survey is described in the field report.\n',
    },
    'docs',
  ));
}, 120_000);

const hits = async (query: string, kinds?: string[]): Promise<SearchResult[]> => (await engine.search({ query, kinds, limit: 20 })).results;
const first = async (query: string): Promise<SearchResult> => {
  const [hit] = await hits(query);
  if (!hit) throw new Error(`nothing found for ${query}`);
  return hit;
};
const problem = async (path: string) => (await engine.status()).collections[0]!.problems.find((p) => p.path === path);

describe('PDF', () => {
  it('reads text per page, title from the metadata, page in each hit and in get', async () => {
    const doc = await engine.get('docs/report.pdf');
    expect(doc.title).toBe('Quarterly Field Report');
    expect(doc.kind).toBe('pdf');
    expect(doc.text).toMatch(/^\[page 1\]\n\nQuarterly Field Report\n\nThe survey team measured glacier retreat near Tromsø/);
    expect(doc.text.indexOf('[page 2]')).toBeLessThan(doc.text.indexOf('moraine'));
    expect(doc.text.indexOf('[page 3]')).toBeLessThan(doc.text.indexOf('albatross'));
    const moraine = (await hits('moraine photogrammetry', ['pdf']))[0]!;
    expect(moraine.path).toBe('report.pdf');
    expect(moraine.page).toBe(2);
    expect(moraine.chunk.page).toBe(2);
    expect(moraine.chunk.headingPath).toEqual(['Quarterly Field Report', 'Methods']);
    expect((await first('albatross')).page).toBe(3);
  });

  it('line numbers of a hit point into the text get returns', async () => {
    const hit = await first('albatross');
    const lines = (await engine.get('docs/report.pdf')).text.split('\n');
    const [, n, text] = /^(\d+): (.*albatross.*)$/m.exec(hit.snippet)!;
    expect(lines[Number(n) - 1]).toBe(text);
    expect((await engine.get(`docs/report.pdf:${n}`, { maxLines: 1 })).text).toContain('albatross');
    expect(Number(n)).toBeGreaterThanOrEqual(hit.line);
  });

  it('drops the running header and footer Chromium printed on every page', async () => {
    const text = (await engine.get('docs/report.pdf')).text;
    expect(text).not.toMatch(/file:\/\//);
    expect(text).not.toMatch(/\b[123]\/3\b/);
    expect(text.match(/Quarterly Field Report/g)).toHaveLength(1); // the heading, not the header's title on each page
  });

  it('reads two columns one after the other, whatever the content order; titles and full-width lines stay in place, tables row by row', async () => {
    // page 1 draws its two columns row by row (left, right, left, …); page 2 draws the right column first
    const text = (await engine.get('docs/columns.pdf')).text;
    const order = [
      '[page 1]', 'River Towns Gazette', 'The river guide explains how the ferry\ncrosses at dawn when the fog lifts from', 'day toward the old market town.',
      'Meanwhile the bakery on the far bank\nopens its shutters', 'pears from the orchards upstream.', 'The editors thank the ferry company',
      '[page 2]', 'Harbour Notes', 'Fishing boats return to the harbour', 'Gulls follow the boats', 'The lighthouse keeper logs', 'On stormy nights', 'Both columns end here',
    ].map((s) => [s, text.indexOf(s)] as const);
    expect(order.filter(([, at]) => at < 0)).toEqual([]);
    expect(order.map(([, at]) => at)).toEqual(order.map(([, at]) => at).sort((a, b) => a - b));
    expect(text).toContain('The old market town hall with its clock tower Closed on Sundays and holidays');
    expect(await first('bakery rye bread')).toMatchObject({ path: 'columns.pdf', page: 1 });
    expect(await first('lighthouse leather ledger')).toMatchObject({ path: 'columns.pdf', page: 2 });
  });

  it('finds a Japanese PDF by Japanese words', async () => {
    const hit = await first('浅草寺');
    expect(hit.path).toBe('japanese.pdf');
    expect(hit.page).toBe(1);
    expect(hit.title).toBe('東京の観光案内');
    expect((await first('山手線')).page).toBe(2);
  });
});

describe('Office and OpenDocument', () => {
  it('DOCX: headings become the heading path, tables text rows; comments and tracked changes stay out of the body', async () => {
    const doc = await engine.get('docs/handbook.docx');
    expect(doc.title).toBe('Employee Handbook');
    expect(doc.tags).toEqual(['policy', 'onboarding']);
    const body = doc.text.slice(0, doc.text.indexOf('[tracked changes]'));
    expect(body).toMatch(/^\[page 1\]\n\nWelcome\n/);
    expect(body).toContain('Expenses are refunded within thirty days.');
    expect(body).not.toContain('fourteen');
    expect(body).not.toContain('parking rules');
    expect(body).toContain('Lisbon | Third');
    expect(doc.text).toContain('[tracked changes]\n\ndeleted (Finance): thirty\ninserted (Finance): fourteen');
    expect(doc.text).toContain('[comments]\n\nReviewer: Please check the parking rules with facilities.');
    const hit = (await hits('Nairobi', ['docx']))[0]!;
    expect(hit.chunk.headingPath).toEqual(['Welcome', 'Offices']);
    expect(hit.page).toBe(2); // an explicit page break before "Offices"
    expect((await hits('courtyard', ['docx']))[0]!.page).toBe(1);
  });

  it('DOCX as Word saves it: pages where its last layout broke them; a generated DOCX without breaks has none', async () => {
    expect((await engine.get('docs/rendered.docx')).text).toBe(
      '[page 1]\n\nThe first page describes the lighthouse lens.\n\nStill on the first page.\n\n[page 2]\n\nThe second page starts with the keeper’s logbook.\n\n[page 3]\n\nA third page mentions the foghorn.',
    );
    expect(await first('logbook')).toMatchObject({ path: 'rendered.docx', page: 2 });
    expect(await first('foghorn')).toMatchObject({ path: 'rendered.docx', page: 3 });
    expect((await hits('bm25', ['docx']))[0]).toMatchObject({ path: 'chinese.docx', page: null });
  });

  it('finds a Chinese DOCX by Chinese words', async () => {
    const hit = await first('分词技术');
    expect(hit.path).toBe('chinese.docx');
    expect(hit.title).toBe('全文检索系统设计');
    expect((await hits('相关性排序')).map((h) => h.path)).toContain('chinese.docx');
  });

  it('PPTX: one section per slide, slide titles as headings, speaker notes marked', async () => {
    const doc = await engine.get('docs/deck.pptx');
    expect(doc.title).toBe('Roadmap 2026');
    expect(doc.text).toContain('[slide 1]\n\nRoadmap 2026\n\nWe will ship the offline search engine in spring.\n\n[notes]\n\nMention the beta testers from Reykjavik.');
    expect(doc.text).toContain('Q2 | Watercolour theme');
    const risk = await first('harpsichord');
    expect([risk.path, risk.page, risk.chunk.headingPath]).toEqual(['deck.pptx', 3, ['Risks']]);
    expect((await first('Reykjavik')).page).toBe(1);
    expect((await first('watercolour')).page).toBe(2);
  });

  it('XLSX and ODS: sheet name and rows, the sheet in the locator', async () => {
    expect((await engine.get('docs/budget.xlsx')).text).toContain('[sheet 2: Contacts]\n\nContacts\n\nName | Role\nAmara Okafor | Plumber');
    const tuner = await first('piano tuner');
    expect([tuner.path, tuner.page, tuner.chunk.headingPath]).toEqual(['budget.xlsx', 2, ['Contacts']]);
    const seeds = await first('sunflower heirloom');
    expect([seeds.path, seeds.page]).toEqual(['inventory.ods', 2]);
    expect((await engine.get('docs/inventory.ods')).text).not.toMatch(/\n \|/); // a million repeated empty rows wrote nothing
  });

  it('ODT and ODP: headings, tables, comments apart; slides with notes', async () => {
    const odt = await engine.get('docs/charter.odt');
    expect(odt.title).toBe('Project Charter');
    expect(odt.text).toContain('The community garden needs raised beds and a compost bay.');
    expect(odt.text).toContain('[comments]\n\nAna: Ask the council about water.');
    expect((await first('timber')).chunk.headingPath).toEqual(['Project Charter', 'Budget']);
    const odp = await first('centrifuge');
    expect([odp.path, odp.page, odp.title]).toEqual(['talk.odp', 2, 'Beekeeping Basics']);
    expect((await engine.get('docs/talk.odp')).text).toContain('[notes]\n\nBring the smoker to the demo.');
  });
});

describe('EPUB, RTF and e-mail', () => {
  it('EPUB: chapters in spine order, the chapter in the locator', async () => {
    const doc = await engine.get('docs/novel.epub');
    expect(doc.title).toBe('The Lighthouse Keeper');
    expect(doc.metadata).toMatchObject({ author: 'Ines Moreau', language: 'en', chapters: 3 });
    expect(doc.text.indexOf('[chapter 1: Arrival]')).toBeLessThan(doc.text.indexOf('[chapter 2: The Storm]'));
    const storm = (await hits('fog signal', ['epub']))[0]!;
    expect([storm.path, storm.page, storm.chunk.headingPath]).toEqual(['novel.epub', 2, ['The Storm']]);
  });

  it('RTF: code-page bytes, a GBK font run and \\u escapes decoded', async () => {
    const doc = await engine.get('docs/menu.rtf');
    expect(doc.title).toBe('Café Menu');
    expect(doc.text).toContain('Our crème brûlée costs €5 – served daily.');
    expect(doc.text).toContain('全文检索');
    expect(doc.text).toContain('Specials from 東京 are on Fridays.');
  });

  it('.eml: headers as metadata, an attached DOCX a document of its own (mail-attachments.test.ts)', async () => {
    const doc = await engine.get('docs/minutes.eml');
    expect(doc.title).toBe('Minutes of the harbour meeting');
    expect(doc.metadata).toMatchObject({ from: 'Priya Raman <priya@example.org>', to: 'Team <team@example.org>', subject: 'Minutes of the harbour meeting' });
    expect(String(doc.metadata.date)).toMatch(/^2026-03-03T09:30/);
    expect(doc.text).toContain('Attachment: handbook.docx');
    expect((await hits('courtyard bicycles')).map((h) => h.path).sort()).toEqual(['handbook.docx', 'minutes.eml/handbook.docx']);
  });

  it('.mbox: one section per message, the message in the locator', async () => {
    const thermos = await first('waterproof thermos');
    expect([thermos.path, thermos.page, thermos.chunk.headingPath]).toEqual(['archive.mbox', 2, ['Re: Kayak trip']]);
    expect((await engine.get('docs/archive.mbox')).text).toContain('From the pier we paddle east.'); // mboxrd ">From " unescaped
  });
});

describe('legacy encodings and UTF-16', () => {
  it('decodes GBK, Shift_JIS, EUC-KR and windows-1252, and UTF-16 with a byte-order mark', async () => {
    expect((await hits('倒排索引')).map((h) => h.path)).toContain('encodings/gbk.txt');
    expect((await first('富士山')).path).toBe('encodings/shift_jis.txt');
    expect((await first('한강')).path).toBe('encodings/euc-kr.txt');
    expect((await engine.get('docs/encodings/windows-1252.txt')).text).toContain('“crème brûlée” for €5 — a naïve façade');
    expect((await first('narwhal')).path).toBe('encodings/utf16le.txt');
    expect((await first('pangolin')).path).toBe('encodings/utf16be.txt');
  });
});

describe('status, kinds and broken files', () => {
  it('counts documents per kind', async () => {
    const s = await engine.status();
    expect(s.totals.kinds).toMatchObject({ pdf: 4, docx: 4, pptx: 1, xlsx: 2, ods: 1, odt: 1, odp: 1, epub: 2, rtf: 1, email: 3, markdown: 1, text: 6 });
    expect(s.collections[0]!.kinds.pdf).toBe(4);
  });

  it('reports every broken file with its reason while the rest of the folder is indexed', async () => {
    expect(await problem('broken/truncated.pdf')).toMatchObject({ status: 'failed', reason: expect.stringMatching(/not a readable PDF/) });
    expect(await problem('broken/encrypted.pdf')).toMatchObject({ status: 'failed', reason: expect.stringMatching(/encrypted with a password/) });
    expect(await problem('broken/zip-bomb.docx')).toMatchObject({ status: 'failed', reason: expect.stringMatching(/word\/document\.xml would decompress to 100 MB, over the 64 MB limit/) });
    expect(await problem('broken/legacy.doc')).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/^unsupported format: Word 97-2003/) });
    expect(await problem('broken/missing-chapter.epub')).toMatchObject({ status: 'partial', reason: expect.stringMatching(/chapter 2 .* missing/) });
    expect(await problem('broken/million-rows.xlsx')).toMatchObject({ status: 'partial', reason: expect.stringMatching(/more than 20,000 rows; only the first 20,000 were indexed/) });
    expect(await problem('broken/broken-part.eml/invoice.pdf')).toMatchObject({ status: 'failed', reason: expect.stringMatching(/cannot read as pdf/) });
    expect(await problem('broken/broken-part.eml')).toBeUndefined(); // the message itself is whole
    expect(await problem('broken/scanned.pdf')).toMatchObject({ status: 'partial', reason: expect.stringMatching(/^needs OCR/) });
    // the readable parts of the partial ones are searchable; the scanned PDF by its name
    expect((await first('oranges mainland')).path).toBe('broken/missing-chapter.epub');
    expect((await first('seismograph readings')).path).toBe('broken/million-rows.xlsx');
    expect((await first('greenhouse glass')).path).toBe('broken/broken-part.eml');
    expect((await hits('scanned', ['pdf'])).map((h) => h.path)).toEqual(['broken/scanned.pdf']);
    // failures are files that retry; a broken attachment waits for its mail to change (its bytes are the mail's)
    expect((await engine.failures()).map((f) => f.path).sort()).toEqual(['broken/encrypted.pdf', 'broken/truncated.pdf', 'broken/zip-bomb.docx']);
  });

  it('--kind filters by every kind, and an unknown kind is an error, not an empty result', async () => {
    for (const [kind, query] of [['pdf', 'albatross'], ['docx', 'Nairobi'], ['pptx', 'harpsichord'], ['xlsx', 'plumber'], ['ods', 'hammer'], ['odt', 'compost'], ['odp', 'queen'], ['epub', 'lighthouse'], ['rtf', 'brûlée'], ['email', 'regatta'], ['markdown', 'moraine'], ['text', 'narwhal']] as const) {
      const found = await hits(query, [kind]);
      expect(found.length, `${kind}: ${query}`).toBeGreaterThan(0);
      expect(found.every((h) => h.kind === kind), kind).toBe(true);
    }
    expect((await hits('moraine', ['pdf'])).map((h) => h.path)).toEqual(['report.pdf']);
    expect((await troveErrorAsync(() => engine.search({ query: 'moraine', kinds: ['pfd'] }))).message).toMatch(/unknown kind "pfd"/);
  });
});

describeBackends('what the index keeps of documents', (b) => {
  let docs: Engine;
  beforeAll(async () => {
    const good = fixtureFiles('good');
    const broken = fixtureFiles('broken');
    ({ engine: docs } = await b.indexedFolder(
      {
        'report.pdf': good['report.pdf']!,
        'deck.pptx': good['deck.pptx']!,
        'budget.xlsx': good['budget.xlsx']!,
        'notes.md': '# Notes\n\nThe moraine survey is described in the field report.\n',
        'broken/truncated.pdf': broken['truncated.pdf']!,
        'broken/legacy.doc': broken['legacy.doc']!,
        'broken/missing-chapter.epub': broken['missing-chapter.epub']!,
      },
      'docs',
    ));
  }, 120_000);

  const top = async (query: string) => (await docs.search({ query, limit: 5 })).results[0]!;
  const problemOf = async (path: string) => (await docs.status()).collections[0]!.problems.find((p) => p.path === path);

  it('hits carry their page, slide or sheet and heading path; get shows the markers', async () => {
    expect(await top('moraine photogrammetry')).toMatchObject({ path: 'report.pdf', kind: 'pdf', page: 2, chunk: { page: 2, headingPath: ['Quarterly Field Report', 'Methods'] } });
    expect(await top('harpsichord')).toMatchObject({ path: 'deck.pptx', page: 3, chunk: { headingPath: ['Risks'] } });
    expect(await top('piano tuner')).toMatchObject({ path: 'budget.xlsx', page: 2, chunk: { headingPath: ['Contacts'] } });
    expect((await top('moraine survey described')).page).toBeNull(); // notes.md has no pages
    const report = await docs.get('docs/report.pdf');
    expect(report).toMatchObject({ title: 'Quarterly Field Report', kind: 'pdf' });
    expect(report.text).toMatch(/^\[page 1\]\n\nQuarterly Field Report/);
    expect(report.text.indexOf('[page 3]')).toBeLessThan(report.text.indexOf('albatross'));
    expect((await docs.get('docs/deck.pptx')).text).toContain('[slide 1]\n\nRoadmap 2026');
    expect((await docs.get('docs/budget.xlsx')).text).toContain('[sheet 2: Contacts]');
  });

  it('keeps kinds, a partial document with its warning, failed and skipped files with their reasons', async () => {
    const s = await docs.status();
    expect(s.totals).toMatchObject({ documents: 5, failed: 1, skipped: 1, kinds: { pdf: 1, pptx: 1, xlsx: 1, markdown: 1, epub: 1 } });
    expect(await problemOf('broken/truncated.pdf')).toMatchObject({ status: 'failed', reason: expect.stringMatching(/not a readable PDF/) });
    expect(await problemOf('broken/legacy.doc')).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/^unsupported format: Word 97-2003/) });
    expect(await problemOf('broken/missing-chapter.epub')).toMatchObject({ status: 'partial', reason: expect.stringMatching(/chapter 2 .* missing/) });
    expect((await top('oranges mainland')).path).toBe('broken/missing-chapter.epub'); // its readable part
    expect((await docs.failures()).map((f) => f.path)).toEqual(['broken/truncated.pdf']);
    expect((await troveErrorAsync(() => docs.get('docs/broken/truncated.pdf'))).message).toMatch(/was not indexed: .*not a readable PDF/);
    expect((await docs.search({ query: 'albatross', kinds: ['pptx'] })).results).toEqual([]);
    expect((await docs.search({ query: 'albatross', kinds: ['pdf'] })).results.map((h) => h.path)).toEqual(['report.pdf']);
    expect((await troveErrorAsync(() => docs.search({ query: 'moraine', kinds: ['pfd'] }))).message).toMatch(/unknown kind "pfd"/);
  });
});
