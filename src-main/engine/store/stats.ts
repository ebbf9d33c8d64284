// Read-only counts for status: documents (per kind), chunks and problems per collection.
import type { Db } from './database.js';
import { readHere, type RowReader } from './row-reader.js';
import type { FileProblem as FailureRow } from '../types/collections.js';

export type { FailureRow };

export interface CollectionCounts {
  collectionId: number;
  documents: number;
  skipped: number;
  failed: number;
  chunks: number;
  kinds: Record<string, number>;
}

export class StatsStore {
  private readonly countsStmt;
  private readonly chunksStmt;
  private readonly failuresStmt;
  private readonly kindsStmt;
  private readonly kindExistsStmt;
  private readonly chunkCountStmt;

  constructor(db: Db) {
    this.countsStmt = db.prepare<[], { collection_id: number; indexed: number; skipped: number; failed: number }>(
      `SELECT collection_id,
              sum(status = 'indexed') AS indexed, sum(status = 'skipped') AS skipped, sum(status = 'failed') AS failed
         FROM documents GROUP BY collection_id`,
    );
    this.chunksStmt = db.prepare<[], { collection_id: number; n: number }>(
      'SELECT d.collection_id, count(*) AS n FROM chunks c JOIN documents d ON d.id = c.document_id GROUP BY d.collection_id',
    );
    // failed first, then documents indexed only in part, then skipped ones
    this.failuresStmt = db.prepare<[number, number], { path: string; status: 'skipped' | 'failed' | 'partial'; error: string | null }>(
      `SELECT path, CASE WHEN status = 'indexed' THEN 'partial' ELSE status END AS status,
              CASE WHEN status = 'indexed' THEN warning ELSE error END AS error
         FROM documents WHERE collection_id = ? AND (status != 'indexed' OR warning IS NOT NULL)
        ORDER BY CASE status WHEN 'failed' THEN 0 WHEN 'indexed' THEN 1 ELSE 2 END, path LIMIT ?`,
    );
    this.chunkCountStmt = db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.collection_id = ?');
    this.kindExistsStmt = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM documents WHERE kind = ? LIMIT 1');
    this.kindsStmt = db.prepare<[], { collection_id: number; kind: string; n: number }>(
      "SELECT collection_id, kind, count(*) AS n FROM documents WHERE status = 'indexed' GROUP BY collection_id, kind",
    );
  }

  /** Three statements, read side by side: during indexing they may count a batch apart, as they always could between calls. */
  async counts(read: RowReader = readHere): Promise<Map<number, CollectionCounts>> {
    type Counts = ReturnType<typeof this.countsStmt.all>;
    type Kinds = ReturnType<typeof this.kindsStmt.all>;
    type Chunks = ReturnType<typeof this.chunksStmt.all>;
    const [counts, kinds, chunks] = await Promise.all([read<Counts>(this.countsStmt, []), read<Kinds>(this.kindsStmt, []), read<Chunks>(this.chunksStmt, [])]);
    const out = new Map<number, CollectionCounts>();
    for (const r of counts) {
      out.set(r.collection_id, { collectionId: r.collection_id, documents: r.indexed, skipped: r.skipped, failed: r.failed, chunks: 0, kinds: {} });
    }
    for (const r of kinds) {
      const c = out.get(r.collection_id);
      if (c) c.kinds[r.kind] = r.n;
    }
    for (const r of chunks) {
      const c = out.get(r.collection_id);
      if (c) c.chunks = r.n;
    }
    return out;
  }

  /** Some document (of any collection kind) is of this kind. */
  kindExists(kind: string): boolean {
    return this.kindExistsStmt.get(kind) !== undefined;
  }

  async chunkCount(collectionId: number, read: RowReader = readHere): Promise<number> {
    return (await read<{ n: number }[]>(this.chunkCountStmt, [collectionId]))[0]!.n;
  }

  failures(collectionId: number, limit: number): FailureRow[] {
    return this.failuresStmt.all(collectionId, limit).map((r) => ({ path: r.path, status: r.status, reason: r.error ?? r.status }));
  }
}
