// The engine's OCR side over the storage interface: the stage (ocr-stage.ts) run in the background
// by hosts — on the embedding stage's runner and policy (embed/stage-runner.ts, background.ts): on
// unless the host says not or the Settings switch is off, paused with indexing, keyword indexing
// first, giving way to searches, resumable since its queue is rows — and on request by one-shot
// commands after the text of everything is written (`trove index`, `collection add`). It owns the
// OCR engine (workers start with work) and the page cache under the profile; a document is parsed
// again with its pages merged in by indexing's parse workers (warm: they have just read the file).
// What status says per collection is here.
import path from 'node:path';
import { BackgroundPolicy } from '../embed/background.js';
import type { Manifest } from '../embed/manifest.js';
import type { ModelLocations } from '../embed/resolver.js';
import { StageRunner, type StageCollection } from '../embed/stage-runner.js';
import { documentParserFor } from '../ingest/parsers/index.js';
import type { OcrMerge, Prepared } from '../ingest/prepare.js';
import type { CollectionRow } from '../store/collections.js';
import type { Storage } from '../store/storage.js';
import type { BackgroundOcr, CollectionOcrStatus, FailureInfo, OcrProgress, OcrStatusReport } from '../types/index.js';
import { DEFAULT_OCR_CACHE_BYTES, FileOcrCache } from './cache.js';
import { describeCollectionOcr, describeOcr } from './describe.js';
import { DEFAULT_OCR_LANGUAGES } from './languages.js';
import { OcrEngine } from './ocr-engine.js';
import { DEFAULT_OCR_POOL, type OcrPoolOptions } from './ocr-pool.js';
import { Pace, readCollection } from './ocr-stage.js';
import { DEFAULT_OCR_LIMITS, type OcrLimits } from './types.js';

export interface OcrOptions {
  /** Read scans in the background (hosts; `--no-ocr` turns it off). One-shot commands read them on request. */
  auto?: boolean;
  limits?: Partial<OcrLimits>;
  pool?: Partial<OcrPoolOptions>;
  /** No new page starts within this long of a search (default 100 ms, as background embedding). */
  searchQuietMs?: number;
  /** The page cache's bound under `<profile>/ocr-cache` (default 256 MB). */
  cacheBytes?: number;
}

export interface OcrDeps {
  storage: Storage;
  profileDir: string;
  models: { manifest: Manifest; locations: ModelLocations };
  /** Parses a file again with recognised pages merged in (indexing's parse pool). */
  parse: (bytes: Uint8Array, path: string, ocr: OcrMerge) => Promise<Prepared>;
  /** The saved switch (null: the default, on). */
  saved: () => boolean | null;
  paused: () => ReadonlySet<number>;
  indexingBusy: () => boolean;
  /** The stage re-wrote a document (the engine's caches and the embedding stage hear it). */
  changed: () => void;
}

