// The collections table: named folders the user asked us to index, and the engine's own
// collections of other kinds (a registered dataset's folder, the agent memory store) that share
// the documents, chunks, keyword index and vectors with them. Every caller that means "the user's
// collections" gets folders only (the default of list() and get()); a room that owns another kind
// asks for it by name. System collections carry names a person cannot give (validateName refuses
// a leading '~'), so they never clash with a folder's.
import type { Db } from './database.js';

/** folder: a folder a person added; dataset: a registered dataset's documents; memory: the agent memory store. */
export type CollectionKind = 'folder' | 'dataset' | 'memory';

const FOLDERS: readonly CollectionKind[] = ['folder'];
export const ALL_KINDS: readonly CollectionKind[] = ['folder', 'dataset', 'memory'];

/** Kinds backed by a folder on disk, which the job runner scans and watches (memory is not). */
export const FILE_BACKED: readonly CollectionKind[] = ['folder', 'dataset'];

export interface CollectionRow {
  id: number;
  name: string;
  kind: CollectionKind;
  root: string;
  include: string[];
  exclude: string[];
  context: string;
  createdAt: number;
  updatedAt: number;
  lastIndexedAt: number | null;
  /** Secret redaction for this collection: null follows the Settings switch. */
  redactSecrets: boolean | null;
  /** The languages OCR reads this collection's scans in (Tesseract codes); null: English. */
  ocrLanguages: string[] | null;
}

interface RawCollection {
  id: number;
  name: string;
  kind: CollectionKind;
  root: string;
  include_globs: string;
  exclude_globs: string;
  context: string;
  created_at: number;
  updated_at: number;
  last_indexed_at: number | null;
  redact_secrets: number | null;
  ocr_languages: string | null;
}

function fromRaw(r: RawCollection): CollectionRow {
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    root: r.root,
    include: JSON.parse(r.include_globs) as string[],
    exclude: JSON.parse(r.exclude_globs) as string[],
    context: r.context,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    lastIndexedAt: r.last_indexed_at,
    redactSecrets: r.redact_secrets === null ? null : r.redact_secrets === 1,
    ocrLanguages: r.ocr_languages ? (JSON.parse(r.ocr_languages) as string[]) : null,
  };
}

export class CollectionStore {
  private readonly byName;
  private readonly byIdStmt;
  private readonly all;
  private readonly insertStmt;
  private readonly renameStmt;
  private readonly contextStmt;
  private readonly deleteStmt;
  private readonly indexedStmt;
  private readonly redactionStmt;
  private readonly ocrLanguagesStmt;

  constructor(db: Db) {
    this.byName = db.prepare<[string], RawCollection>('SELECT * FROM collections WHERE name = ?');
    this.byIdStmt = db.prepare<[number], RawCollection>('SELECT * FROM collections WHERE id = ?');
    this.all = db.prepare<[], RawCollection>('SELECT * FROM collections ORDER BY name');
    this.insertStmt = db.prepare(
      `INSERT INTO collections (name, kind, root, include_globs, exclude_globs, context, ocr_languages, created_at, updated_at)
       VALUES (@name, @kind, @root, @include, @exclude, @context, @ocrLanguages, @now, @now)`,
    );
    this.renameStmt = db.prepare('UPDATE collections SET name = ?, updated_at = ? WHERE id = ?');
    this.contextStmt = db.prepare('UPDATE collections SET context = ?, updated_at = ? WHERE id = ?');
    this.deleteStmt = db.prepare('DELETE FROM collections WHERE id = ?');
    this.indexedStmt = db.prepare('UPDATE collections SET last_indexed_at = ? WHERE id = ?');
    this.redactionStmt = db.prepare('UPDATE collections SET redact_secrets = ?, updated_at = ? WHERE id = ?');
    this.ocrLanguagesStmt = db.prepare('UPDATE collections SET ocr_languages = ?, updated_at = ? WHERE id = ?');
  }

  /** The collection of one of these kinds (default: folders) with this name. */
  get(name: string, kinds: readonly CollectionKind[] = FOLDERS): CollectionRow | undefined {
    const r = this.byName.get(name);
    return r && kinds.includes(r.kind) ? fromRaw(r) : undefined;
  }

  /** A name is taken by a collection of any kind. */
  nameTaken(name: string): boolean {
    return this.byName.get(name) !== undefined;
  }

  byId(id: number): CollectionRow | undefined {
    const r = this.byIdStmt.get(id);
    return r && fromRaw(r);
  }

  /** Every collection of these kinds (default: the user's folders), by name. */
  list(kinds: readonly CollectionKind[] = FOLDERS): CollectionRow[] {
    return this.all.all().filter((r) => kinds.includes(r.kind)).map(fromRaw);
  }

  insert(c: { name: string; kind?: CollectionKind; root: string; include: string[]; exclude: string[]; context: string; ocrLanguages?: string[] | null }): CollectionRow {
    const kind = c.kind ?? 'folder';
    this.insertStmt.run({
      name: c.name,
      kind,
      root: c.root,
      include: JSON.stringify(c.include),
      exclude: JSON.stringify(c.exclude),
      context: c.context,
      ocrLanguages: c.ocrLanguages?.length ? JSON.stringify(c.ocrLanguages) : null,
      now: Date.now(),
    });
    return this.get(c.name, [kind])!;
  }

  rename(id: number, name: string): void {
    this.renameStmt.run(name, Date.now(), id);
  }

  setContext(id: number, context: string): void {
    this.contextStmt.run(context, Date.now(), id);
  }

  setRedactSecrets(id: number, value: boolean | null): void {
    this.redactionStmt.run(value === null ? null : value ? 1 : 0, Date.now(), id);
  }

  setOcrLanguages(id: number, languages: string[] | null): void {
    this.ocrLanguagesStmt.run(languages?.length ? JSON.stringify(languages) : null, Date.now(), id);
  }

  markIndexed(id: number, at: number): void {
    this.indexedStmt.run(at, id);
  }

  /** Drops the collection and, by cascade, its documents and chunks (FTS rows: ChunkStore first). */
  delete(id: number): void {
    this.deleteStmt.run(id);
  }
}
