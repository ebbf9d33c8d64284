// The documents awaiting OCR on PostgreSQL (store/ocr.ts), shared by every host on the database:
// a host claims documents until a time (one statement, FOR UPDATE SKIP LOCKED: two hosts never
// take the same one; a host that dies loses only time, as embedding claims do), extends the claim
// while a long document is read, and writes each back through the index writer in one
// transaction that first checks the document still has the bytes it read. The rows an index
// write carries are written here too (writeOcrRows, inside the batch's transaction).
import type pg from 'pg';
import { OCR_GAVE_UP, pagesLeft, type OcrClaim, type OcrCounts, type OcrFailureRow, type OcrPageFailure, type OcrWrite } from '../ocr.js';
import type { IndexBatch, OcrRepository } from '../storage.js';
import type { PostgresDatabase } from './connection.js';

interface RawClaim {
  document_id: number;
  collection_id: number;
  path: string;
  hash: string;
  source: 'image' | 'pdf';
  pages: number[];
  failed: OcrPageFailure[];
  attempts: number;
  queued_at: number;
}

/** The OCR rows of a batch's 'index' writes (`rows`: document id and its write's `ocr`); `replaced`: ids whose row may exist and has no `ocr` now. */
export async function writeOcrRows(
  client: pg.PoolClient,
  collectionId: number,
  rows: readonly { documentId: number; ocr: OcrWrite }[],
  replaced: readonly number[],
): Promise<void> {
  if (replaced.length) await client.query('DELETE FROM ocr_documents WHERE document_id = ANY($1::bigint[])', [replaced]);
  if (!rows.length) return;
  await client.query(
    `INSERT INTO ocr_documents (document_id, collection_id, hash, source, pages, pages_total, pages_done, pages_failed, pages_left, failed, languages, queued_at, claimed_until)
     SELECT d, $1, h, s, p::jsonb, t, dn, fc, l, f::jsonb, lg, q, cu
       FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::int[], $7::int[], $8::int[], $9::int[], $10::text[], $11::text[], $12::bigint[], $13::bigint[])
            AS x(d, h, s, p, t, dn, fc, l, f, lg, q, cu)
     ON CONFLICT (document_id) DO UPDATE SET
       collection_id = excluded.collection_id, hash = excluded.hash, source = excluded.source, pages = excluded.pages,
       pages_total = excluded.pages_total, pages_done = excluded.pages_done, pages_failed = excluded.pages_failed,
       pages_left = excluded.pages_left, failed = excluded.failed, languages = excluded.languages, queued_at = excluded.queued_at,
       attempts = 0, next_at = 0, last_error = NULL, claimed_until = excluded.claimed_until`,
    [
      collectionId,
      rows.map((r) => r.documentId),
      rows.map((r) => r.ocr.hash),
      rows.map((r) => r.ocr.source),
      rows.map((r) => JSON.stringify(r.ocr.pages)),
      rows.map((r) => r.ocr.pages.length),
      rows.map((r) => r.ocr.done),
      rows.map((r) => r.ocr.failed.length),
      rows.map((r) => pagesLeft(r.ocr)),
      rows.map((r) => JSON.stringify(r.ocr.failed)),
      rows.map((r) => r.ocr.languages),
      rows.map((r) => r.ocr.queuedAt),
      rows.map((r) => r.ocr.claimedUntil ?? 0),
    ],
  );
}

export class PostgresOcr implements OcrRepository {
  constructor(
    private readonly db: PostgresDatabase,
    /** The index writer (postgres/index-writer.ts) through a transaction's connection. */
    private readonly writeBatch: (client: pg.PoolClient, batch: IndexBatch) => Promise<boolean[]>,
    private readonly notify: (collectionId: number) => Promise<void>,
  ) {}

  async claim(collectionId: number, limit: number, now: number, until: number): Promise<OcrClaim[]> {
    const rows = await this.db.query<RawClaim>(
      `WITH due AS (
         SELECT document_id FROM ocr_documents
          WHERE collection_id = $1 AND pages_left > 0 AND next_at <= $2 AND claimed_until <= $2
          ORDER BY queued_at DESC, document_id LIMIT $3 FOR UPDATE SKIP LOCKED)
       UPDATE ocr_documents o SET claimed_until = $4 FROM due, documents d
        WHERE o.document_id = due.document_id AND d.id = o.document_id
       RETURNING o.document_id, o.collection_id, d.path, o.hash, o.source, o.pages, o.failed, o.attempts, o.queued_at`,
      [collectionId, now, limit, until],
    );
    return rows.sort((a, b) => b.queued_at - a.queued_at || a.document_id - b.document_id).map((r) => ({
      documentId: r.document_id,
      collectionId: r.collection_id,
      path: r.path,
      hash: r.hash,
      source: r.source,
      pages: r.pages,
      failed: r.failed,
      attempts: r.attempts,
      queuedAt: r.queued_at,
    }));
  }

