// Index runs, the progress stream and background indexing state. Types only (see collections.ts).

export interface IndexProgress {
  collection: string;
  phase: 'scanning' | 'indexing' | 'done';
  done: number;
  total: number;
  bytes: number;
  /** Files per second over the recent past (0 until measured). */
  rate?: number;
  /** Seconds left at the current rate (null while unknown). */
  etaSeconds?: number | null;
  currentFile?: string | null;
}

/** A file an index run skipped or failed, or a scan-level note, with the reason. */
export interface PathReason {
  path: string;
  reason: string;
}

export interface IndexReport {
  collection: string;
  scanned: number;
  added: number;
  updated: number;
  unchanged: number;
  renamed: number;
  removed: number;
  skipped: PathReason[];
  failed: PathReason[];
  /** Scan-level notes: unreadable folders, symlinks not followed, files gone before we read them. */
  notices: PathReason[];
  chunks: number;
  bytesRead: number;
  durationMs: number;
}

export type ProgressPhase = 'scanning' | 'indexing' | 'idle' | 'paused';

/** The one progress stream of the engine (jobs/progress.ts). */
export interface ProgressEvent {
  collection: string;
  phase: ProgressPhase;
  /** Files finished in the current run (a run starts when a collection gets work and ends when its queue is empty). */
  done: number;
  /** done + files still due. */
  total: number;
  bytes: number;
  /** Files per second over the last few seconds. */
  rate: number;
  /** Seconds left at that rate; null while unknown. */
  etaSeconds: number | null;
  currentFile: string | null;
  /** ISO time of the event. */
  at: string;
}

export interface FailureInfo {
  collection: string;
  path: string;
  reason: string;
  attempts: number;
  /** ISO time of the next attempt; null when it gave up until the file changes. */
  nextRetryAt: string | null;
}

export interface WatchState {
  collection: string;
  polling: boolean;
}

export interface CollectionActivity {
  collection: string;
  paused: boolean;
  /** Jobs waiting (due now or later). */
  queued: number;
  retrying: number;
  gaveUp: number;
  progress: ProgressEvent | null;
}

export interface IndexingStatus {
  watching: boolean;
  /** Everything paused. */
  paused: boolean;
  watchers: WatchState[];
  collections: CollectionActivity[];
}
