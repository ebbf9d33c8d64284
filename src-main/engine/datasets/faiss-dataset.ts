// A FAISS dataset: an index.faiss and its metadata, loaded into memory and checked before it is
// Ready — the index parses (faiss-format.ts), the metadata has a document for every vector, the
// manifest's model is known, present and makes vectors of the index's dimension, and a few stored
// vectors are compared with the model's own embedding of their text (model-check.ts; another
// model of the same size would otherwise give garbage results). A manifest that names no model
// (the spec's own form) gets the installed one that reproduces the vectors. Queries are embedded with that model through the
// engine's worker pool and searched exactly (simd-dots.ts, else vector-scan.ts); a document's several vectors
// collapse to its best, like every Trove search.
import fs from 'node:fs/promises';
import path from 'node:path';
import { TroveError, notFound } from '../errors.js';
import type { Manifest, ModelSpec } from '../embed/manifest.js';
import { queryMatcher } from '../search/highlight.js';
import type { TermMatcher } from '../search/snippet.js';
import type { DatasetDocument, DatasetHit } from '../types/datasets.js';
import { parseFaissIndex, type FaissIndex } from './faiss-format.js';
import { parseMetadata, type MetadataEntry } from './faiss-metadata.js';
import { bestCosine, DRIFT_BELOW, inferModel, MISMATCH_BELOW, type VectorProbe } from './model-check.js';
import { plainSnippet } from './plain-snippet.js';
import { searchGraph, VisitMarks } from './hnsw-search.js';
import type { DatasetModels, ModelChecks } from './ports.js';
import { dotKernel, type DotKernel } from './simd-dots.js';
import { innerProducts, squaredNorms, topGroups, type GroupHit } from './vector-scan.js';

export const FAISS_FILE = 'index.faiss';

const PROBES = 3;
/** An IndexHNSWFlat this large is searched through its graph; smaller ones exactly (a scan of 50k × 384 takes ~10 ms). */
export const HNSW_GRAPH_FROM = 50_000;

export type { ModelChecks };

export interface FaissPage {
  results: DatasetHit[];
  hasMore: boolean;
  notices: string[];
}

export class FaissDataset {
  private constructor(
    readonly id: string,
    private readonly index: FaissIndex,
    private readonly entries: MetadataEntry[],
    readonly model: string,
    /** Row → its document's position in the metadata. */
    private readonly rowDoc: Int32Array,
    /** Row → its group (one per distinct document path). */
    private readonly groupOf: Int32Array,
    private readonly groups: number,
    private readonly norms2: Float32Array,
    private readonly normalized: boolean,
    private readonly maxNorm: number,
    readonly scoring: string,
    readonly warnings: string[],
    /** The manifest named no model: this one reproduced the vectors (model-check.ts). */
    readonly modelInferred: boolean,
    /** Walk the HNSW graph instead of scanning (a large IndexHNSWFlat). */
    private readonly useGraph: boolean,
    /** The scan's SIMD inner products over its own copy of the vectors (index.vectors is that copy); null: the JavaScript loop. */
    private readonly kernel: DotKernel | null,
  ) {}

  private marks: VisitMarks | null = null;

  get indexType(): string {
    return this.index.type;
  }

  get dims(): number {
    return this.index.d;
  }

  get size(): number {
    return this.index.ntotal;
  }

