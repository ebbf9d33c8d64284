// What the index keeps about the pages only OCR can read (table `ocr_documents`, one row per
// document that has such pages): written with the document by the normal index write (an 'index'
// IndexWrite's `ocr`), so a scanned PDF or an image is searchable by its text layer or name at
// once and the OCR stage (engine/ocr/ocr-stage.ts) finds its pages here, across restarts and — on
// PostgreSQL — shared between hosts by claims that expire. The row goes with its document (a
// cascade), and an index write without `ocr` drops it (the file no longer needs OCR).

/** A page OCR could not read, and why (kept until the file changes: never retried in a loop). */
export interface OcrPageFailure {
  page: number;
  reason: string;
}

/** A document's OCR state as an index write records it. */
export interface OcrWrite {
  /** Where the pages are: an image file or a PDF. */
  source: 'image' | 'pdf';
  /** sha256 of the file the pages were listed from: the stage reads them only from these bytes. */
  hash: string;
  /** Every page that needs OCR (1-based), as the parser listed them. */
  pages: readonly number[];
  /** Pages recognised so far (their text is in the document). */
  done: number;
  failed: readonly OcrPageFailure[];
  /** What the done pages were read with (`eng+deu`); null before any was. */
  languages: string | null;
  /** When the document joined the queue (newest first: a scan just added is read before an old backlog). */
  queuedAt: number;
  /** The stage writes a long document's pages as they come and keeps holding it until then (default 0: held by nobody). */
  claimedUntil?: number;
}

/** A document the stage works on next (held by this host until `claimedUntil` on a shared index). */
export interface OcrClaim {
  documentId: number;
  collectionId: number;
  path: string;
  hash: string;
  source: 'image' | 'pdf';
  pages: number[];
  failed: OcrPageFailure[];
  attempts: number;
  queuedAt: number;
}

/** Pages of one collection, for status ("OCR: 12 of 40 pages"). */
export interface OcrCounts {
  documents: number;
  pages: number;
  done: number;
  failed: number;
  /** Pages not read yet. */
  left: number;
  /** Documents with pages left. */
  pendingDocuments: number;
  /** Of those, documents waiting after a failure to read them at all (next attempt later, or given up). */
  deferredDocuments: number;
}

/** A document with pages OCR could not read, or that could not be read at all. */
export interface OcrFailureRow {
  collectionId: number;
  path: string;
  failed: OcrPageFailure[];
  /** Why the document itself could not be read last time (null: it was). */
  error: string | null;
  attempts: number;
  /** Next attempt (ms), null: none planned (done, or given up until the file changes or an explicit run). */
  nextAt: number | null;
}

/** next_at of a document that gave up: never due until an explicit run or a change of the file. */
export const OCR_GAVE_UP = Number.MAX_SAFE_INTEGER;

export function pagesLeft(w: Pick<OcrWrite, 'pages' | 'done' | 'failed'>): number {
  return Math.max(0, w.pages.length - w.done - w.failed.length);
}
