// Read-only counts for status on PostgreSQL (store/stats.ts): documents by status and kind, chunks
// per collection, and a collection's problems (failed, indexed in part, skipped).
import type { CollectionCounts, FailureRow } from '../stats.js';
import type { StatsRepository } from '../storage.js';
import type { PostgresDatabase } from './connection.js';

export class PostgresStats implements StatsRepository {
  constructor(private readonly db: PostgresDatabase) {}

  async counts(): Promise<Map<number, CollectionCounts>> {
    const [docs, kinds, chunks] = await Promise.all([
      this.db.query<{ collection_id: number; indexed: number; skipped: number; failed: number }>(
        `SELECT collection_id, count(*) FILTER (WHERE status = 'indexed') AS indexed, count(*) FILTER (WHERE status = 'skipped') AS skipped,
                count(*) FILTER (WHERE status = 'failed') AS failed FROM documents GROUP BY collection_id`,
      ),
      this.db.query<{ collection_id: number; kind: string; n: number }>(
        "SELECT collection_id, kind, count(*) AS n FROM documents WHERE status = 'indexed' GROUP BY collection_id, kind",
      ),
      this.db.query<{ collection_id: number; n: number }>(
        'SELECT d.collection_id, count(*) AS n FROM chunks c JOIN documents d ON d.id = c.document_id GROUP BY d.collection_id',
      ),
    ]);
    const out = new Map<number, CollectionCounts>();
    for (const r of docs) out.set(r.collection_id, { collectionId: r.collection_id, documents: r.indexed, skipped: r.skipped, failed: r.failed, chunks: 0, kinds: {} });
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

  async kindExists(kind: string): Promise<boolean> {
    return !!(await this.db.one('SELECT 1 FROM documents WHERE kind = $1 LIMIT 1', [kind]));
  }

  /** Failed first, then documents indexed only in part, then skipped ones. */
  async failures(collectionId: number, limit: number): Promise<FailureRow[]> {
    const rows = await this.db.query<{ path: string; status: 'skipped' | 'failed' | 'partial'; error: string | null }>(
      `SELECT path, CASE WHEN status = 'indexed' THEN 'partial' ELSE status END AS status,
              CASE WHEN status = 'indexed' THEN warning ELSE error END AS error
         FROM documents WHERE collection_id = $1 AND (status <> 'indexed' OR warning IS NOT NULL)
        ORDER BY CASE status WHEN 'failed' THEN 0 WHEN 'indexed' THEN 1 ELSE 2 END, path COLLATE "C" LIMIT $2`,
      [collectionId, limit],
    );
    return rows.map((r) => ({ path: r.path, status: r.status, reason: r.error ?? r.status }));
  }

  async chunkCount(collectionId: number): Promise<number> {
    return (await this.db.one<{ n: number }>('SELECT count(*) AS n FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.collection_id = $1', [collectionId]))?.n ?? 0;
  }

  async databaseBytes(): Promise<number> {
    return (await this.db.one<{ n: number }>('SELECT pg_database_size(current_database()) AS n'))?.n ?? 0;
  }
}