  /**
   * Reads and checks everything; throws (UNAVAILABLE, with the reason) when the dataset cannot
   * serve — with details.state "invalid" when the manifest names no model and none could be inferred.
   */
  static async load(
    input: { id: string; model: string | null; indexPath: string; metadataPath: string; hnswGraphFrom?: number },
    embeddings: DatasetModels,
    checks: ModelChecks,
  ): Promise<FaissDataset> {
    const spec = input.model === null ? null : embeddingModel(embeddings.manifest, input.model);
    const file = await readIndexFile(input.indexPath);
    const parsed = parseFaissIndex(file.buf);
    // the kernel holds the vectors in its own memory: rows are read from there, and the file's buffer is let go
    const kernel = dotKernel(parsed.vectors, parsed.d, parsed.ntotal);
    const index: FaissIndex = kernel ? { ...parsed, vectors: kernel.vectors } : parsed;
    if (spec && index.d !== spec.dims) {
      throw new TroveError(
        'UNAVAILABLE',
        `model mismatch: the index holds ${index.d}-dimension vectors, but ${spec.id} makes ${spec.dims}-dimension vectors, so its vectors cannot have come from that model`,
      );
    }
    const { entries, warnings } = parseMetadata(await readJson(input.metadataPath));
    const rowDoc = documentOfRows(index, entries.length);
    if (!index.ids && entries.length > index.ntotal) warnings.push(`the metadata has ${entries.length} entries for ${index.ntotal} vectors; the last ${entries.length - index.ntotal} are never found`);
    const { groupOf, groups } = groupRows(rowDoc, entries);
    const norms2 = squaredNorms(index.vectors, index.d, index.ntotal);
    let normalized = index.ntotal > 0;
    let maxNorm = 0;
    let minNorm = Infinity;
    for (const n2 of norms2) {
      if (Math.abs(n2 - 1) > 0.02) normalized = false;
      maxNorm = Math.max(maxNorm, Math.sqrt(n2));
      minNorm = Math.min(minNorm, Math.sqrt(n2));
    }
    const files = [file.stamp, await stampOf(input.metadataPath)];
    const probe = probeOf(index, entries, rowDoc, norms2);
    let modelId: string;
    let best: number | null = null;
    if (spec) {
      const model = await embeddings.resolve(spec.id); // the model's files are here and intact, or the reason why not
      modelId = spec.id;
      if (probe.texts.length) best = await bestCosine(embeddings, checks, { id: spec.id, weightsSha256: model.weightsSha256 }, files, probe);
      else warnings.push(`no metadata entry has text to check the vectors against ${spec.id}; they are trusted to come from it`);
      if (best !== null && best < MISMATCH_BELOW) {
        throw new TroveError(
          'UNAVAILABLE',
          `model mismatch: the stored vectors do not come from ${spec.id}: its embedding of a document's own text is at cosine ${best.toFixed(2)} at best to the stored vector ` +
            `(the same model gives about 1.0). Set "model" in the manifest to the model that made them.`,
        );
      }
    } else {
      ({ model: modelId, best } = await inferModel(embeddings, checks, index.d, files, probe));
      warnings.push(`the manifest names no model: ${modelId} was inferred (it reproduces the stored vectors, best cosine ${best.toFixed(2)}); name it in the manifest to say so`);
    }
    if (best !== null && best < DRIFT_BELOW) {
      warnings.push(
        `the stored vectors are near, not equal to, ${modelId}'s embedding of their text (best cosine ${best.toFixed(2)}): the producer may have embedded other text (e.g. title + text) or another build of the model`,
      );
    }
    const scoring = describeScoring(index, normalized, minNorm, maxNorm);
    const useGraph = index.hnsw !== null && index.ntotal >= (input.hnswGraphFrom ?? HNSW_GRAPH_FROM);
    return new FaissDataset(input.id, index, entries, modelId, rowDoc, groupOf, groups, norms2, normalized, maxNorm || 1, scoring, warnings, spec === null, useGraph, kernel);
  }

  /** One page of hits for a query vector (a unit vector from this dataset's model). */
  search(query: string, vector: Float32Array, opts: { topK: number; offset: number; snippetLength: number }): FaissPage {
    const wanted = opts.offset + opts.topK;
    const hits = (this.useGraph && this.graphHits(vector, wanted + 1)) || this.scanHits(vector, wanted + 1);
    const matcher = queryMatcher(query, 'match');
    const results = hits.slice(opts.offset, wanted).map((h) => this.hit(h.row, vector, matcher, opts.snippetLength));
    const notices = this.normalized ? [] : [`scores: ${this.scoring}`];
    return { results, hasMore: hits.length > wanted, notices };
  }

  /** Every row scored: the best `count` documents, exactly. */
  private scanHits(q: Float32Array, count: number): GroupHit[] {
    const { d, ntotal, vectors, metric } = this.index;
    const keys = new Float32Array(ntotal);
    if (this.kernel) this.kernel.innerProducts(q, keys);
    else innerProducts(vectors, d, ntotal, q, keys);
    if (metric === 'l2') for (let r = 0; r < ntotal; r++) keys[r] = 2 * keys[r]! - this.norms2[r]!; // −d² + 1, same order
    return topGroups(keys, this.groupOf, this.groups, count).hits;
  }

