// The user's collections: adding a folder (its checks: collection-input.ts), listing them with their
// counts, renaming, removing (index rows only; files are never touched), context notes and
// per-collection redaction — over the storage interface, so on a shared database every host sees
// the change. The indexing service hears what it must (watch a new folder, forget a removed one).
import fs from 'node:fs';
import path from 'node:path';
import { assertFolder, validateGlobs, validateName } from './collection-input.js';
import { invalidInput, notFound, TroveError } from './errors.js';
import { DEFAULT_EXCLUDE, DEFAULT_INCLUDE } from './ingest/defaults.js';
import type { IndexingService } from './indexing/indexing-service.js';
import { collectionInfo } from './status-report.js';
import type { CollectionRow } from './store/collections.js';
import type { Storage } from './store/storage.js';
import type { AddCollectionInput, CollectionInfo } from './types/index.js';

export class Collections {
  constructor(
    private readonly storage: Storage,
    private readonly indexing: IndexingService,
    /** The index changed here (the engine's caches and the embedding stage hear it). */
    private readonly changed: () => void,
    /** OCR languages checked and installed (ocr/ocr-service.ts ready); the checked codes. */
    private readonly ocrLanguages: (codes: readonly string[]) => Promise<string[]>,
  ) {}

  async add(input: AddCollectionInput): Promise<CollectionInfo> {
    const root = path.resolve(input.root);
    assertFolder(root);
    const name = input.name ?? path.basename(root);
    validateName(name);
    if (await this.storage.collections.get(name)) throw new TroveError('CONFLICT', `a collection named "${name}" already exists`);
    const include = validateGlobs(input.include?.length ? input.include : [...DEFAULT_INCLUDE], 'include');
    const exclude = validateGlobs([...DEFAULT_EXCLUDE, ...(input.exclude ?? [])], 'exclude');
    const ocrLanguages = input.ocrLanguages?.length ? await this.ocrLanguages(input.ocrLanguages) : null;
    const row = await this.storage.collections.insert({ name, root: fs.realpathSync(root), include, exclude, context: input.context ?? '', ocrLanguages });
    await this.indexing.collectionAdded(row); // watched at once where this engine watches; its first run is the caller's
    this.changed();
    return this.info(row);
  }

  async list(): Promise<CollectionInfo[]> {
    const [rows, counts] = await Promise.all([this.storage.collections.list(), this.storage.stats.counts()]);
    return rows.map((c) => collectionInfo(c, counts));
  }

  /** Names and context notes only: no document counts, cheap enough for every search. */
  async notes(): Promise<{ name: string; context: string }[]> {
    return (await this.storage.collections.list()).map((c) => ({ name: c.name, context: c.context }));
  }

  async rename(oldName: string, newName: string): Promise<CollectionInfo> {
    const c = await this.require(oldName);
    validateName(newName);
    const clash = await this.storage.collections.get(newName);
    if (clash && clash.id !== c.id) throw new TroveError('CONFLICT', `a collection named "${newName}" already exists`);
    await this.storage.collections.rename(c.id, newName);
    this.indexing.collectionRenamed({ ...c, name: newName });
    this.changed();
    return this.info((await this.storage.collections.byId(c.id))!);
  }

  /** The collection and everything indexed of it (its files are untouched); its queued jobs go too. */
  async remove(name: string): Promise<void> {
    const asked = this.indexing.removalAsked(name); // its run heard of it before the row is looked up
    try {
      const c = await this.require(name);
      await this.indexing.removeCollection(c.id); // watcher stopped at once, its batch in flight dropped
    } finally {
      asked();
    }
    this.changed();
  }

  async setContext(name: string, context: string): Promise<CollectionInfo> {
    const c = await this.require(name);
    if (context.length > 4000) throw invalidInput('a context note is limited to 4000 characters');
    await this.storage.collections.setContext(c.id, context);
    return this.info((await this.storage.collections.byId(c.id))!);
  }

  /** true or false overrides the Settings switch for this collection, null follows it. */
  async setRedaction(name: string, redactSecrets: boolean | null): Promise<CollectionInfo> {
    const c = await this.require(name);
    await this.storage.collections.setRedactSecrets(c.id, redactSecrets);
    this.changed();
    return this.info((await this.storage.collections.byId(c.id))!);
  }

  /** The languages OCR reads the collection's scans in (null: English): checked and installed first, then every page is read again in them. */
  async setOcrLanguages(name: string, languages: string[] | null): Promise<CollectionInfo> {
    const c = await this.require(name);
    const codes = languages?.length ? await this.ocrLanguages(languages) : null;
    await this.storage.collections.setOcrLanguages(c.id, codes);
    await this.storage.ocr.restart(c.id);
    this.changed();
    return this.info((await this.storage.collections.byId(c.id))!);
  }

  /** A folder collection by name; NOT_FOUND names the collections there are. */
  async require(name: string): Promise<CollectionRow> {
    const c = await this.storage.collections.get(name);
    if (c) return c;
    const known = (await this.storage.collections.list()).map((k) => k.name);
    throw notFound(`no collection named "${name}"${known.length ? ` (collections: ${known.join(', ')})` : ''}`);
  }

  private async info(row: CollectionRow): Promise<CollectionInfo> {
    return collectionInfo(row, await this.storage.stats.counts());
  }
}