export class OcrService {
  private engine: OcrEngine | null = null;
  private readonly policy: BackgroundPolicy;
  private readonly runner: StageRunner;
  private readonly pace = new Pace();
  private readonly listeners = new Set<(p: OcrProgress) => void>();
  /** Why the stage could not read a collection last time (a language not installed …). */
  private readonly problems = new Map<string, string>();
  private readonly stopping = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly deps: OcrDeps,
    private readonly opts: OcrOptions = {},
  ) {
    this.policy = new BackgroundPolicy({ allowed: opts.auto ?? false, saved: deps.saved, paused: deps.paused, indexingBusy: deps.indexingBusy }, { searchQuietMs: opts.searchQuietMs ?? 100 });
    this.runner = new StageRunner({
      label: 'OCR stage',
      collections: async () => (await deps.storage.ocr.counts()).size ? this.fileCollections() : [],
      embedCollection: (c, explicit, stop) => this.readOne(c, explicit, stop),
      policy: this.policy,
    });
    if (opts.auto) this.changed(); // a host that opens reads what earlier runs left
  }

  /** The languages checked and installed (the collection add and the languages setting check them first). */
  ready(languages: readonly string[] | undefined): Promise<string[]> {
    return this.ocr().ready(languages);
  }

  /** The index, a pause, a setting or the languages changed: the background stage looks for work. */
  changed(): void {
    if (this.closed) return;
    this.policy.wake();
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.runner.kick();
    }, 300);
  }

  /** A language was pulled or removed: resolved again, and collections that lacked one are tried again. */
  languagesChanged(): void {
    this.engine?.refresh();
    this.problems.clear();
    this.changed();
  }

  searched(): void {
    this.policy.searched();
  }

  /**
   * Indexing is about to parse these files: when any may be a scan (an image, a PDF) and the
   * background stage may read it, an OCR worker starts loading now, while the file is parsed,
   * instead of after (the first scan on an idle host paid ~2 s for it). A text PDF wastes that
   * start; the worker leaves after its idle spell.
   */
  willParse(c: CollectionRow, paths: readonly string[]): void {
    if (this.closed || !this.opts.auto || !this.policy.mayRun(c.id)) return;
    const kinds = new Set(paths.map((p) => documentParserFor(p)?.kind));
    const pdf = kinds.has('pdf');
    if (!pdf && !kinds.has('image')) return;
    void this.ocr().prewarm(c.ocrLanguages ?? undefined, pdf).catch(() => undefined);
  }

  busy(): boolean {
    return this.runner.busy() || this.timer !== null;
  }

  onProgress(listener: (p: OcrProgress) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Reads these collections' pages now (every OCR worker, pauses or not) and says where each
   * stands; documents that gave up are tried again. Nothing is read when OCR is switched off in
   * Settings: each status says so.
   */
  async readNow(targets: readonly CollectionRow[], onProgress?: (p: OcrProgress) => void): Promise<CollectionOcrStatus[]> {
    if (this.deps.saved() === false) {
      for (const c of targets) this.problems.set(c.name, 'OCR is switched off in Settings');
    } else {
      for (const c of targets) {
        this.problems.delete(c.name);
        await this.deps.storage.ocr.makeDue(c.id);
      }
      const names = new Set(targets.map((c) => c.name));
      const off = onProgress ? this.onProgress((p) => names.has(p.collection) && onProgress(p)) : () => undefined;
      try {
        await this.runner.request(targets.map((c) => c.id));
      } finally {
        off();
      }
    }
    const report = await this.statusReport(targets);
    const statuses = report.collections;
    if (this.deps.saved() === false) for (const c of targets) this.problems.delete(c.name);
    return statuses;
  }

  background(): BackgroundOcr {
    const { enabled, source } = this.policy.enabled();
    if (!enabled) return { enabled, source, state: 'off' };
    if (this.policy.paused()) return { enabled, source, state: 'paused' };
    const reading = this.runner.fillingInBackground;
    if (reading !== null && !this.policy.paused(reading)) return { enabled, source, state: this.policy.waiting ? 'waiting' : 'reading' };
    return { enabled, source, state: this.runner.busy() || this.timer ? 'waiting' : 'idle' };
  }

  async statusReport(visible: readonly CollectionRow[]): Promise<OcrStatusReport> {
    const counts = await this.deps.storage.ocr.counts();
    const bg = this.background();
    const collections: CollectionOcrStatus[] = [];
    for (const c of visible) {
      const n = counts.get(c.id);
      if (!n) continue;
      const eta = n.left > 0 ? this.pace.eta(n.left) : null;
      const problem = this.problems.get(c.name) ?? null;
      collections.push({
        collection: c.name,
        languages: c.ocrLanguages ?? [...DEFAULT_OCR_LANGUAGES],
        pages: n.pages,
        done: n.done,
        failed: n.failed,
        left: n.left,
        documents: n.documents,
        pendingDocuments: n.pendingDocuments,
        etaSeconds: eta,
        problem,
        summary: describeCollectionOcr(n, eta, problem, bg, this.policy.paused(c.id)),
      });
    }
    const idle = bg.state === 'idle' && collections.some((c) => c.left > 0 && !c.problem) ? { ...bg, state: 'waiting' as const } : bg;
    return { background: idle, collections, summary: describeOcr(collections, idle) };
  }

  /** Pages OCR could not read, and documents it could not read at all, as the failures list shows them. */
  async failures(collections: readonly CollectionRow[], limit = 500): Promise<FailureInfo[]> {
    const names = new Map(collections.map((c) => [c.id, c.name]));
    const only = collections.length === 1 ? collections[0]!.id : undefined;
    const out: FailureInfo[] = [];
    for (const r of await this.deps.storage.ocr.failures(only, limit)) {
      const collection = names.get(r.collectionId);
      if (collection === undefined) continue;
      if (r.error) out.push({ collection, path: r.path, reason: `OCR: ${r.error}`, attempts: r.attempts, nextRetryAt: r.nextAt === null ? null : new Date(r.nextAt).toISOString() });
      for (const f of r.failed) out.push({ collection, path: r.path, reason: `OCR could not read page ${f.page}: ${f.reason}`, attempts: 1, nextRetryAt: null });
    }
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.stopping.abort(new Error('the engine is closing')); // queued pages dropped; those on a worker finish
    await this.runner.close();
    await this.engine?.close();
  }

  private async readOne(s: StageCollection, explicit: boolean, stop: () => boolean): Promise<boolean> {
    const c = await this.deps.storage.collections.byId(s.id);
    if (!c || this.closed) return true;
    let languages: string[];
    try {
      languages = await this.ready(c.ocrLanguages ?? undefined);
    } catch (err) {
      this.problems.set(c.name, (err as Error).message);
      return false;
    }
    this.problems.delete(c.name);
    const workers = this.opts.pool?.workers ?? DEFAULT_OCR_POOL.workers;
    return readCollection(
      {
        storage: this.deps.storage,
        engine: () => this.ocr(),
        parse: this.deps.parse,
        changed: this.deps.changed,
        maxPagesPerFile: this.opts.limits?.maxPagesPerFile ?? DEFAULT_OCR_LIMITS.maxPagesPerFile,
      },
      c,
      languages,
      {
        lane: explicit ? 'explicit' : 'background',
        groupPages: workers,
        turn: explicit ? () => Promise.resolve(!stop()) : () => this.policy.turn(stop),
        closed: () => this.closed,
        pausedNow: () => !explicit && !this.closed && !this.policy.mayRun(c.id),
        signal: this.stopping.signal,
        pace: this.pace,
        onProgress: (p) => {
          for (const l of this.listeners) l(p);
        },
      },
    );
  }

  /** Collections with files (folders, folder datasets), for the runner. */
  private async fileCollections(): Promise<StageCollection[]> {
    return (await this.deps.storage.collections.list(['folder', 'dataset'])).map((c) => ({ id: c.id, name: c.name }));
  }

  private ocr(): OcrEngine {
    this.engine ??= new OcrEngine({
      models: this.deps.models,
      cache: new FileOcrCache(path.join(this.deps.profileDir, 'ocr-cache'), this.opts.cacheBytes ?? DEFAULT_OCR_CACHE_BYTES),
      limits: this.opts.limits,
      pool: this.opts.pool,
    });
    return this.engine;
  }
}
