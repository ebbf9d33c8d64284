// get and multi_get over the storage interface (store/storage.ts), so they run on PostgreSQL:
// the same locators, scopes, limits, suggestions and errors as documents.ts (whose pure parts it
// shares), with every read an awaited repository call. The SQLite engine keeps documents.ts.
import { notFound } from '../errors.js';
import type { CollectionRow } from '../store/collections.js';
import type { DocumentRow } from '../store/documents.js';
import type { Storage } from '../store/storage.js';
import type { MultiGetResult, RetrievedDocument } from '../types/documents.js';
import {
  ambiguous,
  globOf,
  listItems,
  missingDocument,
  multiGetEntry,
  multiGetLimits,
  retrievedDocument,
  usableDocument,
  type GetOptions,
  type MultiGetOptions,
} from './documents.js';
import { parseLocator, safePath, type Locator } from './locator.js';

type Found = { doc: DocumentRow; collection: CollectionRow };

export class StorageDocumentRetriever {
  constructor(private readonly storage: Storage) {}

  async get(locatorText: string, opts: GetOptions = {}): Promise<RetrievedDocument> {
    const locator = parseLocator(locatorText);
    const { doc, collection } = await this.resolve(locator, locatorText, await this.visible(opts.collections));
    return retrievedDocument(doc, collection, (await this.storage.documents.content(doc.id)) ?? '', locator.line, opts);
  }

  /** The indexed document a locator names among the collections a caller may see (documents.ts's locate). */
  async locate(locatorText: string, collections?: readonly string[]): Promise<Found & { line?: number }> {
    const locator = parseLocator(locatorText);
    return { ...(await this.resolve(locator, locatorText, await this.visible(collections))), line: locator.line };
  }

  async multiGet(pattern: string, opts: MultiGetOptions = {}): Promise<MultiGetResult> {
    const limits = multiGetLimits(opts);
    const result: MultiGetResult = { documents: [], notFound: [] };
    const targets: Found[] = [];
    const visible = await this.visible(opts.collections);
    const isMatch = globOf(pattern);
    if (isMatch) {
      for (const collection of visible.values()) {
        for (const doc of await this.storage.documents.indexedDocuments(collection.id)) {
          if (isMatch(doc.path) || isMatch(`${collection.name}/${doc.path}`)) targets.push({ doc, collection });
        }
      }
      if (!targets.length) result.notFound.push({ locator: pattern, reason: 'no indexed document matches the pattern', suggestions: [] });
    } else {
      for (const item of listItems(pattern)) {
        try {
          targets.push(await this.resolve(parseLocator(item), item, visible));
        } catch (err) {
          if ((err as { code?: string }).code === 'INVALID_INPUT') throw err;
          const suggestions = ((err as { details?: { suggestions?: string[] } }).details?.suggestions ?? []) as string[];
          result.notFound.push({ locator: item, reason: (err as Error).message, suggestions });
        }
      }
    }
    const texts = await Promise.all(targets.map(({ doc }) => this.storage.documents.content(doc.id)));
    targets.forEach(({ doc, collection }, i) => result.documents.push(multiGetEntry(doc, collection, texts[i] ?? '', limits, opts.lineNumbers)));
    return result;
  }

  /** The collections a caller may see, by id: all of them, or those on its allow-list. */
  private async visible(allow: readonly string[] | undefined): Promise<Map<number, CollectionRow>> {
    const all = await this.storage.collections.list();
    const names = allow && new Set(allow.map((n) => n.toLowerCase()));
    return new Map(all.filter((c) => !names || names.has(c.name.toLowerCase())).map((c) => [c.id, c]));
  }

  private async resolve(locator: Locator, input: string, byId: Map<number, CollectionRow>): Promise<Found> {
    if (locator.kind === 'docid') {
      const doc = await this.storage.documents.byDocid(locator.docid);
      const home = doc && byId.get(doc.collectionId);
      if (doc && home) return usableDocument(doc, home, input);
      if (locator.explicit) throw notFound(`no document with docid #${locator.docid}`);
      return this.resolve({ kind: 'path', path: safePath(input.replace(/:\d+$/, '')), line: locator.line }, input, byId);
    }
    const candidates: Found[] = [];
    if (locator.collection !== undefined) {
      const named = await this.storage.collections.get(locator.collection);
      const collection = named && byId.get(named.id);
      if (!collection) throw notFound(`no collection named "${locator.collection}"`);
      const doc = await this.storage.documents.byPath(collection.id, locator.path);
      if (doc) return usableDocument(doc, collection, input);
      throw await this.missing(input, locator.path, [collection]);
    }
    const slash = locator.path.indexOf('/');
    if (slash > 0) {
      const named = await this.storage.collections.get(locator.path.slice(0, slash));
      const collection = named && byId.get(named.id);
      const doc = collection && (await this.storage.documents.byPath(collection.id, locator.path.slice(slash + 1)));
      if (collection && doc) candidates.push({ doc, collection });
    }
    for (const collection of byId.values()) {
      const doc = await this.storage.documents.byPath(collection.id, locator.path);
      if (doc) candidates.push({ doc, collection });
    }
    if (candidates.length === 1) return usableDocument(candidates[0]!.doc, candidates[0]!.collection, input);
    if (candidates.length > 1) throw ambiguous(input, candidates);
    throw await this.missing(input, locator.path, [...byId.values()]);
  }

  private async missing(input: string, path: string, collections: CollectionRow[]) {
    const paths = new Map(await Promise.all(collections.map(async (c) => [c.id, await this.storage.documents.indexedPaths(c.id)] as const)));
    return missingDocument(input, path, collections, (c) => paths.get(c.id) ?? []);
  }
}
