// The collections table on PostgreSQL (store/collections.ts's rules: kinds, names compared
// case-insensitively, folders unless a room asks for its own kind). Removing a collection
// cascades to its documents, chunks, keyword rows, vectors and jobs in one statement.
import type { CollectionKind, CollectionRow } from '../collections.js';
import type { CollectionRepository } from '../storage.js';
import type { PostgresDatabase } from './connection.js';

const FOLDERS: readonly CollectionKind[] = ['folder'];

interface RawCollection {
  id: number;
  name: string;
  kind: CollectionKind;
  root: string;
  include_globs: string[];
  exclude_globs: string[];
  context: string;
  created_at: number;
  updated_at: number;
  last_indexed_at: number | null;
  redact_secrets: boolean | null;
  ocr_languages: string[] | null;
}

const fromRaw = (r: RawCollection): CollectionRow => ({
  id: r.id,
  name: r.name,
  kind: r.kind,
  root: r.root,
  include: r.include_globs,
  exclude: r.exclude_globs,
  context: r.context,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  lastIndexedAt: r.last_indexed_at,
  redactSecrets: r.redact_secrets ?? null,
  ocrLanguages: r.ocr_languages?.length ? r.ocr_languages : null,
});

export class PostgresCollections implements CollectionRepository {
  constructor(
    private readonly db: PostgresDatabase,
    private readonly changed: (collectionId: number | null) => Promise<void>,
  ) {}

  async get(name: string, kinds: readonly CollectionKind[] = FOLDERS): Promise<CollectionRow | undefined> {
    const r = await this.db.one<RawCollection>('SELECT * FROM collections WHERE lower(name) = lower($1)', [name]);
    return r && kinds.includes(r.kind) ? fromRaw(r) : undefined;
  }

  async nameTaken(name: string): Promise<boolean> {
    return !!(await this.db.one('SELECT 1 FROM collections WHERE lower(name) = lower($1)', [name]));
  }

  async byId(id: number): Promise<CollectionRow | undefined> {
    const r = await this.db.one<RawCollection>('SELECT * FROM collections WHERE id = $1', [id]);
    return r && fromRaw(r);
  }

  async list(kinds: readonly CollectionKind[] = FOLDERS): Promise<CollectionRow[]> {
    // name order as SQLite's NOCASE column sorts: ASCII case folded, the rest by code point
    const rows = await this.db.query<RawCollection>('SELECT * FROM collections WHERE kind = ANY($1::text[]) ORDER BY lower(name) COLLATE "C", name COLLATE "C"', [kinds]);
    return rows.map(fromRaw);
  }

  async insert(c: { name: string; kind?: CollectionKind; root: string; include: string[]; exclude: string[]; context: string; ocrLanguages?: string[] | null }): Promise<CollectionRow> {
    const now = Date.now();
    const r = await this.db.one<RawCollection>(
      `INSERT INTO collections (name, kind, root, include_globs, exclude_globs, context, ocr_languages, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING *`,
      [c.name, c.kind ?? 'folder', c.root, JSON.stringify(c.include), JSON.stringify(c.exclude), c.context, c.ocrLanguages?.length ? JSON.stringify(c.ocrLanguages) : null, now],
    );
    await this.changed(r!.id);
    return fromRaw(r!);
  }

  async rename(id: number, name: string): Promise<void> {
    await this.db.query('UPDATE collections SET name = $1, updated_at = $2 WHERE id = $3', [name, Date.now(), id]);
    await this.changed(id);
  }

  async setContext(id: number, context: string): Promise<void> {
    await this.db.query('UPDATE collections SET context = $1, updated_at = $2 WHERE id = $3', [context, Date.now(), id]);
    await this.changed(id);
  }

  async setRedactSecrets(id: number, value: boolean | null): Promise<void> {
    await this.db.query('UPDATE collections SET redact_secrets = $1, updated_at = $2 WHERE id = $3', [value, Date.now(), id]);
    await this.changed(id); // every host's redaction cache (SharedIndex) is dropped
  }

  async setOcrLanguages(id: number, languages: string[] | null): Promise<void> {
    await this.db.query('UPDATE collections SET ocr_languages = $1, updated_at = $2 WHERE id = $3', [languages?.length ? JSON.stringify(languages) : null, Date.now(), id]);
    await this.changed(id);
  }

  async markIndexed(id: number, at: number): Promise<void> {
    await this.db.query('UPDATE collections SET last_indexed_at = $1 WHERE id = $2', [at, id]);
    await this.changed(id); // a folder dataset another host indexed becomes Ready on every host
  }

  async remove(id: number): Promise<void> {
    await this.db.transaction(async (c) => {
      await c.query('DELETE FROM job_pauses WHERE collection_id = $1', [id]);
      await c.query('DELETE FROM collections WHERE id = $1', [id]); // cascades: documents → chunks → keyword rows, vectors; jobs
    });
    await this.changed(id);
  }
}
