// The OCR stage over one collection: takes the documents whose pages only OCR can read
// (store/ocr.ts; newest first, claimed where hosts share the index), reads each file's bytes —
// only if they are still the bytes the index has (its sha256), else re-indexing has it —,
// recognises the pages (OcrEngine: the cache gives back pages read before, so a restart or a
// `trove index` from scratch never reads a page twice), and re-writes the document through the
// storage's normal index write with the text merged in (the parse worker parses it again and
// merges: ocr/merge.ts), so chunks, keyword rows and pending embeddings follow as for any change.
// A page that fails is recorded with its reason and not read again until the file changes; a
// document that cannot be read at all waits (30 s × 4ⁿ, then gives up until an explicit run).
// In the background it waits its turn before each few pages; an explicit run reads all at once.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { indexedDocument } from '../ingest/indexer.js';
import type { OcrMerge, Prepared } from '../ingest/prepare.js';
import type { CollectionRow } from '../store/collections.js';
import { keywordIndexOf } from '../store/keyword-index.js';
import { OCR_GAVE_UP, type OcrClaim, type OcrPageFailure } from '../store/ocr.js';
import type { IndexWrite, Storage } from '../store/storage.js';
import type { OcrProgress } from '../types/ocr.js';
import type { OcrEngine } from './ocr-engine.js';
import type { OcrPage } from './types.js';

/** How long a claim holds (extended while a long document is read); a dead host's documents are free after it. */
const CLAIM_MS = 5 * 60_000;
/** A long document's pages are written as they come, at most this often (each write parses the file again). */
const WRITE_EVERY_MS = 30_000;
/** How long a host waits before looking again when every document left is held by other hosts. */
const HELD_ELSEWHERE_MS = 200;
/** Progress events at most this often. */
const REPORT_EVERY_MS = 250;
/** A document that could not be read: the next attempt after 30 s, 2 min, 8 min, 32 min; then it waits for a change or an explicit run. */
const RETRY = { baseMs: 30_000, factor: 4, maxAttempts: 5 };

export interface StageDeps {
  storage: Storage;
  engine: () => OcrEngine;
  /** Parses the file again with the recognised pages merged in (ParsePool.prepare). */
  parse: (bytes: Uint8Array, path: string, ocr: OcrMerge) => Promise<Prepared>;
  /** The index changed (the engine's caches, the embedding stage). */
  changed: () => void;
  /** Pages per file read at most (OcrLimits.maxPagesPerFile): the rest fail with that reason. */
  maxPagesPerFile: number;
}

export interface ReadOptions {
  /** background: a few pages at a time, waiting its turn before each; explicit: every page at once. */
  lane: 'background' | 'explicit';
  /** Pages per turn in the background (the OCR workers' count). */
  groupPages: number;
  /** Resolves true when the next pages may start, false when the stage must stop (paused, off, closing). */
  turn: () => Promise<boolean>;
  closed: () => boolean;
  pausedNow: () => boolean;
  /** Aborted when the engine closes: queued pages are dropped. */
  signal: AbortSignal;
  onProgress: (p: OcrProgress) => void;
  /** This host's pace, for ETAs (seconds per recognised page). */
  pace: Pace;
}

/** Seconds per recognised page, smoothed: what ETAs are made of. */
export class Pace {
  private value: number | null = null;

  get secondsPerPage(): number | null {
    return this.value;
  }

  record(seconds: number, pages: number): void {
    if (pages <= 0 || seconds <= 0) return;
    const sample = seconds / pages;
    this.value = this.value === null ? sample : this.value * 0.7 + sample * 0.3;
  }

  eta(pages: number): number | null {
    return this.value === null || pages <= 0 ? null : Math.round(this.value * pages);
  }
}

type Outcome = 'written' | 'stopped' | 'skipped';

