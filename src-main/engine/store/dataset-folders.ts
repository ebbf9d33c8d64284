// The dataset_folders table: folders a person added to look for dataset manifests in, kept in the
// order they were added (discovery reads them in that order, so the first of two manifests
// claiming one id keeps it); and dataset_checks: how well a FAISS index's vectors matched its
// model when last checked (datasets/faiss-dataset.ts).
import type { Db } from './database.js';

export class DatasetFolderStore {
  private readonly allStmt;
  private readonly insertStmt;
  private readonly deleteStmt;

  constructor(db: Db) {
    this.allStmt = db.prepare<[], { path: string }>('SELECT path FROM dataset_folders ORDER BY added_at, rowid');
    this.insertStmt = db.prepare('INSERT OR IGNORE INTO dataset_folders (path, added_at) VALUES (?, ?)');
    this.deleteStmt = db.prepare('DELETE FROM dataset_folders WHERE path = ?');
  }

  list(): string[] {
    return this.allStmt.all().map((r) => r.path);
  }

  /** false when it was already there. */
  add(folder: string): boolean {
    return this.insertStmt.run(folder, Date.now()).changes > 0;
  }

  /** false when it was not there. */
  remove(folder: string): boolean {
    return this.deleteStmt.run(folder).changes > 0;
  }
}

export class DatasetCheckStore {
  private readonly getStmt;
  private readonly putStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string], { best_cosine: number }>('SELECT best_cosine FROM dataset_checks WHERE key = ?');
    this.putStmt = db.prepare('INSERT OR REPLACE INTO dataset_checks (key, best_cosine, checked_at) VALUES (?, ?, ?)');
  }

  get(key: string): number | undefined {
    return this.getStmt.get(key)?.best_cosine;
  }

  put(key: string, bestCosine: number): void {
    this.putStmt.run(key, bestCosine, Date.now());
  }
}
