// A folder dataset's collection, kept in line with its manifest (the registry's folder half): made
// when the manifest becomes valid, re-rooted when it moves the documents folder, its embedding
// model set, and dropped when no manifest wants it. Every step goes through the registry's ports.
import fs from 'node:fs';
import { TroveError } from '../errors.js';
import { DEFAULT_EXCLUDE, DEFAULT_INCLUDE } from '../ingest/defaults.js';
import type { CollectionRow } from '../store/collections.js';
import { embeddingModel } from './faiss-dataset.js';
import { datasetCollectionName, FolderDataset } from './folder-dataset.js';
import type { DatasetManifest } from './manifest.js';
import type { DatasetCollections, DatasetModels, FolderIndex } from './ports.js';

/** A folder dataset never indexes its own manifest (when its documents folder holds it). */
const MANIFEST_GLOB = 'manifest.json';

export interface FolderLoadingDeps {
  collections: DatasetCollections;
  models: DatasetModels;
  folderIndex: FolderIndex;
}

/**
 * The collection for a valid folder manifest whose documents folder is at `root`, and the model
 * it embeds with; throws (IO) when this host cannot read the folder. `current()` says whether
 * the manifest is still the registry's when the collection is there.
 */
export async function loadFolderDataset(deps: FolderLoadingDeps, m: DatasetManifest, root: string): Promise<{ dataset: FolderDataset; model: string | null }> {
  if (!isDirectory(root)) throw new TroveError('IO', `the documents folder ${root} does not exist or is not a folder`);
  try {
    fs.readdirSync(root);
  } catch (err) {
    throw new TroveError('IO', `the documents folder ${root} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const model = m.model ? embeddingModel(deps.models.manifest, m.model).id : null;
  const real = fs.realpathSync(root);
  const name = datasetCollectionName(m.id);
  const { collections } = deps;
  let row = await collections.get(name);
  if (row && row.root !== real) {
    await collections.remove(row);
    row = undefined;
  }
  row ??= await collections.add({ name, root: real, include: [...DEFAULT_INCLUDE], exclude: [...DEFAULT_EXCLUDE, MANIFEST_GLOB], context: m.description });
  // the embedding stage reports a model that is not here yet; keyword search works meanwhile
  if (((await collections.modelChoice(row.id)) ?? null) !== model) await collections.setModelChoice(row.id, model);
  const dataset = new FolderDataset(m.id, row, deps.folderIndex);
  await dataset.refreshSize();
  return { dataset, model };
}

/**
 * Drops the dataset collections `unwanted` names (no valid folder manifest wants them: removed,
 * invalid, renamed ids, or left from another run; on a shared database only those this host
 * stopped wanting, since another host's manifests may want the rest). `unwanted` is asked once the
 * list answered, so a manifest that became valid again meanwhile keeps its collection.
 */
export async function dropUnwanted(collections: DatasetCollections, unwanted: (name: string) => boolean): Promise<void> {
  const rows = await collections.list();
  await Promise.all(rows.filter((c) => unwanted(c.name)).map((c) => collections.remove(c)));
}

/** The names of the collections these folder manifests want. */
export function wantedCollections(manifests: readonly (DatasetManifest | null)[]): Set<string> {
  const wanted = new Set<string>();
  for (const m of manifests) if (m?.kind === 'folder') wanted.add(datasetCollectionName(m.id));
  return wanted;
}

/** Whether the dataset's collection has been indexed once (it is Ready from then on). */
export async function indexedOnce(collections: DatasetCollections, c: CollectionRow): Promise<boolean> {
  return Boolean((await collections.byId(c.id))?.lastIndexedAt);
}

export function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
