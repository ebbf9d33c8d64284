// Recognised pages kept by the file's content hash, so an unchanged file is never recognised
// twice (a rename, a re-index, a restart, a second collection holding the same scan). The key
// also holds what made the text (engine build, language data digests, settings: OcrResult.engine),
// so new language data or a new engine reads the page again. A small interface, so phase 2 can
// keep it in the database instead; FileOcrCache keeps one JSON file per file and engine under
// `<profile>/ocr-cache/`, bounded in bytes (the least recently used go first).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { OcrPage } from './types.js';

export interface OcrCacheKey {
  /** sha256 of the file's bytes. */
  contentSha256: string;
  /** What made the text (OcrResult.engine). */
  engine: string;
}

export interface OcrCache {
  /** The pages recognised before for this key (any subset of the file's pages). */
  get(key: OcrCacheKey): Promise<Map<number, OcrPage>>;
  /** Adds recognised pages to the key's entry. */
  put(key: OcrCacheKey, pages: OcrPage[]): Promise<void>;
}

interface Entry {
  contentSha256: string;
  engine: string;
  pages: OcrPage[];
}

export const DEFAULT_OCR_CACHE_BYTES = 256 * 1024 * 1024;

export class FileOcrCache implements OcrCache {
  private size: number | null = null;

  /** `dir` is `<profile>/ocr-cache` (created on the first write, 0700 like the profile). */
  constructor(private readonly dir: string, private readonly maxBytes = DEFAULT_OCR_CACHE_BYTES) {}

  async get(key: OcrCacheKey): Promise<Map<number, OcrPage>> {
    const file = this.fileFor(key);
    let entry: Entry;
    try {
      entry = JSON.parse(await fs.promises.readFile(file, 'utf8')) as Entry;
    } catch {
      return new Map(); // missing, or damaged (a crash mid-write cannot leave one: writes are renamed into place)
    }
    if (entry.contentSha256 !== key.contentSha256 || entry.engine !== key.engine || !Array.isArray(entry.pages)) return new Map();
    const now = new Date();
    await fs.promises.utimes(file, now, now).catch(() => undefined); // recently used: evicted last
    return new Map(entry.pages.map((p) => [p.page, p]));
  }

  /** Writes to one file, one after the other (pages of a file finish on several workers at once). */
  private readonly writing = new Map<string, Promise<void>>();

  put(key: OcrCacheKey, pages: OcrPage[]): Promise<void> {
    if (!pages.length) return Promise.resolve();
    const file = this.fileFor(key);
    const next = (this.writing.get(file) ?? Promise.resolve()).then(() => this.write(file, key, pages));
    const settled = next.catch(() => undefined);
    this.writing.set(file, settled);
    void settled.then(() => {
      if (this.writing.get(file) === settled) this.writing.delete(file);
    });
    return next;
  }

  private async write(file: string, key: OcrCacheKey, pages: OcrPage[]): Promise<void> {
    const merged = await this.get(key);
    for (const p of pages) merged.set(p.page, p);
    const entry: Entry = { ...key, pages: [...merged.values()].sort((a, b) => a.page - b.page) };
    const text = JSON.stringify(entry);
    await fs.promises.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const before = await fs.promises.stat(file).then((s) => s.size, () => 0);
    const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    await fs.promises.writeFile(tmp, text, { mode: 0o600 });
    await fs.promises.rename(tmp, file);
    this.size = (await this.currentSize()) - before + Buffer.byteLength(text);
    if (this.size > this.maxBytes) await this.evict(file);
  }

  private fileFor(key: OcrCacheKey): string {
    if (!/^[0-9a-f]{64}$/.test(key.contentSha256)) throw new Error('an OCR cache key needs the sha256 of the file');
    const engine = createHash('sha256').update(key.engine).digest('hex').slice(0, 16);
    return path.join(this.dir, `${key.contentSha256}-${engine}.json`);
  }

  private async entries(): Promise<{ file: string; size: number; used: number }[]> {
    const names = await fs.promises.readdir(this.dir).catch(() => [] as string[]);
    const out: { file: string; size: number; used: number }[] = [];
    for (const name of names) {
      if (!name.endsWith('.json')) continue;
      const file = path.join(this.dir, name);
      const st = await fs.promises.stat(file).catch(() => null);
      if (st) out.push({ file, size: st.size, used: st.mtimeMs });
    }
    return out;
  }

  private async currentSize(): Promise<number> {
    this.size ??= (await this.entries()).reduce((n, e) => n + e.size, 0);
    return this.size;
  }

  /** Drops the least recently used entries until the cache is under 90% of its bound (never `keep`, just written). */
  private async evict(keep: string): Promise<void> {
    const all = (await this.entries()).sort((a, b) => a.used - b.used);
    let size = all.reduce((n, e) => n + e.size, 0);
    for (const e of all) {
      if (size <= this.maxBytes * 0.9) break;
      if (e.file === keep) continue;
      await fs.promises.rm(e.file, { force: true });
      size -= e.size;
    }
    this.size = size;
  }
}