/** Reads the collection's pages; true when none is left due here, false when it was stopped first. */
export async function readCollection(deps: StageDeps, c: CollectionRow, languages: string[], opts: ReadOptions): Promise<boolean> {
  const { storage } = deps;
  const left = async () => {
    const n = (await storage.ocr.counts()).get(c.id);
    return { due: n ? n.pendingDocuments - n.deferredDocuments : 0, pages: n?.left ?? 0 };
  };
  const progress: OcrProgress = { collection: c.name, phase: 'reading', done: 0, total: (await left()).pages, recognised: 0, cached: 0, failed: 0, current: null, etaSeconds: null };
  let reportedAt = -Infinity;
  const report = (phase: OcrProgress['phase'], force = false) => {
    const now = performance.now();
    if (!force && now - reportedAt < REPORT_EVERY_MS) return;
    reportedAt = now;
    progress.phase = phase;
    progress.etaSeconds = phase === 'reading' ? opts.pace.eta(progress.total - progress.done) : null;
    opts.onProgress({ ...progress });
  };
  if (progress.total === 0) return true;
  report('reading', true);
  for (;;) {
    if (!(await opts.turn())) {
      if (opts.pausedNow()) report('paused', true);
      return false;
    }
    const now = Date.now();
    const [claim] = await storage.ocr.claim(c.id, 1, now, now + CLAIM_MS);
    if (!claim) {
      const rest = await left();
      if (rest.due === 0) break;
      await new Promise((resolve) => setTimeout(resolve, HELD_ELSEWHERE_MS)); // held by other hosts
      continue;
    }
    let outcome: Outcome;
    try {
      outcome = await readDocument(deps, c, languages, claim, opts, progress, report);
    } catch (err) {
      if (opts.closed() || opts.signal.aborted) return false; // closing: the document stays queued (its pages read so far are cached)
      await defer(storage, claim, (err as Error).message);
      outcome = 'skipped';
    }
    if (outcome === 'stopped') {
      await storage.ocr.release([claim.documentId]).catch(() => undefined);
      if (opts.pausedNow()) report('paused', true);
      return false;
    }
    const rest = await left();
    progress.total = Math.max(progress.total, progress.done + rest.pages);
    report('reading');
  }
  progress.total = Math.max(progress.total, progress.done);
  progress.current = null;
  report('done', true);
  return true;
}

