// The OCR room's front: OcrEngine.recognize(job) reads the pages of an image or a PDF that need
// it and gives back their text, line by line, with each page's confidence. Pages come from the
// cache when the same file was read before with the same engine and language data; the others go
// to the worker pool, all at once (the pool spreads them over its threads). A page that cannot be
// read fails alone, with its reason; the rest go on. Nothing here touches the network: languages
// are local, verified files (languages.ts) and Tesseract is the WebAssembly build in node_modules.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Manifest } from '../embed/manifest.js';
import type { ModelLocations } from '../embed/resolver.js';
import type { OcrCache } from './cache.js';
import { checkLanguages, resolveLanguages, type ResolvedLanguage } from './languages.js';
import type { OcrSource } from './ocr-worker.js';
import { OcrPageFailed, OcrPool, type OcrPoolOptions } from './ocr-pool.js';
import { DEFAULT_OCR_LIMITS, PDF_RENDER_DPI, type OcrFailure, type OcrJob, type OcrLimits, type OcrPage, type OcrResult } from './types.js';

export interface OcrEngineOptions {
  /** The model catalogue and where models are looked for (the embedding room's: Engine.models). */
  models: { manifest: Manifest; locations: ModelLocations };
  /** Recognised pages by content hash (FileOcrCache under the profile); none: every page is read. */
  cache?: OcrCache;
  limits?: Partial<OcrLimits>;
  pool?: Partial<OcrPoolOptions>;
}

export interface RecognizeOptions {
  signal?: AbortSignal;
  /** Each page as it is done (recognised, from the cache, or failed): progress, and pages written as they come. */
  onPage?: (page: OcrPage | OcrFailure, how: { cached: boolean }) => void;
}

/** Bumped when what this room does to a page changes (rendering, settings, text assembly): cached pages are read again. */
const PIPELINE_VERSION = 1;
const CORE_VERSION = (createRequire(import.meta.url)('tesseract.js-core/package.json') as { version: string }).version;

export class OcrEngine {
  private readonly pool: OcrPool;
  private readonly limits: OcrLimits;
  private readonly languages = new Map<string, Promise<ResolvedLanguage[]>>();
  private nextSource = 0;

  constructor(private readonly opts: OcrEngineOptions) {
    this.limits = { ...DEFAULT_OCR_LIMITS, ...opts.limits };
    this.pool = new OcrPool(opts.pool);
  }

  /** OCR worker threads alive now (they start with work and leave when idle). */
  get workers(): number {
    return this.pool.workers;
  }

  async recognize(job: OcrJob, opts: RecognizeOptions = {}): Promise<OcrResult> {
    const codes = checkLanguages(job.languages, this.opts.models.manifest);
    const languages = await this.resolve(codes);
    const engine = `tesseract.js-core ${CORE_VERSION}; ${languages.map((l) => `${l.code}:${l.sha256.slice(0, 12)}`).join('+')}; psm 3, ${PDF_RENDER_DPI} dpi, v${PIPELINE_VERSION}`;
    const shared = new SharedArrayBuffer(job.bytes.byteLength);
    new Uint8Array(shared).set(job.bytes);
    const source: OcrSource = { key: `${process.pid}:${this.nextSource++}`, kind: job.kind, bytes: shared, length: job.bytes.byteLength };
    const result: OcrResult = { pages: [], failed: [], warnings: [], languages: codes, engine };
    const name = job.fileName ? `${job.fileName}: ` : '';
    try {
      let wanted = job.pages?.length ? [...new Set(job.pages)].sort((a, b) => a - b) : null;
      if (!wanted) {
        const count = await this.pool.count(source, this.limits.timePerPageMs, opts.signal).catch((err: unknown) => {
          if (err instanceof OcrPageFailed) return err;
          throw err;
        });
        if (count instanceof OcrPageFailed) {
          result.failed.push({ page: 1, reason: count.message });
          opts.onPage?.(result.failed[0]!, { cached: false });
          return result;
        }
        wanted = Array.from({ length: count }, (_, i) => i + 1);
      }
      const invalid = wanted.find((p) => !Number.isInteger(p) || p < 1);
      if (invalid !== undefined) throw new RangeError(`${name}page ${invalid} is not a page number`);
      if (wanted.length > this.limits.maxPagesPerFile) {
        result.warnings.push(`${wanted.length} pages need OCR; only the first ${this.limits.maxPagesPerFile} were read (the per-file bound)`);
        wanted = wanted.slice(0, this.limits.maxPagesPerFile);
      }
      const key = { contentSha256: job.contentSha256 ?? createHash('sha256').update(job.bytes).digest('hex'), engine };
      const cached = this.opts.cache ? await this.opts.cache.get(key) : new Map<number, OcrPage>();
      await Promise.all(wanted.map(async (n) => {
        const hit = cached.get(n);
        if (hit) {
          result.pages.push(hit);
          opts.onPage?.(hit, { cached: true });
          return;
        }
        try {
          const page = await this.pool.page(source, n, languages, this.limits, opts.signal);
          result.pages.push(page);
          await this.opts.cache?.put(key, [page]);
          opts.onPage?.(page, { cached: false });
        } catch (err) {
          if (!(err instanceof OcrPageFailed)) throw err;
          const failure = { page: n, reason: err.message };
          result.failed.push(failure);
          opts.onPage?.(failure, { cached: false });
        }
      }));
    } finally {
      this.pool.forget(source.key);
    }
    result.pages.sort((a, b) => a.page - b.page);
    result.failed.sort((a, b) => a.page - b.page);
    return result;
  }

  /** The languages checked and their data found (INVALID_INPUT for an unknown code, UNAVAILABLE naming the pull for one not installed). */
  async ready(languages?: readonly string[]): Promise<string[]> {
    const codes = checkLanguages(languages, this.opts.models.manifest);
    await this.resolve(codes);
    return codes;
  }

  /** A scan in these languages is on its way: a worker gets ready for it (languages unknown or not installed: nothing to do; its read says why). */
  async prewarm(languages: readonly string[] | undefined, pdf: boolean): Promise<void> {
    let resolved: ResolvedLanguage[];
    try {
      resolved = await this.resolve(checkLanguages(languages, this.opts.models.manifest));
    } catch {
      return;
    }
    this.pool.warm(resolved, pdf);
  }

  /** Forgets resolved language files (after a language was pulled or removed). */
  refresh(): void {
    this.languages.clear();
  }

  /** Stops the workers gracefully: each finishes its page; queued pages are refused. */
  close(): Promise<void> {
    return this.pool.close();
  }

  private resolve(codes: string[]): Promise<ResolvedLanguage[]> {
    const key = codes.join('+');
    let p = this.languages.get(key);
    if (!p) {
      p = resolveLanguages(codes, this.opts.models.manifest, this.opts.models.locations);
      this.languages.set(key, p);
      p.catch(() => this.languages.delete(key)); // a missing language may be pulled next
    }
    return p;
  }
}