  /** The best `count` documents along the HNSW graph; null when the beam found fewer (a page deep into the results): scan instead. */
  private graphHits(q: Float32Array, count: number): GroupHit[] | null {
    const g = this.index.hnsw!;
    this.marks ??= new VisitMarks(this.index.ntotal);
    const l2 = this.index.metric === 'l2';
    const key = (row: number) => (l2 ? 2 * this.rowDot(row, q) - this.norms2[row]! : this.rowDot(row, q));
    const rows = searchGraph(g, key, Math.max(g.efSearch, count * 4, 64), this.marks);
    const best = new Map<number, GroupHit>();
    for (const r of rows) {
      const group = this.groupOf[r.row]!;
      if (!best.has(group)) best.set(group, { group, row: r.row, key: r.key }); // rows come best first
    }
    if (best.size < count && rows.length < this.index.ntotal) return null;
    return [...best.values()].slice(0, count);
  }

  private hit(row: number, q: Float32Array, matcher: TermMatcher, snippetLength: number): DatasetHit {
    const ip = this.rowDot(row, q);
    const n2 = this.norms2[row]!;
    const d2 = Math.max(0, 1 + n2 - 2 * ip);
    const similarity = this.normalized ? (this.index.metric === 'ip' ? ip : 1 - d2 / 2) : n2 > 0 ? ip / Math.sqrt(n2) : 0;
    const score = this.normalized ? clamp01(similarity) : this.index.metric === 'ip' ? clamp01(ip / this.maxNorm) : 1 / (1 + d2);
    const ref = this.rowDoc[row]!;
    const e = this.entries[ref]!;
    const text = e.text ?? e.snippet ?? '';
    return {
      dataset: this.id,
      ref: String(ref),
      title: e.title,
      path: e.path,
      snippet: plainSnippet(text, matcher, snippetLength),
      score: round(score),
      similarity: round(Math.max(-1, Math.min(1, similarity))),
      chunk: null,
      modified: modifiedOf(e),
    };
  }

  private rowDot(row: number, q: Float32Array): number {
    const { d, vectors } = this.index;
    let s = 0;
    for (let j = 0, base = row * d; j < d; j++) s += vectors[base + j]! * q[j]!;
    return s;
  }

  document(ref: string): DatasetDocument {
    const pos = /^(0|[1-9]\d*)$/.test(ref) ? Number(ref) : -1;
    const e = pos >= 0 ? this.entries[pos] : undefined;
    if (!e) throw notFound(`dataset "${this.id}" has no document "${ref}": its refs are positions 0..${this.entries.length - 1} in its metadata`);
    return { dataset: this.id, ref: String(pos), title: e.title, path: e.path, text: e.text ?? e.snippet ?? '', metadata: e.rest, chunks: null, modified: modifiedOf(e) };
  }
}

/** The catalogue's embedding model for a manifest's "model" (its id, any case, or with its publisher: "sentence-transformers/all-MiniLM-L6-v2"). */
export function embeddingModel(manifest: Manifest, name: string): ModelSpec & { dims: number } {
  const wanted = name.trim().toLowerCase();
  const embed = manifest.models.filter((m) => m.role === 'embed');
  const spec = embed.find((m) => m.id.toLowerCase() === wanted) ?? embed.find((m) => m.id.toLowerCase() === wanted.split('/').pop());
  if (!spec || !spec.dims) {
    throw new TroveError('UNAVAILABLE', `unknown embedding model "${name}": queries must be embedded by the model that made the vectors, and Trove has ${embed.map((m) => m.id).join(', ')}`);
  }
  return spec as ModelSpec & { dims: number };
}

async function stampOf(file: string): Promise<string> {
  const st = await fs.stat(file).catch(() => null);
  return st ? `${file}:${st.size}:${st.mtimeMs}` : `${file}:missing`;
}

