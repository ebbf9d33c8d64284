// Writes one index batch on PostgreSQL inside the caller's transaction (a claimed batch's): the
// documents, contents and chunks of every write, then the keyword rows of the batch at once. A run
// of consecutive plain index writes (no attachments) goes in three statements for all of them, in
// order, so ids come out as one statement per document would give them.
// Moves and removals are conditional on the row still being where the engine saw it, so a host
// that lost a race to another changes nothing and says so (the job stays queued).
import type pg from 'pg';
import type { ChunkWrite, FtsRow } from '../chunks.js';
import type { DocumentWrite } from '../documents.js';
import type { OcrWrite } from '../ocr.js';
import type { AttachmentWrite, IndexBatch } from '../storage.js';
import type { KeywordRow, PostgresKeywordIndex } from './keyword-index.js';
import { keywordDocument, type KeywordDocument } from './keyword-text.js';
import { timeSlice } from '../../time-slice.js';
import { writeOcrRows } from './ocr.js';
import { retireVectors } from './vectors.js';

/** A batch's keyword terms made ahead of its transaction (stageIndexBatch), by chunk. */
export type StagedTerms = ReadonlyMap<ChunkWrite, KeywordDocument>;

export async function applyIndexBatch(client: pg.PoolClient, keyword: PostgresKeywordIndex, batch: IndexBatch, staged?: StagedTerms): Promise<boolean[]> {
  const applied: boolean[] = [];
  const fts: KeywordRow[] = [];
  // documents' OCR state (store/ocr.ts): written with the batch, dropped where a document no longer has pages to read
  const ocr: { documentId: number; ocr: OcrWrite }[] = [];
  const noOcr: number[] = [];
  const ocrOf = (w: IndexOp, id: number): void => {
    if (w.ocr) ocr.push({ documentId: id, ocr: w.ocr });
    else if (w.existingId !== undefined) noOcr.push(id);
  };
  let run: IndexOp[] = [];
  const flush = async (): Promise<void> => {
    if (!run.length) return;
    const written = await writeDocuments(client, run, batch.at, staged);
    fts.push(...written.fts);
    run.forEach((w, i) => ocrOf(w, written.ids[i]!));
    for (const _ of run) applied.push(true);
    run = [];
  };
  for (const w of batch.writes) {
    if (w.op === 'index' && !w.attachments) {
      run.push(w);
      continue;
    }
    await flush();
    switch (w.op) {
      case 'remove': {
        const r = await client.query('DELETE FROM documents WHERE id = $1 AND path = $2 AND collection_id = $3', [w.documentId, w.path, batch.collectionId]);
        applied.push((r.rowCount ?? 0) > 0);
        break;
      }
      case 'touch': {
        const r = await client.query('UPDATE documents SET size = $1, mtime_ms = $2 WHERE id = $3', [w.size, w.mtimeMs, w.documentId]);
        applied.push((r.rowCount ?? 0) > 0);
        break;
      }
      case 'move': {
        const r = await client.query('UPDATE documents SET path = $1, size = $2, mtime_ms = $3, indexed_at = $4 WHERE id = $5 AND path = $6', [
          w.to,
          w.size,
          w.mtimeMs,
          batch.at,
          w.documentId,
          w.from,
        ]);
        if (r.rowCount) await client.query('UPDATE documents SET path = $1 || substr(path, $2) WHERE parent_id = $3', [w.to, w.from.length + 1, w.documentId]);
        applied.push((r.rowCount ?? 0) > 0);
        break;
      }
      case 'unindexed': {
        const id = await upsertDocument(client, w.document, batch.at);
        if (w.existingId !== undefined) {
          await client.query('DELETE FROM chunks WHERE document_id = $1', [id]);
          await client.query('DELETE FROM contents WHERE document_id = $1', [id]);
          await client.query('DELETE FROM documents WHERE parent_id = $1', [id]);
          noOcr.push(id);
        }
        applied.push(true);
        break;
      }
      case 'index': {
        const id = await upsertDocument(client, w.document, batch.at);
        await client.query('INSERT INTO contents (document_id, text) VALUES ($1, $2) ON CONFLICT (document_id) DO UPDATE SET text = excluded.text', [id, w.text]);
        if (w.existingId !== undefined) {
          await retireVectors(client, [id]);
          await client.query('DELETE FROM chunks WHERE document_id = $1', [id]);
        }
        fts.push(...keywordRows(await insertChunks(client, id, w.chunks)));
        if (w.attachments) await writeAttachments(client, id, w.attachments, batch.at, fts);
        ocrOf(w, id);
        applied.push(true);
        break;
      }
    }
  }
  await flush();
  if (ocr.length || noOcr.length) await writeOcrRows(client, batch.collectionId, ocr, noOcr);
  await keyword.writeRows(fts, client);
  return applied;
}

type IndexOp = Extract<IndexBatch['writes'][number], { op: 'index' }>;

/**
 * Makes the keyword terms of a batch's plainly indexed chunks before its transaction (the claim's
 * stage(): the indexing service does it while the batch before is written, so this CPU work
 * overlaps the server's inserts instead of following them). Attachments' chunks are made in the write.
 */
