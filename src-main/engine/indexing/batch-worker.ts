// Works one claimed batch of the durable queue (store/storage.ts JobQueue.claim): a scan, which
// walks the folder and queues what changed, or a batch of files, read a few at a time, documents
// parsed in the worker threads, decided (ingest/batch-plan.ts) and written in the claim's one
// transaction with the jobs' retirement and the retries of the files that failed — so a kill -9 at
// any point leaves every job either done and gone or still queued, on either backend, and hosts
// sharing a queue never write the same job twice.
import fs from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { TroveError } from '../errors.js';
import { planBatch } from '../ingest/batch-plan.js';
import type { ChunkOptions } from '../ingest/chunker.js';
import { readFiles, type FileRead } from '../ingest/file-read.js';
import { assertRootReadable, parseNeeded, reconcileWith, type FileOutcome, type ReconcilePlan } from '../ingest/indexer.js';
import type { ParsePool } from '../ingest/parse-pool.js';
import type { KnownFile } from '../ingest/parse-worker.js';
import { isBinaryDocument, type Prepared } from '../ingest/prepare.js';
import type { CollectionRow } from '../store/collections.js';
import type { DocumentRow } from '../store/documents.js';
import type { JobRow } from '../store/jobs.js';
import { keywordIndexOf } from '../store/keyword-index.js';
import type { ClaimedJobs, CompleteOutcome, IndexBatch, JobRetry, Storage } from '../store/storage.js';
import type { PathFilter } from '../ingest/path-filter.js';
import { DueEstimate } from './due-estimate.js';
import type { ProgressHub } from './progress.js';
import { nextAttemptAt, type RetryPolicy } from './retry.js';

/** Scans first: they discover the work; then what the user just touched; then the rest. */
export const PRIORITY = { scan: 100, userChange: 10, reconcile: 0 } as const;

/** The job that walks a collection's folder (explicit runs queue one; so do watchers, at start and every reconcile). */
export function scanJob(collectionId: number) {
  const now = Date.now();
  return { collectionId, kind: 'scan' as const, path: '', priority: PRIORITY.scan, changedAt: now, gone: false, runAt: now };
}

const CURRENT_FILE_EVERY_MS = 200;
/** A batch with at least this many text files reads and prepares them in the parse workers. */
const TEXTS_IN_WORKERS = 32;
/**
 * How long after a search a batch's many text files stay on the engine's thread (read and prepared
 * in slices between requests) instead of going to the parse workers: with the workers, batches
 * come ready faster than a host answering searches can write them (reliability:load's search p99
 * after the first calls: 360–527 ms against 301–383). As the embedding stage, indexing takes every
 * core when nobody is searching.
 */
export const DEFAULT_TEXTS_QUIET_MS = 2_000;

export interface BatchOptions {
  chunking: ChunkOptions;
  /** The per-file limit in force now (a saved setting applies from the next batch on). */
  maxFileBytes: () => number;
  /** Documents (PDF, Office, …) per batch: their bytes and text are held until the batch is written. */
  batchDocuments: number;
  readConcurrency: number;
  retry: RetryPolicy;
  /**
   * How long a file a scan found missing waits before it leaves the index: a watched folder's
   * rename is also seen by the rescan its removal asks for, and its new half (read by another
   * batch) keeps the docid only while the old row is there. The live folders' grace, as a watcher's
   * own "gone" waits; 0 in an explicit run, which drains everything it found.
   */
  vanishedGraceMs: (collectionId: number) => number;
  /** How long after a search a batch's many text files are read here rather than in the parse workers. */
  textsQuietMs: number;
  /** These files are about to be parsed (the OCR room gets a reader ready when some may be scans). */
  willParse?: (c: CollectionRow, paths: string[]) => void;
}

/** Who hears what a batch did (an index run's report). */
export interface OutcomeListener {
  scanned?(plan: ReconcilePlan): void;
  file?(outcome: FileOutcome): void;
  /** A batch was written (or a scan's findings): the index may have changed. */
  written?(): void;
}

/** A claimed batch of files made ready to write, or given back (`stop`: no batch follows it in a series). */
type Ready =
  | { stop: true; error?: Error }
  | { stop: false; batch: JobRow[]; plan: Awaited<ReturnType<typeof planBatch>>; outcome: CompleteOutcome & { write: IndexBatch } };

export class BatchWorker {
  private readonly due: DueEstimate;
  private lastSearchAt = -Infinity;

