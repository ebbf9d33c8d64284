// The documents awaiting OCR on SQLite (store/ocr.ts): rows written by the index write (here the
// statements applyIndexBatch runs for a write's `ocr`) and the OCR stage's reads and writes. One
// host works a profile's file, so a claim holds nothing: what the stage reads next leaves the
// queue when it is written.
import type { ChunkStore } from '../chunks.js';
import type { Db } from '../database.js';
import type { DocumentStore } from '../documents.js';
import { OCR_GAVE_UP, pagesLeft, type OcrClaim, type OcrCounts, type OcrFailureRow, type OcrPageFailure, type OcrWrite } from '../ocr.js';
import type { IndexBatch, OcrRepository } from '../storage.js';
import { applyIndexBatch } from './index-writer.js';

interface RawClaim {
  document_id: number;
  collection_id: number;
  path: string;
  hash: string;
  source: 'image' | 'pdf';
  pages: string;
  failed: string;
  attempts: number;
  queued_at: number;
}

/** The statements an index write runs for a document's OCR state (sqlite/index-writer.ts). */
export class OcrRows {
  private readonly upsertStmt;
  private readonly deleteStmt;

  constructor(db: Db) {
    this.upsertStmt = db.prepare(
      `INSERT INTO ocr_documents (document_id, collection_id, hash, source, pages, pages_total, pages_done, pages_failed, pages_left, failed, languages, queued_at, claimed_until)
       VALUES (@documentId, @collectionId, @hash, @source, @pages, @total, @done, @failedCount, @left, @failed, @languages, @queuedAt, @claimedUntil)
       ON CONFLICT (document_id) DO UPDATE SET
         collection_id = excluded.collection_id, hash = excluded.hash, source = excluded.source, pages = excluded.pages,
         pages_total = excluded.pages_total, pages_done = excluded.pages_done, pages_failed = excluded.pages_failed,
         pages_left = excluded.pages_left, failed = excluded.failed, languages = excluded.languages, queued_at = excluded.queued_at,
         attempts = 0, next_at = 0, last_error = NULL, claimed_until = excluded.claimed_until`,
    );
    this.deleteStmt = db.prepare('DELETE FROM ocr_documents WHERE document_id = ?');
  }

  /** The document's OCR state as the write says: recorded, or (none) dropped. `replaced`: the row may exist already. */
  write(documentId: number, collectionId: number, w: OcrWrite | undefined, replaced: boolean): void {
    if (!w) {
      if (replaced) this.deleteStmt.run(documentId);
      return;
    }
    this.upsertStmt.run({
      documentId,
      collectionId,
      hash: w.hash,
      source: w.source,
      pages: JSON.stringify(w.pages),
      total: w.pages.length,
      done: w.done,
      failedCount: w.failed.length,
      left: pagesLeft(w),
      failed: JSON.stringify(w.failed),
      languages: w.languages,
      queuedAt: w.queuedAt,
      claimedUntil: w.claimedUntil ?? 0,
    });
  }

  drop(documentId: number): void {
    this.deleteStmt.run(documentId);
  }
}

export class SqliteOcr implements OcrRepository {
  private readonly claimStmt;
  private readonly hashStmt;
  private readonly deferStmt;
  private readonly makeDueStmt;
  private readonly restartStmt;
  private readonly countsStmt;
  private readonly failuresStmt;

