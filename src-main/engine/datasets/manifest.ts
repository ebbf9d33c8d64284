// A dataset's manifest.json: read, checked and turned into a reason a person can act on. The rules
// are the dataset-registry spec's (id ^[a-z0-9-]+$ 1..64, name 1..128, description 1..512, no
// whitespace-only strings, defaultTopK 1..100 default 5, a readable JSON file under 10 KB) plus two
// optional fields of Trove's own: `model` (the embedding model a FAISS index's vectors came from,
// since a query must be embedded the same way; when a manifest written as the spec shows it has
// none, loading infers it: model-check.ts) and `kind` ("faiss", the default, or "folder": `index`
// is then a folder of documents Trove indexes itself).
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { errorCode } from '../ingest/scan.js';

export const MANIFEST_FILE = 'manifest.json';
export const MAX_MANIFEST_BYTES = 10 * 1024;
export const DEFAULT_TOP_K = 5;

const required = (what: string) => ({ error: (iss: { input: unknown }) => (iss.input === undefined ? `${what} is required` : `${what} must be a string`) });

function text(what: string, max: number) {
  return z
    .string(required(what))
    .min(1, `${what} is empty`)
    .max(max, `${what} is longer than ${max} characters`)
    .refine((s) => !s || s.trim().length > 0, `${what} is only whitespace`);
}

export const manifestSchema = z
  .object({
    id: z
      .string(required('id'))
      .min(1, 'id is empty')
      .max(64, 'id is longer than 64 characters')
      .regex(/^[a-z0-9-]+$/, 'id may only hold lowercase letters, digits and hyphens'),
    name: text('name', 128),
    description: text('description', 512),
    index: text('index', 4096),
    metadata: text('metadata', 4096).optional(),
    defaultTopK: z
      .number({ error: 'defaultTopK must be a number' })
      .int('defaultTopK must be a whole number')
      .min(1, 'defaultTopK must be at least 1')
      .max(100, 'defaultTopK must be at most 100')
      .default(DEFAULT_TOP_K),
    model: text('model', 200).optional(),
    kind: z.enum(['faiss', 'folder'], { error: 'kind must be "faiss" or "folder"' }).default('faiss'),
  })
  .superRefine((m, ctx) => {
    if (m.kind !== 'faiss') return;
    if (m.metadata === undefined) ctx.addIssue({ code: 'custom', path: ['metadata'], message: 'metadata is required (the JSON file of the documents, in vector order)' });
  });

export type DatasetManifest = z.output<typeof manifestSchema>;

/** What a manifest says about itself even when it is invalid (so the list can show it). */
export interface ManifestLabel {
  id: string;
  name: string;
  description: string;
  defaultTopK: number;
}

export type ManifestRead =
  | { ok: true; manifest: DatasetManifest; raw: string; label: ManifestLabel }
  | { ok: false; reason: string; raw: string | null; label: ManifestLabel };

/** Reads and validates one manifest.json; never throws. */
export function readManifest(file: string): ManifestRead {
  const fallback: ManifestLabel = { id: path.basename(path.dirname(file)), name: path.basename(path.dirname(file)), description: '', defaultTopK: DEFAULT_TOP_K };
  let raw: string;
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) return { ok: false, reason: `${MANIFEST_FILE} is not a file`, raw: null, label: fallback };
    if (st.size >= MAX_MANIFEST_BYTES) {
      return { ok: false, reason: `the manifest is ${st.size} bytes; a manifest must be smaller than 10 KB (${MAX_MANIFEST_BYTES} bytes)`, raw: null, label: fallback };
    }
    raw = fs.readFileSync(file, 'utf8');
  } catch (err) {
    return { ok: false, reason: `the manifest cannot be read (${errorCode(err)})`, raw: null, label: fallback };
  }
  let json: unknown;
  try {
    json = JSON.parse(raw.replace(/^\uFEFF/, ''));
  } catch (err) {
    return { ok: false, reason: `the manifest is not valid JSON: ${(err as Error).message}`, raw, label: fallback };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { ok: false, reason: 'the manifest must be a JSON object', raw, label: fallback };
  }
  const label = labelOf(json as Record<string, unknown>, fallback);
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    const reasons = [...new Set(parsed.error.issues.map((i) => i.message))];
    return { ok: false, reason: `invalid manifest: ${reasons.join('; ')}`, raw, label };
  }
  return { ok: true, manifest: parsed.data, raw, label };
}

function labelOf(o: Record<string, unknown>, fallback: ManifestLabel): ManifestLabel {
  const str = (v: unknown, max: number) => (typeof v === 'string' && v.trim() ? v.slice(0, max) : null);
  const topK = typeof o.defaultTopK === 'number' && Number.isInteger(o.defaultTopK) && o.defaultTopK >= 1 && o.defaultTopK <= 100 ? o.defaultTopK : DEFAULT_TOP_K;
  return {
    id: str(o.id, 64) ?? fallback.id,
    name: str(o.name, 128) ?? fallback.name,
    description: str(o.description, 512) ?? '',
    defaultTopK: topK,
  };
}

/**
 * Where a manifest's relative path points: as in the spec's example ("./datasets/<id>/docs.index",
 * against the project root — the folder holding the datasets/ folder the manifest is in, at any
 * depth), else against the manifest's own folder. The first that exists wins; `tried` lists both
 * for the error when neither does.
 */
export function resolveDatasetPath(value: string, manifestFile: string): { path: string | null; tried: string[] } {
  if (path.isAbsolute(value)) return { path: fs.existsSync(value) ? value : null, tried: [value] };
  const own = path.dirname(manifestFile);
  const holder = projectRootOf(own);
  const tried = [...new Set([...(holder ? [path.resolve(holder, value)] : []), path.resolve(own, value)])];
  return { path: tried.find((p) => fs.existsSync(p)) ?? null, tried };
}

/** The folder holding the nearest datasets/ folder above a manifest's own (a few levels up at most), or null. */
function projectRootOf(manifestDir: string): string | null {
  let dir = path.dirname(manifestDir);
  for (let up = 0; up < 6; up++) {
    if (path.basename(dir) === 'datasets') return path.dirname(dir);
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
  return null;
}
