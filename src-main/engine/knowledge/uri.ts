// The trove:// URIs of knowledge items and what they name. Documents keep their collection's
// URI (trove://<collection>/<path>); the engine's own sources live under names a collection can
// never have (a leading '~'): trove://~datasets/<dataset id>/<ref>, trove://~memory/<entry id>.
// Every segment is percent-encoded, so a ref holding '/' or '%' round-trips.
import { invalidInput } from '../errors.js';
import type { KnowledgeSourceKind } from '../types/knowledge.js';

export const DATASETS_ROOT = '~datasets';
export const MEMORY_ROOT = '~memory';

export type ItemRef =
  | { source: 'documents'; /** a locator DocumentRetriever reads: path, collection/path, #docid or trove:// URI */ locator: string }
  | { source: 'datasets'; dataset: string; ref: string }
  | { source: 'memory'; entry: string };

export function datasetItemUri(dataset: string, ref: string): string {
  return `trove://${DATASETS_ROOT}/${encodeURIComponent(dataset)}/${ref.split('/').map(encodeURIComponent).join('/')}`;
}

export function memoryItemUri(entry: string): string {
  return `trove://${MEMORY_ROOT}/${encodeURIComponent(entry)}`;
}

/** The source a trove:// URI belongs to (documents for any collection's URI). */
export function sourceOfUri(uri: string): KnowledgeSourceKind {
  const root = /^trove:\/\/([^/]*)/i.exec(uri.trim())?.[1];
  if (root === undefined) throw invalidInput(`"${uri}" is not a trove:// URI`);
  if (root === DATASETS_ROOT) return 'datasets';
  if (root === MEMORY_ROOT) return 'memory';
  return 'documents';
}

/** What a trove:// URI names. */
export function parseItemUri(uri: string): ItemRef {
  const text = uri.trim();
  const source = sourceOfUri(text);
  if (source === 'documents') return { source, locator: text };
  const rest = text.slice(`trove://${source === 'datasets' ? DATASETS_ROOT : MEMORY_ROOT}/`.length).split(/[?#]/)[0]!;
  if (source === 'memory') {
    if (!rest || rest.includes('/')) throw invalidInput(`"${uri}" is not a memory URI (expected trove://${MEMORY_ROOT}/<entry id>)`);
    return { source, entry: decode(rest, uri) };
  }
  const slash = rest.indexOf('/');
  if (slash <= 0 || slash === rest.length - 1) throw invalidInput(`"${uri}" is not a dataset URI (expected trove://${DATASETS_ROOT}/<dataset id>/<ref>)`);
  return { source, dataset: decode(rest.slice(0, slash), uri), ref: rest.slice(slash + 1).split('/').map((s) => decode(s, uri)).join('/') };
}

/**
 * What a source-native id names: documents take any locator; a dataset item's id is
 * `<dataset id>:<ref>`; a memory item's id is the entry id.
 */
export function parseItemId(source: KnowledgeSourceKind, id: string): ItemRef {
  const text = id.trim();
  if (!text) throw invalidInput('id is empty');
  if (/^trove:\/\//i.test(text)) {
    const ref = parseItemUri(text);
    if (ref.source !== source) throw invalidInput(`"${id}" is a ${ref.source} URI, not one of ${source}`);
    return ref;
  }
  if (source === 'documents') return { source, locator: text };
  if (source === 'memory') return { source, entry: text };
  const colon = text.indexOf(':');
  if (colon <= 0 || colon === text.length - 1) throw invalidInput(`"${id}" is not a dataset item id (expected <dataset id>:<ref>)`);
  return { source, dataset: text.slice(0, colon), ref: text.slice(colon + 1) };
}

function decode(part: string, uri: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw invalidInput(`"${uri}" has invalid percent-encoding`);
  }
}