  constructor(
    private readonly storage: Storage,
    private readonly parsers: ParsePool,
    private readonly progress: ProgressHub,
    private readonly filterFor: (c: CollectionRow) => PathFilter,
    private readonly opts: BatchOptions,
    /** The batch is gone stale (the engine closed, the collection was removed while it was read): drop it. */
    private readonly abandoned: (collectionId: number) => Promise<boolean>,
  ) {
    this.due = new DueEstimate(storage);
  }

  /** A search started: for a moment, a batch's text files are read here, between requests. */
  searched(): void {
    this.lastSearchAt = performance.now();
  }

  /** A collection's run ended (or it is gone): its due count is asked afresh next time. */
  runEnded(collectionId: number): void {
    this.due.forget(collectionId);
  }

  /** One claimed batch of a collection; returns the scan's error when its folder could not be walked. */
  async run(c: CollectionRow, claim: ClaimedJobs, listener?: OutcomeListener): Promise<Error | null> {
    return this.series(c, claim, () => Promise.resolve(null), listener);
  }

  private async scan(c: CollectionRow, claim: ClaimedJobs, listener?: OutcomeListener): Promise<Error | null> {
    const job = claim.jobs[0]!;
    this.progress.scanning(c.id, c.name);
    let plan: ReconcilePlan;
    try {
      this.filterFor(c).forgetAllGitignores();
      const known = await this.storage.documents.fingerprints(c.id);
      plan = reconcileWith(c, () => known, this.opts.maxFileBytes());
    } catch (err) {
      // a missing or unreadable root (an unplugged drive) must not empty the index: retry later
      await claim.complete({ retire: [], retry: [this.retryOf(job, (err as Error).message)] });
      return err as Error;
    }
    const goneAt = Date.now() + this.opts.vanishedGraceMs(c.id);
    const file = (path: string, changedAt: number, gone: boolean) => ({ collectionId: c.id, kind: 'file' as const, path, priority: PRIORITY.reconcile, changedAt, gone, runAt: gone ? goneAt : 0 });
    await claim.complete({
      revive: c.id,
      found: [...plan.changed.map((f) => file(f.path, f.mtimeMs, false)), ...plan.vanished.map((p) => file(p, 0, true))],
      retire: [job],
    });
    this.due.forget(c.id); // the files it found join the count
    listener?.scanned?.(plan);
    return null;
  }

  /**
   * Works one collection's claimed batches one after another, the next ones claimed and made ready
   * (read, parsed, planned, their writes staged) while one is written: on PostgreSQL the server's
   * inserts of batch N overlap the reading, parsing and keyword terms of N+1; on SQLite, whose
   * writes hold the engine's thread, the parse workers go on with the documents of the batches
   * behind it. Up to `storage.jobs.claimsAhead` batches wait behind the one written, each read as
   * soon as it is claimed. The batches still complete one at a time and in claim order; a claim's
   * jobs are never claimed twice while it is held (SQLite keeps their ids, PostgreSQL its row
   * locks). A scan is not read ahead and nothing is claimed behind it: it reads what the writes
   * before it wrote. `next` gives the next claim of the collection, or null to stop (a removal, the
   * engine closing, the run's turn ended). Returns the scan's error when the folder could not be
   * walked. Nothing is left claimed when it returns or throws.
   */
  async series(c: CollectionRow, first: ClaimedJobs, next: () => Promise<ClaimedJobs | null>, listener?: OutcomeListener): Promise<Error | null> {
    const claims = new Set<ClaimedJobs>([first]);
    /** Claimed batches not yet written, in claim order; `ready` is null for a scan. */
    const queue: { claim: ClaimedJobs; ahead: boolean; ready: Promise<Ready> | null }[] = [];
    const enqueue = (claim: ClaimedJobs, ahead: boolean) => {
      const ready = claim.jobs[0]!.kind === 'scan' ? null : this.prepare(c, claim, ahead);
      ready?.catch(() => undefined); // its failure is thrown when it comes to be written (or dropped with the run)
      queue.push({ claim, ahead, ready });
    };
    let more = true;
    /** `writing`: a batch is being written (otherwise the first one claimed is announced as it is read, as the first of all). */
    const claimAhead = async (writing: boolean): Promise<void> => {
      while (more && queue.length < this.storage.jobs.claimsAhead && queue.at(-1)?.ready !== null) {
        const claim = await next();
        if (!claim) more = false;
        else {
          claims.add(claim);
          enqueue(claim, writing || queue.length > 0);
        }
      }
    };
    /** Every claim not written goes back to the queue untouched, once its reads have ended (a completed claim's release does nothing). */
    const releaseAll = async () => {
      await Promise.allSettled(queue.flatMap((q) => (q.ready ? [q.ready] : [])));
      await Promise.all([...claims].map((cl) => cl.release().catch(() => undefined)));
    };
    let scanError: Error | null = null;
    try {
      enqueue(first, false);
      for (;;) {
        const head = queue.shift();
        if (!head) return scanError;
        if (!head.ready) {
          scanError = (await this.scan(c, head.claim, listener)) ?? scanError;
          listener?.written?.();
          await claimAhead(false); // nothing was claimed behind the scan
          continue;
        }
        const ready = await head.ready;
        // a write holds this thread: the event loop turns before each, so a search waits for one
        // write at most, not for every batch the workers made ready meanwhile
        await nextTurn();
        if (ready.stop) {
          await releaseAll();
          return ready.error ?? scanError;
        }
        // read while the batch before was written: the collection may have been removed meanwhile
        if (head.ahead && (await this.abandoned(c.id))) {
          await releaseAll();
          return scanError;
        }
        // a batch read ahead is announced now, its count taken between writes: a write's jobs are
        // then either still due or done, never both (the first one was announced before its reads)
        if (head.ahead) this.progress.batch(c.id, c.name, await this.due.of(c.id), ready.batch[0]?.path ?? null);
        const written = head.claim;
        // nothing here keeps the batch once it is written
        const writing: Promise<boolean> = this.write(c, written, ready, listener).then(() => claims.delete(written));
        // while it is written: the next batches, claimed and made ready
        const [wrote, after] = await Promise.allSettled([writing, claimAhead(true)]);
        if (wrote.status === 'rejected') throw wrote.reason;
        listener?.written?.();
        if (after.status === 'rejected') throw after.reason;
      }
    } catch (err) {
      await releaseAll();
      throw err;
    }
  }

