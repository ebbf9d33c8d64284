// Read-only counts for status: documents, chunks and failures per collection.
import type { Db } from './database.js';
import type { FileProblem as FailureRow } from '../types/collections.js';

export type { FailureRow };

export interface CollectionCounts {
  collectionId: number;
  documents: number;
  skipped: number;
  failed: number;
  chunks: number;
}

export class StatsStore {
  private readonly countsStmt;
  private readonly chunksStmt;
  private readonly failuresStmt;

  constructor(db: Db) {
    this.countsStmt = db.prepare<[], { collection_id: number; indexed: number; skipped: number; failed: number }>(
      `SELECT collection_id,
              sum(status = 'indexed') AS indexed, sum(status = 'skipped') AS skipped, sum(status = 'failed') AS failed
         FROM documents GROUP BY collection_id`,
    );
    this.chunksStmt = db.prepare<[], { collection_id: number; n: number }>(
      'SELECT d.collection_id, count(*) AS n FROM chunks c JOIN documents d ON d.id = c.document_id GROUP BY d.collection_id',
    );
    this.failuresStmt = db.prepare<[number, number], { path: string; status: 'skipped' | 'failed'; error: string | null }>(
      `SELECT path, status, error FROM documents WHERE collection_id = ? AND status != 'indexed'
        ORDER BY status DESC, path LIMIT ?`,
    );
  }

  counts(): Map<number, CollectionCounts> {
    const out = new Map<number, CollectionCounts>();
    for (const r of this.countsStmt.all()) {
      out.set(r.collection_id, { collectionId: r.collection_id, documents: r.indexed, skipped: r.skipped, failed: r.failed, chunks: 0 });
    }
    for (const r of this.chunksStmt.all()) {
      const c = out.get(r.collection_id);
      if (c) c.chunks = r.n;
    }
    return out;
  }

  failures(collectionId: number, limit: number): FailureRow[] {
    return this.failuresStmt.all(collectionId, limit).map((r) => ({ path: r.path, status: r.status, reason: r.error ?? r.status }));
  }
}
