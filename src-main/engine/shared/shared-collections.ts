// Adding, renaming and removing folder collections in a shared index (PostgreSQL) through the
// storage interface, with the checks Engine.addCollection makes on SQLite (collection-input.ts):
// so a collection can be made there without a SQLite profile. The folder must be one this host
// sees; hosts that index it must see it at the same path (docs/scale-out.md).
import fs from 'node:fs';
import path from 'node:path';
import { assertFolder, validateGlobs, validateName } from '../collection-input.js';
import { invalidInput, notFound, TroveError } from '../errors.js';
import { DEFAULT_EXCLUDE, DEFAULT_INCLUDE } from '../ingest/defaults.js';
import { collectionInfo } from '../status-report.js';
import type { CollectionRow } from '../store/collections.js';
import type { Storage } from '../store/storage.js';
import type { AddCollectionInput, CollectionInfo } from '../types/index.js';

export class SharedCollections {
  constructor(private readonly storage: Storage) {}

  async add(input: AddCollectionInput): Promise<CollectionInfo> {
    const root = path.resolve(input.root);
    assertFolder(root);
    const name = input.name ?? path.basename(root);
    validateName(name);
    if (await this.storage.collections.get(name)) throw new TroveError('CONFLICT', `a collection named "${name}" already exists`);
    const include = validateGlobs(input.include?.length ? input.include : [...DEFAULT_INCLUDE], 'include');
    const exclude = validateGlobs([...DEFAULT_EXCLUDE, ...(input.exclude ?? [])], 'exclude');
    const row = await this.storage.collections.insert({ name, root: fs.realpathSync(root), include, exclude, context: input.context ?? '' });
    return this.info(row);
  }

  async rename(oldName: string, newName: string): Promise<CollectionInfo> {
    const c = await this.require(oldName);
    validateName(newName);
    const clash = await this.storage.collections.get(newName);
    if (clash && clash.id !== c.id) throw new TroveError('CONFLICT', `a collection named "${newName}" already exists`);
    await this.storage.collections.rename(c.id, newName);
    return this.info((await this.storage.collections.byId(c.id))!);
  }

  /** The collection and everything indexed of it (its files are untouched); its queued jobs go too. */
  async remove(name: string): Promise<void> {
    const c = await this.require(name);
    await this.storage.collections.remove(c.id);
  }

  async setContext(name: string, context: string): Promise<CollectionInfo> {
    const c = await this.require(name);
    if (context.length > 4000) throw invalidInput('a context note is limited to 4000 characters');
    await this.storage.collections.setContext(c.id, context);
    return this.info((await this.storage.collections.byId(c.id))!);
  }

  /** true or false overrides the Settings switch for this collection, null follows it (every host). */
  async setRedaction(name: string, redactSecrets: boolean | null): Promise<CollectionInfo> {
    const c = await this.require(name);
    await this.storage.collections.setRedactSecrets(c.id, redactSecrets);
    return this.info((await this.storage.collections.byId(c.id))!);
  }

  /** Pauses (or resumes) one collection's indexing on every host, or every folder collection's. */
  async setPaused(name: string | undefined, paused: boolean): Promise<void> {
    const targets = name === undefined ? await this.storage.collections.list() : [await this.require(name)];
    for (const c of targets) await this.storage.jobs.setPaused(c.id, paused);
  }

  async list(): Promise<CollectionInfo[]> {
    const [rows, counts] = await Promise.all([this.storage.collections.list(), this.storage.stats.counts()]);
    return rows.map((c) => collectionInfo(c, counts));
  }

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