  /**
   * Reads, parses and plans a claimed batch of files; `stop` when it was given back (the folder
   * gone, the collection removed). A batch read `ahead` (while another is written) says nothing
   * of its files yet: its progress begins when it is written.
   */
  private async prepare(c: CollectionRow, claim: ClaimedJobs, ahead: boolean): Promise<Ready> {
    const { storage, progress } = this;
    // a batch holds every document's bytes and text until it is written: at most batchDocuments of
    // them; the jobs left out stay queued for the next batch
    let documents = 0;
    const batch = claim.jobs.filter((j) => !isBinaryDocument(j.path) || documents++ < Math.max(1, this.opts.batchDocuments));
    if (!rootPresent(c.root)) {
      // the whole folder is gone (an unplugged drive, a deleted root): its files are not "deleted",
      // so nothing leaves the index; the scan reports why and retries
      await claim.release();
      const now = Date.now();
      await storage.jobs.postponeFiles(c.id, now, now + this.opts.retry.baseMs);
      await storage.jobs.addIfAbsent([scanJob(c.id)]);
      return { stop: true, error: rootError(c) };
    }
    const paths = batch.map((j) => j.path);
    const [due, known] = await Promise.all([ahead ? null : this.due.of(c.id), storage.documents.byPaths(c.id, paths)]);
    if (due !== null) progress.batch(c.id, c.name, due, paths[0] ?? null);
    const maxFileBytes = this.opts.maxFileBytes();
    const { reads, parsed } = await this.readBatch(c, paths, known, maxFileBytes, ahead);
    if (await this.abandoned(c.id)) return claim.release().then(() => ({ stop: true }));
    // documents are parsed in the workers, all of the batch's at once; the writes wait for them
    const toParse = reads.filter((r) => r.kind === 'bytes' && parseNeeded(r, known.get(r.path)));
    if (toParse.length) this.opts.willParse?.(c, toParse.map((r) => r.path));
    await Promise.all(
      toParse.map(async (r) => {
        if (r.kind !== 'bytes') return;
        parsed.set(r.path, await this.parsers.prepare(r.buf, r.path));
        if (!ahead) progress.reading(c.id, r.path);
      }),
    );
    if (await this.abandoned(c.id)) return claim.release().then(() => ({ stop: true }));
    const plan = await planBatch(storage.documents, c, reads, known, { chunking: this.opts.chunking, maxFileBytes }, parsed);
    const now = Date.now();
    const retire: JobRow[] = [];
    const retireIfApplied: { job: JobRow; write: number }[] = [];
    const retry: JobRetry[] = [];
    for (const job of batch) {
      const o = plan.outcomes.get(job.path);
      const w = plan.writeOf.get(job.path);
      const op = w === undefined ? undefined : plan.writes[w]!.op;
      if (o?.result === 'failed') retry.push(this.retryOf(job, o.reason, now));
      else if (op === 'move' || op === 'remove') retireIfApplied.push({ job, write: w! });
      else retire.push(job);
    }
    // a registered dataset's folder goes to its own keyword index (store/keyword-index.ts)
    const write = { collectionId: c.id, index: keywordIndexOf(c.kind), at: now, writes: plan.writes };
    // read ahead, its write is readied now, while the batch before is written (otherwise the write readies it as it goes)
    if (ahead) await claim.stage(write);
    return { stop: false, batch, plan, outcome: { write, retire, retireIfApplied, retry } };
  }

