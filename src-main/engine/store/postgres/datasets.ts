// dataset_folders and dataset_checks on PostgreSQL (store/dataset-folders.ts): folders kept in
// the order they were added (a change is NOTIFYed, so every host's registry looks again); a FAISS
// dataset's last model check per key.
import type { DatasetTables } from '../storage.js';
import type { PostgresDatabase } from './connection.js';

export class PostgresDatasetTables implements DatasetTables {
  /** `changed`: tells the other hosts (NOTIFY) that the added folders changed, so their registries look again. */
  constructor(
    private readonly db: PostgresDatabase,
    private readonly changed: () => Promise<void> = async () => undefined,
  ) {}

  async folders(): Promise<string[]> {
    return (await this.db.query<{ path: string }>('SELECT path FROM dataset_folders ORDER BY added_at, id')).map((r) => r.path);
  }

  async addFolder(folder: string): Promise<boolean> {
    const r = await this.db.pool.query('INSERT INTO dataset_folders (path, added_at) VALUES ($1, $2) ON CONFLICT DO NOTHING', [folder, Date.now()]);
    if (r.rowCount) await this.changed();
    return (r.rowCount ?? 0) > 0;
  }

  async removeFolder(folder: string): Promise<boolean> {
    const r = await this.db.pool.query('DELETE FROM dataset_folders WHERE path = $1', [folder]);
    if (r.rowCount) await this.changed();
    return (r.rowCount ?? 0) > 0;
  }

  async check(key: string): Promise<number | undefined> {
    return (await this.db.one<{ best_cosine: number }>('SELECT best_cosine FROM dataset_checks WHERE key = $1', [key]))?.best_cosine;
  }

  async putCheck(key: string, bestCosine: number): Promise<void> {
    await this.db.query(
      'INSERT INTO dataset_checks (key, best_cosine, checked_at) VALUES ($1, $2, $3) ON CONFLICT (key) DO UPDATE SET best_cosine = excluded.best_cosine, checked_at = excluded.checked_at',
      [key, bestCosine, Date.now()],
    );
  }
}
