// get and multi_get: read indexed documents by locator or pattern over the storage interface.
// Text comes from the index (what was parsed at index time), so nothing outside a collection's
// indexed files is reachable.
import picomatch from 'picomatch';
import { invalidInput, notFound } from '../errors.js';
import type { CollectionRow } from '../store/collections.js';
import type { DocumentRow } from '../store/documents.js';
import type { Storage } from '../store/storage.js';
import { parseLocator, safePath, type Locator } from './locator.js';
import { closestPaths } from './suggest.js';
import type { MultiGetEntry, MultiGetResult, RetrievedDocument } from '../types/documents.js';

export type { MultiGetEntry, MultiGetResult, RetrievedDocument };

export interface GetOptions {
  /** Allow-list of collection names (a scoped access token): documents elsewhere do not exist. */
  collections?: readonly string[];
  fromLine?: number;
  maxLines?: number;
  lineNumbers?: boolean;
}

export interface MultiGetOptions {
  /** Allow-list of collection names, as in GetOptions. */
  collections?: readonly string[];
  maxBytes?: number;
  maxLines?: number;
  lineNumbers?: boolean;
}

export const DEFAULT_MULTI_GET_MAX_BYTES = 10_240;

export function documentUri(collection: string, path: string): string {
  return `trove://${encodeURIComponent(collection)}/${path.split('/').map(encodeURIComponent).join('/')}`;
}

type Found = { doc: DocumentRow; collection: CollectionRow };

export class DocumentRetriever {
  constructor(private readonly storage: Storage) {}

  async get(locatorText: string, opts: GetOptions = {}): Promise<RetrievedDocument> {
    const locator = parseLocator(locatorText);
    const { doc, collection } = await this.resolve(locator, locatorText, await this.visible(opts.collections));
    return retrievedDocument(doc, collection, (await this.storage.documents.content(doc.id)) ?? '', locator.line, opts);
  }