export async function stageIndexBatch(batch: IndexBatch): Promise<StagedTerms> {
  const staged = new Map<ChunkWrite, KeywordDocument>();
  // the batch before is being written on this thread's connections: its next statement goes between slices
  const pause = timeSlice(STAGE_SLICE_MS);
  for (const w of batch.writes) {
    if (w.op !== 'index' || w.attachments) continue;
    for (const c of w.chunks) if (!staged.has(c)) staged.set(c, keywordDocument(c.ftsTitle, c.ftsHeadings, c.ftsBody));
    await pause();
  }
  return staged;
}

/** How long staging keeps the thread before the write under way gets a turn (a batch's terms take ~45 ms). */
const STAGE_SLICE_MS = 4;

/** Several documents with their texts and chunks: one statement each for the rows, the texts and the chunks (old chunks dropped first). */
async function writeDocuments(client: pg.PoolClient, writes: readonly IndexOp[], at: number, staged?: StagedTerms): Promise<{ fts: KeywordRow[]; ids: number[] }> {
  const d = writes.map((w) => w.document);
  const r = await client.query<{ id: number; path: string }>(
    `INSERT INTO documents (collection_id, path, docid, title, kind, size, mtime_ms, hash, indexed_at, status, error, warning, tags, metadata, parent_id)
     SELECT c, p, di, t, k, s, m, h, $9, st, e, w, tg::jsonb, md::jsonb, pa
       FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::text[],
                   $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::bigint[]) WITH ORDINALITY
            AS x(c, p, di, t, k, s, m, h, st, e, w, tg, md, pa, n)
      ORDER BY n
     ON CONFLICT (collection_id, path) DO UPDATE SET
       title = excluded.title, kind = excluded.kind, size = excluded.size, mtime_ms = excluded.mtime_ms, hash = excluded.hash,
       indexed_at = excluded.indexed_at, status = excluded.status, error = excluded.error, warning = excluded.warning,
       tags = excluded.tags, metadata = excluded.metadata, parent_id = excluded.parent_id
     RETURNING id, path`,
    [
      d.map((x) => x.collectionId),
      d.map((x) => x.path),
      d.map((x) => x.docid),
      d.map((x) => x.title),
      d.map((x) => x.kind),
      d.map((x) => x.size),
      d.map((x) => x.mtimeMs),
      d.map((x) => x.hash),
      at,
      d.map((x) => x.status),
      d.map((x) => x.error),
      d.map((x) => x.warning ?? null),
      d.map((x) => JSON.stringify(x.tags)),
      d.map((x) => JSON.stringify(x.metadata)),
      d.map((x) => x.parentId ?? null),
    ],
  );
  const idOf = new Map(r.rows.map((row) => [row.path, row.id]));
  const ids = d.map((x) => idOf.get(x.path)!);
  const replaced = ids.filter((_, i) => writes[i]!.existingId !== undefined);
  if (replaced.length) {
    await retireVectors(client, replaced);
    await client.query('DELETE FROM chunks WHERE document_id = ANY($1::bigint[])', [replaced]);
  }
  // the texts and the chunks are sent, not awaited: insertChunkRuns makes the keyword rows while the server writes them
  const contents = client.query(
    'INSERT INTO contents (document_id, text) SELECT * FROM unnest($1::bigint[], $2::text[]) ON CONFLICT (document_id) DO UPDATE SET text = excluded.text',
    [ids, writes.map((w) => w.text)],
  );
  const [, fts] = await Promise.all([contents, insertChunkRuns(client, writes.map((w, i) => ({ documentId: ids[i]!, chunks: w.chunks })), staged)]);
  return { fts, ids };
}

/**
 * Several documents' chunks in one statement, in order (ids come out as one statement per document
 * would give them); returns their keyword rows, whose terms are made while the server inserts the chunks.
 */
export async function insertChunkRuns(
  client: pg.PoolClient,
  runs: readonly { documentId: number; chunks: readonly ChunkWrite[] }[],
  staged?: StagedTerms,
): Promise<KeywordRow[]> {
  const chunks = runs.flatMap((r) => r.chunks.map((c) => ({ documentId: r.documentId, c })));
  if (!chunks.length) return [];
  const inserted = client.query<{ id: number; document_id: number; ordinal: number }>(
    `INSERT INTO chunks (document_id, ordinal, char_start, char_end, line_start, line_end, heading_path, page, tokens)
     SELECT d, o, cs, ce, ls, le, hp, pg, tk
       FROM unnest($1::bigint[], $2::int[], $3::int[], $4::int[], $5::int[], $6::int[], $7::text[], $8::int[], $9::int[]) WITH ORDINALITY
            AS x(d, o, cs, ce, ls, le, hp, pg, tk, n)
      ORDER BY n
     RETURNING id, document_id, ordinal`,
    [
      intArray(chunks.map((x) => x.documentId)),
      intArray(chunks.map((x) => x.c.ordinal)),
      intArray(chunks.map((x) => x.c.charStart)),
      intArray(chunks.map((x) => x.c.charEnd)),
      intArray(chunks.map((x) => x.c.lineStart)),
      intArray(chunks.map((x) => x.c.lineEnd)),
      chunks.map((x) => (x.c.headingPath.length ? JSON.stringify(x.c.headingPath) : '')),
      chunks.map((x) => x.c.page ?? null),
      intArray(chunks.map((x) => x.c.tokens)),
    ],
  );
  let docs: KeywordRow['doc'][];
  try {
    docs = chunks.map(({ c }) => staged?.get(c) ?? keywordDocument(c.ftsTitle, c.ftsHeadings, c.ftsBody));
  } catch (err) {
    await inserted.catch(() => undefined); // the statement's own failure, if any, is not left unheard
    throw err;
  }
  const rows = await inserted;
  const chunkId = new Map(rows.rows.map((row) => [`${row.document_id}:${row.ordinal}`, row.id]));
  return chunks.map(({ documentId, c }, i) => ({ id: chunkId.get(`${documentId}:${c.ordinal}`)!, doc: docs[i]! }));
}