  constructor(
    private readonly db: Db,
    private readonly documents: DocumentStore,
    private readonly chunks: ChunkStore,
    readonly rows: OcrRows,
  ) {
    this.claimStmt = db.prepare<[number, number, number], RawClaim>(
      `SELECT o.document_id, o.collection_id, d.path, o.hash, o.source, o.pages, o.failed, o.attempts, o.queued_at
         FROM ocr_documents o JOIN documents d ON d.id = o.document_id
        WHERE o.collection_id = ? AND o.pages_left > 0 AND o.next_at <= ?
        ORDER BY o.queued_at DESC, o.document_id LIMIT ?`,
    );
    this.hashStmt = db.prepare<[number], { hash: string | null }>('SELECT hash FROM documents WHERE id = ?');
    this.deferStmt = db.prepare('UPDATE ocr_documents SET attempts = ?, next_at = ?, last_error = ? WHERE document_id = ?');
    this.makeDueStmt = db.prepare('UPDATE ocr_documents SET next_at = 0, attempts = 0 WHERE collection_id = ? AND pages_left > 0 AND next_at > 0');
    this.restartStmt = db.prepare(
      `UPDATE ocr_documents SET pages_done = 0, pages_failed = 0, failed = '[]', pages_left = pages_total, attempts = 0, next_at = 0, last_error = NULL
        WHERE collection_id = ?`,
    );
    this.countsStmt = db.prepare<
      [number],
      { collection_id: number; documents: number; pages: number; done: number; failed: number; remaining: number; pending: number; deferred: number }
    >(
      `SELECT collection_id, count(*) AS documents, sum(pages_total) AS pages, sum(pages_done) AS done, sum(pages_failed) AS failed,
              sum(pages_left) AS remaining, sum(pages_left > 0) AS pending, sum(pages_left > 0 AND next_at > ?) AS deferred
         FROM ocr_documents GROUP BY collection_id`,
    );
    this.failuresStmt = db.prepare<
      [number | null, number | null, number],
      { collection_id: number; path: string; failed: string; last_error: string | null; attempts: number; next_at: number; pages_left: number }
    >(
      `SELECT o.collection_id, d.path, o.failed, o.last_error, o.attempts, o.next_at, o.pages_left
         FROM ocr_documents o JOIN documents d ON d.id = o.document_id
        WHERE (? IS NULL OR o.collection_id = ?) AND (o.pages_failed > 0 OR o.last_error IS NOT NULL)
        ORDER BY o.collection_id, d.path LIMIT ?`,
    );
  }

  async claim(collectionId: number, limit: number, now: number): Promise<OcrClaim[]> {
    return this.claimStmt.all(collectionId, now, limit).map(claimFromRaw);
  }

  async extend(): Promise<void> {}

  async release(): Promise<void> {}

  async complete(documentId: number, hash: string, batch: IndexBatch): Promise<boolean> {
    return this.db
      .transaction(() => {
        if (this.hashStmt.get(documentId)?.hash !== hash) return false;
        applyIndexBatch(this.documents, this.chunks, this.rows, batch);
        return true;
      })
      .immediate();
  }

  async defer(documentId: number, attempts: number, nextAt: number, error: string | null): Promise<void> {
    this.deferStmt.run(attempts, nextAt, error, documentId);
  }

  async makeDue(collectionId: number): Promise<void> {
    this.makeDueStmt.run(collectionId);
  }

  async restart(collectionId: number): Promise<void> {
    this.restartStmt.run(collectionId);
  }

  async counts(): Promise<Map<number, OcrCounts>> {
    const out = new Map<number, OcrCounts>();
    for (const r of this.countsStmt.all(Date.now())) {
      out.set(r.collection_id, {
        documents: r.documents,
        pages: r.pages,
        done: r.done,
        failed: r.failed,
        left: r.remaining,
        pendingDocuments: r.pending,
        deferredDocuments: r.deferred,
      });
    }
    return out;
  }

  async failures(collectionId: number | undefined, limit: number): Promise<OcrFailureRow[]> {
    const id = collectionId ?? null;
    return this.failuresStmt.all(id, id, limit).map((r) => ({
      collectionId: r.collection_id,
      path: r.path,
      failed: JSON.parse(r.failed) as OcrPageFailure[],
      error: r.last_error,
      attempts: r.attempts,
      nextAt: r.pages_left > 0 && r.last_error !== null && r.next_at < OCR_GAVE_UP ? r.next_at : null,
    }));
  }
}

function claimFromRaw(r: RawClaim): OcrClaim {
  return {
    documentId: r.document_id,
    collectionId: r.collection_id,
    path: r.path,
    hash: r.hash,
    source: r.source,
    pages: JSON.parse(r.pages) as number[],
    failed: JSON.parse(r.failed) as OcrPageFailure[],
    attempts: r.attempts,
    queuedAt: r.queued_at,
  };
}