async function readIndexFile(p: string): Promise<{ buf: Buffer; stamp: string }> {
  const st = await fs.stat(p).catch((err: NodeJS.ErrnoException) => {
    throw new TroveError('UNAVAILABLE', `the index ${p} cannot be read (${err.code ?? err.message})`);
  });
  const file = st.isDirectory() ? path.join(p, FAISS_FILE) : p;
  try {
    const buf = await fs.readFile(file);
    return { buf, stamp: await stampOf(file) };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (st.isDirectory() && code === 'ENOENT') throw new TroveError('UNAVAILABLE', `the index folder ${p} has no ${FAISS_FILE}`);
    throw new TroveError('UNAVAILABLE', `${file} cannot be read (${code ?? (err as Error).message})`);
  }
}

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    throw new TroveError('UNAVAILABLE', `the metadata file ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new TroveError('UNAVAILABLE', `the metadata file ${file} is not valid JSON: ${(err as Error).message}`);
  }
}

/** The first few stored vectors whose documents have text to embed: what the model checks compare. */
function probeOf(index: FaissIndex, entries: MetadataEntry[], rowDoc: Int32Array, norms2: Float32Array): VectorProbe {
  const rows: number[] = [];
  for (let r = 0; r < index.ntotal && rows.length < PROBES; r++) {
    const e = entries[rowDoc[r]!]!;
    if ((e.text ?? e.snippet ?? '').trim().length >= 20 && norms2[r]! > 0) rows.push(r);
  }
  return {
    texts: rows.map((r) => {
      const e = entries[rowDoc[r]!]!;
      return e.text ?? e.snippet!;
    }),
    cosine(i, v) {
      const r = rows[i]!;
      let s = 0;
      for (let j = 0, base = r * index.d; j < index.d; j++) s += index.vectors[base + j]! * v[j]!;
      return s / Math.sqrt(norms2[r]!);
    },
  };
}

/** Which metadata entry each stored vector is: its row, or its id for an IndexIDMap. */
function documentOfRows(index: FaissIndex, entries: number): Int32Array {
  const out = new Int32Array(index.ntotal);
  for (let r = 0; r < index.ntotal; r++) {
    const id = index.ids ? index.ids[r]! : r;
    if (!Number.isInteger(id) || id < 0 || id >= entries) {
      throw new TroveError(
        'UNAVAILABLE',
        index.ids
          ? `vector #${r} has id ${id}, but the metadata has ${entries} entries: an IndexIDMap's ids must be positions in the metadata`
          : `the index holds ${index.ntotal} vectors but the metadata only ${entries} entries: they do not belong together`,
      );
    }
    out[r] = id;
  }
  return out;
}

function groupRows(rowDoc: Int32Array, entries: MetadataEntry[]): { groupOf: Int32Array; groups: number } {
  const byPath = new Map<string, number>();
  const groupOf = new Int32Array(rowDoc.length);
  for (let r = 0; r < rowDoc.length; r++) {
    const p = entries[rowDoc[r]!]!.path;
    let g = byPath.get(p);
    if (g === undefined) byPath.set(p, (g = byPath.size));
    groupOf[r] = g;
  }
  return { groupOf, groups: byPath.size };
}

function describeScoring(index: FaissIndex, normalized: boolean, minNorm: number, maxNorm: number): string {
  if (normalized) {
    return index.metric === 'ip'
      ? 'inner product of unit vectors = cosine similarity; score = cosine clipped to 0..1'
      : 'L2 distance between unit vectors: cosine = 1 − d²/2; score = cosine clipped to 0..1';
  }
  const norms = `the stored vectors are not unit length (norms ${minNorm.toFixed(2)}–${maxNorm.toFixed(2)})`;
  return index.metric === 'ip'
    ? `${norms}: ranked by raw inner product, as the index does; score = inner product ÷ the largest norm, clipped to 0..1; similarity = the true cosine`
    : `${norms}: ranked by L2 distance, as the index does; score = 1 / (1 + d²); similarity = the true cosine`;
}

function modifiedOf(e: MetadataEntry): string | null {
  for (const k of ['modified', 'last_modified', 'updated_at', 'date']) {
    const v = e.rest[k];
    if (typeof v === 'string' && Number.isFinite(Date.parse(v))) return new Date(v).toISOString();
  }
  return null;
}

function clamp01(x: number): number {
  return Math.max(0, Math.min(1, x));
}

function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}