  /**
   * Reads a batch's files. Text files are read and prepared (parsed, chunked, put in index form) in
   * the parse workers when there are many and nobody is searching, so this thread — which writes the
   * index — only writes them; a few are read here, where they take less than a worker's round trip,
   * and so are many while searches come in (planned here in slices, they leave room for them).
   * Should a worker not answer, its files are read here after all.
   */
  private async readBatch(c: CollectionRow, paths: string[], known: ReadonlyMap<string, DocumentRow>, maxFileBytes: number, ahead: boolean): Promise<{ reads: FileRead[]; parsed: Map<string, Prepared> }> {
    const filter = this.filterFor(c);
    let lastNote = performance.now();
    const readHere = (some: readonly string[]) =>
      readFiles(
        {
          root: c.root,
          filter,
          maxFileBytes,
          known: (p) => known.get(p),
          onRead: (p) => {
            const now = performance.now();
            if (ahead || now - lastNote < CURRENT_FILE_EVERY_MS) return;
            lastNote = now;
            this.progress.reading(c.id, p);
          },
        },
        some,
        this.opts.readConcurrency,
      );
    const parsed = new Map<string, Prepared>();
    const searching = performance.now() - this.lastSearchAt < this.opts.textsQuietMs;
    if (searching || paths.filter((p) => !isBinaryDocument(p)).length < TEXTS_IN_WORKERS) return { reads: await readHere(paths), parsed };
    // the collection's rules are asked once a file: one they exclude is read here, which says why
    const texts = paths.filter((p) => !isBinaryDocument(p) && filter.wantsFile(p));
    const inText = new Set(texts);
    if (!ahead && texts.length) this.progress.reading(c.id, texts[0]!);
    const [there, here] = await Promise.all([
      this.parsers.readTexts({ root: c.root, maxFileBytes, files: texts.map((p) => ({ path: p, known: knownFile(known.get(p)) })) }),
      readHere(paths.filter((p) => !inText.has(p))),
    ]);
    const byPath = new Map(here.map((r) => [r.path, r]));
    for (const r of there ?? (await readHere(texts)).map((read) => ({ read, prepared: null }))) {
      byPath.set(r.read.path, r.read);
      if (r.prepared) parsed.set(r.read.path, r.prepared);
    }
    return { reads: paths.map((p) => byPath.get(p)!), parsed };
  }

  /** Writes a prepared batch in its claim's transaction and reports what it did; complete() is called before it first yields. */
  private async write(c: CollectionRow, claim: ClaimedJobs, ready: Extract<Ready, { stop: false }>, listener?: OutcomeListener): Promise<void> {
    const { batch, plan } = ready;
    const applied = await claim.complete(ready.outcome);
    let bytes = 0;
    let done = 0;
    for (const o of plan.outcomes.values()) {
      const w = plan.writeOf.get(o.path);
      if (w !== undefined && !applied[w]) continue; // another host moved on first: the job stays queued and runs again
      if ('bytes' in o) bytes += o.bytes;
      listener?.file?.(o);
    }
    for (const job of batch) if (!(plan.writeOf.has(job.path) && !applied[plan.writeOf.get(job.path)!])) done++;
    this.due.finished(c.id, done);
    this.progress.finished(c.id, done, bytes);
  }

  private retryOf(job: JobRow, error: string, now = Date.now()): JobRetry {
    const attempts = job.attempts + 1;
    return { job, attempts, nextRunAt: nextAttemptAt(this.opts.retry, attempts, now), error };
  }
}

/** Why the collection's folder cannot be walked (indexer.ts's words). */
function rootError(c: CollectionRow): Error {
  try {
    assertRootReadable(c);
  } catch (err) {
    return err as Error;
  }
  return new TroveError('IO', `collection "${c.name}": folder ${c.root} went away while it was indexed`); // back again meanwhile
}

/** What a worker needs of a file's row (sent to it: not the whole row). */
function knownFile(d: DocumentRow | undefined): KnownFile | undefined {
  return d && { size: d.size, mtimeMs: d.mtimeMs, status: d.status, hash: d.hash };
}

function rootPresent(root: string): boolean {
  try {
    return fs.statSync(root).isDirectory();
  } catch {
    return false;
  }
}