  /** The indexed document a locator names among the collections a caller may see (NOT_FOUND with suggestions otherwise). */
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
      // the paths first, then the rows of the matches only: a collection's whole rows cost ~10 µs a
      // document to read (95 ms for cpp-docs' 9,700), its paths a tenth of that; and only the paths
      // under the glob's literal folder, where it has one (a range of the index, not every path)
      const folder = globFolder(pattern);
      for (const collection of visible.values()) {
        const paths = (await this.candidatePaths(collection, folder)).filter((p) => isMatch(p) || isMatch(`${collection.name}/${p}`));
        if (!paths.length) continue;
        const docs = await this.storage.documents.byPaths(collection.id, paths);
        for (const p of paths) {
          const doc = docs.get(p);
          if (doc?.status === 'indexed') targets.push({ doc, collection }); // one that changed in between is left out
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
    const texts = await this.storage.documents.contents(targets.map(({ doc }) => doc.id));
    for (const { doc, collection } of targets) result.documents.push(multiGetEntry(doc, collection, texts.get(doc.id) ?? '', limits, opts.lineNumbers));
    return result;
  }

  /**
   * A collection's paths a glob under `folder` can match, as the collection's path or after its
   * name: those under the folder, and those under the rest of it when it begins with the name.
   */
  private async candidatePaths(collection: CollectionRow, folder: string | undefined): Promise<string[]> {
    if (folder === undefined || folder === collection.name) return this.storage.documents.indexedPaths(collection.id);
    const inside = folder.startsWith(`${collection.name}/`) ? folder.slice(collection.name.length + 1) : undefined;
    const paths = await this.storage.documents.indexedPaths(collection.id, folder);
    return inside === undefined ? paths : [...paths, ...(await this.storage.documents.indexedPaths(collection.id, inside))];
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

// ---- the pure parts ----------------------------------------------------------------------

/** A document's lines from `line` (the locator's :N, or fromLine) as get returns them. */
export function retrievedDocument(doc: DocumentRow, collection: CollectionRow, text: string, line: number | undefined, opts: GetOptions): RetrievedDocument {
  const lines = text.split('\n');
  const from = clampLine(opts.fromLine ?? line ?? 1, lines.length);
  const max = opts.maxLines !== undefined ? positive(opts.maxLines, 'maxLines') : lines.length;
  const slice = lines.slice(from - 1, from - 1 + max);
  const to = from + slice.length - 1;
  return {
    ...describe(doc, collection),
    metadata: doc.metadata,
    tags: doc.tags,
    kind: doc.kind,
    modifiedMs: doc.mtimeMs,
    fromLine: from,
    toLine: to,
    totalLines: lines.length,
    text: opts.lineNumbers ? slice.map((l, i) => `${from + i}: ${l}`).join('\n') : slice.join('\n'),
    truncated: to < lines.length,
  };
}

export function multiGetLimits(opts: MultiGetOptions): { maxBytes: number; maxLines: number | undefined } {
  return {
    maxBytes: opts.maxBytes !== undefined ? positive(opts.maxBytes, 'maxBytes') : DEFAULT_MULTI_GET_MAX_BYTES,
    maxLines: opts.maxLines !== undefined ? positive(opts.maxLines, 'maxLines') : undefined,
  };
}

/** The matcher of a glob pattern (null: a comma-separated list); a pattern may not leave its collection. */
export function globOf(pattern: string): ((path: string) => boolean) | null {
  if (!/[*?[{]/.test(pattern)) return null;
  if (pattern.split(/[\\/]/).includes('..') || pattern.startsWith('/')) throw invalidInput('patterns may not leave their collection');
  return picomatch(pattern.trim(), { dot: true });
}

/**
 * The literal folder a glob's matches all sit in, or are (`a/**` matches `a` too): `docs/mfc` of
 * `docs/mfc/*.md`. Undefined when the glob starts with a wildcard or a brace set, or when an escape
 * (a backslash) leaves its literal text uncertain.
 */
export function globFolder(pattern: string): string | undefined {
  const { base } = picomatch.scan(pattern.trim());
  return base && !base.includes('\\') ? base : undefined;
}

export function listItems(pattern: string): string[] {
  const items = pattern.split(',').map((s) => s.trim()).filter(Boolean);
  if (!items.length) throw invalidInput('multi_get needs a glob pattern or a comma-separated list of paths');
  return items;
}

/** One document of a multi_get: its text within the limits, or why it was skipped. */
export function multiGetEntry(doc: DocumentRow, collection: CollectionRow, text: string, limits: { maxBytes: number; maxLines: number | undefined }, lineNumbers?: boolean): MultiGetEntry {
  const base = describe(doc, collection);
  const bytes = Buffer.byteLength(text);
  if (bytes > limits.maxBytes) return { ...base, skipped: `${bytes} bytes is over maxBytes (${limits.maxBytes}); use get to read it` };
  let lines = text.split('\n');
  let truncated = false;
  let tail = '';
  if (limits.maxLines !== undefined && lines.length > limits.maxLines) {
    tail = `\n\n[... truncated ${lines.length - limits.maxLines} more lines]`; // QMD's marker, after a blank line
    lines = lines.slice(0, limits.maxLines);
    truncated = true;
  }
  const body = lineNumbers ? lines.map((l, i) => `${i + 1}: ${l}`).join('\n') : lines.join('\n');
  return { ...base, text: body + tail, truncated };
}

/** The document as found: not indexed (skipped, failed) is NOT_FOUND with the reason. */
export function usableDocument(doc: DocumentRow, collection: CollectionRow, input: string): { doc: DocumentRow; collection: CollectionRow } {
  if (doc.status !== 'indexed') throw notFound(`"${input}" was not indexed: ${doc.error ?? doc.status}`);
  return { doc, collection };
}

/** NOT_FOUND for a path, with the closest indexed paths of these collections as suggestions. */
export function missingDocument(input: string, path: string, collections: readonly CollectionRow[], pathsOf: (c: CollectionRow) => string[]) {
  const all = collections.flatMap((c) => pathsOf(c).map((p) => (collections.length > 1 ? `${c.name}/${p}` : p)));
  const suggestions = closestPaths(path, all);
  const hint = suggestions.length ? `; did you mean ${suggestions.join(', ')}?` : '';
  return notFound(`no indexed document at "${input}"${hint}`, { suggestions });
}

export function ambiguous(input: string, candidates: readonly { doc: DocumentRow; collection: CollectionRow }[]) {
  const options = candidates.map((c) => `${c.collection.name}/${c.doc.path}`);
  return invalidInput(`"${input}" is in more than one collection; say which: ${options.join(', ')}`, { candidates: options });
}

function describe(doc: DocumentRow, collection: CollectionRow) {
  return { docid: doc.docid, collection: collection.name, path: doc.path, uri: documentUri(collection.name, doc.path), title: doc.title };
}

function clampLine(line: number, total: number): number {
  if (!Number.isInteger(line) || line < 1) throw invalidInput(`line numbers start at 1 (got ${line})`);
  return Math.min(line, Math.max(total, 1));
}

function positive(n: number, name: string): number {
  if (!Number.isInteger(n) || n < 1) throw invalidInput(`${name} must be a positive integer (got ${n})`);
  return n;
}
