// Text from scans: the OCR stage's progress, what status says per collection, and how a hit says
// its text was recognised. Types only (see collections.ts).

/** One run of the OCR stage over a collection (an explicit run, or the background's). */
export interface OcrProgress {
  collection: string;
  /** reading: at work; paused: stopped with indexing or turned off before the end; done: nothing left. */
  phase: 'reading' | 'paused' | 'done';
  /** Pages read in this run: recognised, from the cache, or failed. */
  done: number;
  /** Pages this run has to read (grows when more arrive meanwhile). */
  total: number;
  /** Of `done`: recognised here, taken from the cache (read before), and failed. */
  recognised: number;
  cached: number;
  failed: number;
  /** The file being read now (relative to the collection's folder). */
  current: string | null;
  /** Seconds until the run is done at this host's pace; null when unknown. */
  etaSeconds: number | null;
}

/**
 * The background OCR stage of this engine: on or off (the host's option, the saved setting, the
 * default), and what it is doing. Like background embedding, and paused with indexing.
 */
export interface BackgroundOcr {
  enabled: boolean;
  source: 'option' | 'saved' | 'default';
  /** reading: at work; waiting: indexing or searches go first; paused: with indexing; idle: nothing left; off: not enabled. */
  state: 'reading' | 'waiting' | 'paused' | 'idle' | 'off';
}

/** One collection's scanned pages. */
export interface CollectionOcrStatus {
  collection: string;
  /** Tesseract codes its scans are read in. */
  languages: string[];
  /** Pages that need OCR in all, read (recognised), failed (with reasons: `trove failures`), and still to read. */
  pages: number;
  done: number;
  failed: number;
  left: number;
  /** Documents with pages that need OCR, and those with pages left. */
  documents: number;
  pendingDocuments: number;
  /** Seconds until its pages are read at this host's pace; null when unknown or nothing is left. */
  etaSeconds: number | null;
  /** Why the stage cannot read it now (a language not installed, …); null: nothing wrong. */
  problem: string | null;
  /** "OCR: 12 of 40 pages, about 2 min left". */
  summary: string;
}

export interface OcrStatusReport {
  background: BackgroundOcr;
  /** Collections with pages that need OCR (others are left out). */
  collections: CollectionOcrStatus[];
  summary: string;
}

/** A hit whose best chunk is recognised text: an assistant should allow for recognition errors. */
export interface OcrHitInfo {
  /** Tesseract's confidence in the page's words, 0–100. */
  confidence: number;
}