async function readDocument(
  deps: StageDeps,
  c: CollectionRow,
  languages: string[],
  claim: OcrClaim,
  opts: ReadOptions,
  progress: OcrProgress,
  report: (phase: OcrProgress['phase']) => void,
): Promise<Outcome> {
  const { storage } = deps;
  const file = path.join(c.root, ...claim.path.split('/'));
  let bytes: Buffer;
  let stat: fs.Stats;
  try {
    [bytes, stat] = await Promise.all([fs.promises.readFile(file), fs.promises.stat(file)]);
  } catch (err) {
    await defer(storage, claim, `cannot read the file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    return 'skipped';
  }
  if (createHash('sha256').update(bytes).digest('hex') !== claim.hash) {
    // the file changed since it was indexed: re-indexing reads it (its write replaces this row); look again later
    await storage.ocr.defer(claim.documentId, claim.attempts, Date.now() + 60_000, null);
    return 'skipped';
  }
  progress.current = claim.path;
  const failedBefore = new Set(claim.failed.map((f) => f.page));
  let want = claim.pages.filter((p) => !failedBefore.has(p));
  const failed: OcrPageFailure[] = [...claim.failed];
  if (want.length > deps.maxPagesPerFile) {
    for (const page of want.slice(deps.maxPagesPerFile)) failed.push({ page, reason: `left out: a file is read up to ${deps.maxPagesPerFile.toLocaleString('en-US')} pages` });
    want = want.slice(0, deps.maxPagesPerFile);
  }
  // (no page left to read — each failed before, or over the bound — the document is only written)
  const groups = chunk(want, opts.lane === 'explicit' ? want.length : Math.max(1, opts.groupPages));
  const pages = new Map<number, OcrPage>();
  const warnings: string[] = [];
  let engineName = '';
  let until = Date.now() + CLAIM_MS;
  let lastWrite = performance.now();
  const hold = async () => {
    if (until - Date.now() > CLAIM_MS / 2) return;
    until = Date.now() + CLAIM_MS;
    await storage.ocr.extend([claim.documentId], until);
  };
  const engine = deps.engine();
  for (const [i, group] of groups.entries()) {
    if (i > 0 && !(await opts.turn())) return 'stopped';
    const started = performance.now();
    let recognised = 0;
    const r = await engine.recognize(
      { kind: claim.source, bytes, pages: group, languages, contentSha256: claim.hash, fileName: claim.path },
      {
        signal: opts.signal,
        onPage: (p, how) => {
          progress.done++;
          if ('reason' in p) progress.failed++;
          else if (how.cached) progress.cached++;
          else {
            progress.recognised++;
            recognised++;
          }
          report('reading');
        },
      },
    );
    opts.pace.record((performance.now() - started) / 1000, recognised);
    for (const p of r.pages) pages.set(p.page, p);
    failed.push(...r.failed);
    warnings.push(...r.warnings);
    engineName = r.engine;
    await hold();
    if (i < groups.length - 1 && performance.now() - lastWrite > WRITE_EVERY_MS) {
      // a long document: what is read so far becomes searchable now; the claim still holds it
      if (!(await write(deps, c, claim, stat, bytes, { pages, failed, warnings, engine: engineName, languages }, until))) return 'skipped';
      lastWrite = performance.now();
    }
  }
  return (await write(deps, c, claim, stat, bytes, { pages, failed, warnings, engine: engineName, languages }, 0)) ? 'written' : 'skipped';
}

interface ReadSoFar {
  pages: Map<number, OcrPage>;
  failed: OcrPageFailure[];
  warnings: string[];
  engine: string;
  languages: string[];
}

/** The document with the pages read so far merged in, through the normal index write; false when its file changed meanwhile (nothing written). */
async function write(deps: StageDeps, c: CollectionRow, claim: OcrClaim, stat: fs.Stats, bytes: Buffer, read: ReadSoFar, claimedUntil: number): Promise<boolean> {
  // the workers' paragraphs stay behind: the merge needs each page's text and confidence
  const merge: OcrMerge = {
    pages: [...read.pages.values()].map((p) => ({ page: p.page, text: p.text, confidence: p.confidence, paragraphs: [] })),
    failed: read.failed,
    warnings: read.warnings,
    engine: read.engine,
    languages: read.languages,
  };
  const prepared = await deps.parse(bytes, claim.path, merge);
  if (!prepared.ok) throw new Error(`the file could not be parsed again: ${prepared.reason}`);
  const w: IndexWrite = {
    op: 'index',
    document: indexedDocument(c.id, claim.path, { size: stat.size, mtimeMs: Math.trunc(stat.mtimeMs) }, claim.hash, prepared, ''),
    existingId: claim.documentId,
    text: prepared.text,
    chunks: prepared.chunks,
    ocr: {
      source: claim.source,
      hash: claim.hash,
      pages: claim.pages,
      done: read.pages.size,
      failed: read.failed,
      languages: read.languages.join('+'),
      queuedAt: claim.queuedAt,
      claimedUntil,
    },
  };
  const written = await deps.storage.ocr.complete(claim.documentId, claim.hash, { collectionId: c.id, index: keywordIndexOf(c.kind), at: Date.now(), writes: [w] });
  if (written) deps.changed();
  return written;
}

/** The document could not be read: the next attempt later, or none after the last (until the file changes or an explicit run). */
async function defer(storage: Storage, claim: OcrClaim, error: string): Promise<void> {
  const attempts = claim.attempts + 1;
  const nextAt = attempts >= RETRY.maxAttempts ? OCR_GAVE_UP : Date.now() + RETRY.baseMs * RETRY.factor ** (attempts - 1);
  await storage.ocr.defer(claim.documentId, attempts, nextAt, error);
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