  async extend(documentIds: readonly number[], until: number): Promise<void> {
    if (documentIds.length) await this.db.query('UPDATE ocr_documents SET claimed_until = $2 WHERE document_id = ANY($1::bigint[])', [documentIds, until]);
  }

  async release(documentIds: readonly number[]): Promise<void> {
    if (documentIds.length) await this.db.query('UPDATE ocr_documents SET claimed_until = 0 WHERE document_id = ANY($1::bigint[])', [documentIds]);
  }

  async complete(documentId: number, hash: string, batch: IndexBatch): Promise<boolean> {
    const written = await this.db.transaction(async (client) => {
      // the document row locked: a batch re-indexing it meanwhile waits, and then replaces what this wrote
      const r = await client.query<{ hash: string | null }>('SELECT hash FROM documents WHERE id = $1 FOR UPDATE', [documentId]);
      if (r.rows[0]?.hash !== hash) return false;
      await this.writeBatch(client, batch);
      return true;
    });
    if (written) await this.notify(batch.collectionId);
    return written;
  }

  async defer(documentId: number, attempts: number, nextAt: number, error: string | null): Promise<void> {
    await this.db.query('UPDATE ocr_documents SET attempts = $2, next_at = $3, last_error = $4, claimed_until = 0 WHERE document_id = $1', [documentId, attempts, nextAt, error]);
  }

  async makeDue(collectionId: number): Promise<void> {
    await this.db.query('UPDATE ocr_documents SET next_at = 0, attempts = 0 WHERE collection_id = $1 AND pages_left > 0 AND next_at > 0', [collectionId]);
  }

  async restart(collectionId: number): Promise<void> {
    await this.db.query(
      `UPDATE ocr_documents SET pages_done = 0, pages_failed = 0, failed = '[]', pages_left = pages_total, attempts = 0, next_at = 0, last_error = NULL
        WHERE collection_id = $1`,
      [collectionId],
    );
    await this.notify(collectionId);
  }

  async counts(): Promise<Map<number, OcrCounts>> {
    const rows = await this.db.query<{ collection_id: number; documents: number; pages: number; done: number; failed: number; remaining: number; pending: number; deferred: number }>(
      `SELECT collection_id, count(*) AS documents, sum(pages_total) AS pages, sum(pages_done) AS done, sum(pages_failed) AS failed,
              sum(pages_left) AS remaining, count(*) FILTER (WHERE pages_left > 0) AS pending,
              count(*) FILTER (WHERE pages_left > 0 AND next_at > $1) AS deferred
         FROM ocr_documents GROUP BY collection_id`,
      [Date.now()],
    );
    return new Map(
      rows.map((r) => [
        r.collection_id,
        { documents: r.documents, pages: r.pages, done: r.done, failed: r.failed, left: r.remaining, pendingDocuments: r.pending, deferredDocuments: r.deferred },
      ]),
    );
  }

  async failures(collectionId: number | undefined, limit: number): Promise<OcrFailureRow[]> {
    const rows = await this.db.query<{ collection_id: number; path: string; failed: OcrPageFailure[]; last_error: string | null; attempts: number; next_at: number; pages_left: number }>(
      `SELECT o.collection_id, d.path, o.failed, o.last_error, o.attempts, o.next_at, o.pages_left
         FROM ocr_documents o JOIN documents d ON d.id = o.document_id
        WHERE ($1::bigint IS NULL OR o.collection_id = $1) AND (o.pages_failed > 0 OR o.last_error IS NOT NULL)
        ORDER BY o.collection_id, d.path COLLATE "C" LIMIT $2`,
      [collectionId ?? null, limit],
    );
    return rows.map((r) => ({
      collectionId: r.collection_id,
      path: r.path,
      failed: r.failed,
      error: r.last_error,
      attempts: r.attempts,
      nextAt: r.pages_left > 0 && r.last_error !== null && r.next_at < OCR_GAVE_UP ? r.next_at : null,
    }));
  }
}
