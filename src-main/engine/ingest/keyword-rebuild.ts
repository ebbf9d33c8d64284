// Keyword rows for a document copied into another backend (store/migrate/to-postgres.ts). FTS5 is contentless, so the index form of a chunk's
// title, headings and body cannot be read back from SQLite; it is made again from the stored text.
// For text formats (Markdown, plain text, code…) the indexer's own preparation is run over the
// stored text, and its rows are used when it cuts the same chunks as were stored (so a migrated
// index ranks exactly as a fresh one); otherwise — documents parsed from binary formats, or other
// chunking settings — the rows are made from the stored title, heading path and chunk text (only
// headings that start inside a chunk lose their heading weight). Memory entries' rows are made
// from their stored title and chunk text, exactly as memory writes them.
import { toIndexText } from '../text/cjk.js';
import type { FtsRow } from '../store/chunks.js';
import type { StoredChunk } from '../store/migrate/to-postgres.js';
import { DEFAULT_CHUNKING, type ChunkOptions } from './chunker.js';
import { PAGE_MARKER_LINE } from './parsers/types.js';
import { isBinaryDocument, prepareDocument } from './prepare.js';

export function rebuildKeywordRows(
  doc: { path: string; title: string; kind: string },
  text: string,
  chunks: readonly StoredChunk[],
  chunking: ChunkOptions = DEFAULT_CHUNKING,
): { rows: FtsRow[]; exact: boolean } {
  if (!isBinaryDocument(doc.path) && doc.kind !== 'memory') {
    const prepared = prepareDocument(Buffer.from(text, 'utf8'), doc.path, chunking);
    // the same title, chunks and heading paths as stored: the same preparation made them (HTML's stored text, for one, is not its source)
    if (
      prepared.ok &&
      prepared.title === doc.title &&
      prepared.chunks.length === chunks.length &&
      prepared.chunks.every((c, i) => {
        const s = chunks[i]!;
        return c.charStart === s.charStart && c.charEnd === s.charEnd && c.ordinal === s.ordinal && c.headingPath.join('\n') === s.headingPath.join('\n');
      })
    ) {
      return { rows: prepared.chunks.map((c, i) => ({ id: chunks[i]!.id, title: c.ftsTitle, headings: c.ftsHeadings, body: c.ftsBody })), exact: true };
    }
  }
  const title = toIndexText(doc.title);
  // a memory entry's rows are exactly these (memory/entry-text.ts: its title, no headings, the chunk's text as written)
  const memory = doc.kind === 'memory';
  return {
    rows: chunks.map((c) => ({
      id: c.id,
      title,
      headings: toIndexText(c.headingPath.join(' \n ')),
      body: toIndexText(memory ? text.slice(c.charStart, c.charEnd) : text.slice(c.charStart, c.charEnd).replace(PAGE_MARKER_LINE, '')),
    })),
    exact: memory,
  };
}
