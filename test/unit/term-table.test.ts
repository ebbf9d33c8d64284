// PostgreSQL's keyword terms as ids (store/postgres/term-table.ts): a chunk's tsvector, length and
// term counts are the ones the tokenizer gives (text/terms.ts), and a batch whose chunks were made
// with two tables (a fresh one is started after MAX_WORDS words) groups its postings as one table's
// batch would. (That the rows written from them equal INSERT's is postgres-keyword-copy.test.ts's.)
import { describe, expect, it } from 'vitest';
import { batchPostings, keywordRowsCopy, postingsCopy, postingsRows } from '../../src-main/engine/store/postgres/postings.js';
import { TermTable, tsvectorText, type KeywordDocument } from '../../src-main/engine/store/postgres/term-table.js';
import { indexTerm, tokenize } from '../../src-main/engine/text/terms.js';

const CHUNKS: [string, string, string][] = [
  ['Retry Policies', 'Backoff', 'Retrying with backoff and jitter: retries back off. Café naïve 東京の天気'],
  ['', 'Jitter', 'jitter jitter JITTER v2.1 query_plan'],
  ['Naïve café', '', 'the policy retries; 全文检索 retrying'],
];

const doc = (table: TermTable, [t, h, b]: [string, string, string]) =>
  table.document([
    [t, 'A'],
    [h, 'B'],
    [b, 'D'],
  ]);

const termsOf = (d: KeywordDocument) => {
  const out = new Map<string, number>();
  for (let i = 0; i < d.terms.length; i += 2) out.set(d.table.terms[d.terms[i]!]!, d.terms[i + 1]!);
  return out;
};

const text = (parts: Iterable<Buffer>) => Buffer.concat([...parts]).toString('latin1');

describe('TermTable', () => {
  it('counts a chunk’s terms as the tokenizer makes them, weighted by column, with positions by column', () => {
    const table = new TermTable();
    const d = doc(table, CHUNKS[1]!);
    const expected = new Map<string, number>();
    for (const t of tokenize('Jitter')) expected.set(indexTerm(t), (expected.get(indexTerm(t)) ?? 0) + 2);
    for (const t of tokenize(CHUNKS[1]![2])) expected.set(indexTerm(t), (expected.get(indexTerm(t)) ?? 0) + 1);
    expect(termsOf(d)).toEqual(expected);
    expect(d.length).toBe(1 + tokenize(CHUNKS[1]![2]).length);
    // headings' one word at 1 (B), then a gap of 64 before the body's first
    expect(tsvectorText(d.tsv)).toBe("'jitter':1B,66,67,68 'v2':69 '1':70 'queri':71 'plan':72");
  });

  it('groups a batch’s postings alike when its chunks were made with two tables', () => {
    const one = new TermTable();
    const single = CHUNKS.map((c, i) => ({ id: 10 + i, doc: doc(one, c) }));
    const [a, b] = [new TermTable(), new TermTable()];
    b.intern('zzz'); // b's ids differ from a's
    const mixed = CHUNKS.map((c, i) => ({ id: 10 + i, doc: doc(i === 1 ? b : a, c) }));
    expect(mixed[1]!.doc.table).not.toBe(mixed[0]!.doc.table);
    const [s, m] = [batchPostings(single), batchPostings(mixed)];
    expect(m.count).toBe(s.count);
    expect(text(postingsCopy(m, postingsRows(m)))).toBe(text(postingsCopy(s, postingsRows(s))));
    expect(text(keywordRowsCopy(m))).toBe(text(keywordRowsCopy(s)));
    expect(Buffer.concat([...postingsCopy(s, postingsRows(s))]).toString('utf8')).toContain('jitter\t10\t11\t2\t{0,1}\t{1,5}\t{17,8}\n');
  });
});