/** Integers as an array literal (`{1,2,3}`): joined once instead of pg's escaping of each element as a string (~1,150 a column a batch). */
function intArray(values: readonly number[]): string {
  return `{${values.join(',')}}`;
}

/** Keyword rows made from chunks' FTS columns (where no statement was there to overlap with). */
function keywordRows(rows: readonly FtsRow[]): KeywordRow[] {
  return rows.map((r) => ({ id: r.id, doc: keywordDocument(r.title, r.headings, r.body) }));
}

async function upsertDocument(client: pg.PoolClient, d: DocumentWrite, at: number): Promise<number> {
  const r = await client.query<{ id: number }>(
    `INSERT INTO documents (collection_id, path, docid, title, kind, size, mtime_ms, hash, indexed_at, status, error, warning, tags, metadata, parent_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
     ON CONFLICT (collection_id, path) DO UPDATE SET
       title = excluded.title, kind = excluded.kind, size = excluded.size, mtime_ms = excluded.mtime_ms, hash = excluded.hash,
       indexed_at = excluded.indexed_at, status = excluded.status, error = excluded.error, warning = excluded.warning,
       tags = excluded.tags, metadata = excluded.metadata, parent_id = excluded.parent_id
     RETURNING id`,
    [d.collectionId, d.path, d.docid, d.title, d.kind, d.size, d.mtimeMs, d.hash, at, d.status, d.error, d.warning ?? null, JSON.stringify(d.tags), JSON.stringify(d.metadata), d.parentId ?? null],
  );
  return r.rows[0]!.id;
}

/** One statement per document; returns the keyword rows to write with the batch's. */
export async function insertChunks(client: pg.PoolClient, documentId: number, chunks: readonly ChunkWrite[]): Promise<FtsRow[]> {
  if (!chunks.length) return [];
  const r = await client.query<{ id: number; ordinal: number }>(
    `INSERT INTO chunks (document_id, ordinal, char_start, char_end, line_start, line_end, heading_path, page, tokens)
     SELECT $1, * FROM unnest($2::int[], $3::int[], $4::int[], $5::int[], $6::int[], $7::text[], $8::int[], $9::int[]) RETURNING id, ordinal`,
    [
      documentId,
      chunks.map((c) => c.ordinal),
      chunks.map((c) => c.charStart),
      chunks.map((c) => c.charEnd),
      chunks.map((c) => c.lineStart),
      chunks.map((c) => c.lineEnd),
      chunks.map((c) => (c.headingPath.length ? JSON.stringify(c.headingPath) : '')),
      chunks.map((c) => c.page ?? null),
      chunks.map((c) => c.tokens),
    ],
  );
  const idOf = new Map(r.rows.map((row) => [row.ordinal, row.id]));
  return chunks.map((c) => ({ id: idOf.get(c.ordinal)!, title: c.ftsTitle, headings: c.ftsHeadings, body: c.ftsBody }));
}

/** The file's documents of its own: written with it as parent (chunks replaced); the children it no longer has dropped. */
async function writeAttachments(client: pg.PoolClient, parentId: number, attachments: readonly AttachmentWrite[], at: number, fts: KeywordRow[]): Promise<void> {
  for (const a of attachments) {
    const id = await upsertDocument(client, { ...a.document, parentId }, at);
    await retireVectors(client, [id]);
    await client.query('DELETE FROM chunks WHERE document_id = $1', [id]);
    if (a.text === null) {
      await client.query('DELETE FROM contents WHERE document_id = $1', [id]);
      continue;
    }
    await client.query('INSERT INTO contents (document_id, text) VALUES ($1, $2) ON CONFLICT (document_id) DO UPDATE SET text = excluded.text', [id, a.text]);
    fts.push(...keywordRows(await insertChunks(client, id, a.chunks)));
  }
  await client.query('DELETE FROM documents WHERE parent_id = $1 AND NOT (path = ANY($2::text[]))', [parentId, attachments.map((a) => a.document.path)]);
}
