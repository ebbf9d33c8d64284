// A real FTS5 index with Trove's schema (in memory) for query-building tests: rows are written
// the way the indexer writes them (CJK runs as bigrams), queries run with MATCH as lexical search does.
import { toIndexText } from '../../src-main/engine/text/cjk.js';
import { parseQuery, termExpression, type QuerySyntax } from '../../src-main/engine/search/query.js';
import { openDatabase, type Db } from '../../src-main/engine/store/database.js';

export interface FtsFixture {
  db: Db;
  /** rowids matching an FTS5 expression, in rank order. */
  match(expression: string): number[];
  /** Every expression lexical search may run for this text and syntax (AND first, then OR for terms). */
  expressions(text: string, syntax: QuerySyntax): string[];
  /** rowids found by the loosest expression for this text. */
  search(text: string, syntax: QuerySyntax): number[];
  close(): void;
}

export function ftsFixture(rows: { title?: string; headings?: string; body: string }[]): FtsFixture {
  const db = openDatabase(':memory:');
  const insert = db.prepare('INSERT INTO chunks_fts (rowid, title, headings, body) VALUES (?, ?, ?, ?)');
  rows.forEach((r, i) => insert.run(i + 1, toIndexText(r.title ?? ''), toIndexText(r.headings ?? ''), toIndexText(r.body)));
  const stmt = db.prepare<[string], { rowid: number }>('SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank');
  const match = (expression: string) => stmt.all(expression).map((r) => r.rowid);
  const expressions = (text: string, syntax: QuerySyntax) => {
    const parsed = parseQuery(text, syntax);
    if (parsed.kind === 'expression') return [parsed.expression];
    const parts = parsed.terms.map(termExpression);
    return [parts.join(' AND '), parts.join(' OR ')];
  };
  return {
    db,
    match,
    expressions,
    search: (text, syntax) => match(expressions(text, syntax).at(-1)!),
    close: () => db.close(),
  };
}
