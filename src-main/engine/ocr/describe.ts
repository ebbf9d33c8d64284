// How far OCR has come, in words: `trove status`, the MCP status tool and the app read the same
// sentence ("OCR: 12 of 40 pages, about 2 min left"), as they do for embeddings (embed/describe.ts).
import { formatDuration } from '../embed/describe.js';
import type { OcrCounts } from '../store/ocr.js';
import type { BackgroundOcr, CollectionOcrStatus } from '../types/ocr.js';

const count = (n: number) => n.toLocaleString('en-US');

/** Why the background stage is not reading now, as a clause; null when it is (or may). */
function stateClause(bg: BackgroundOcr, paused: boolean): string | null {
  if (!bg.enabled) return bg.source === 'saved' ? 'switched off in Settings' : 'read by `trove index` or a running host (`trove serve`, the app)';
  if (paused || bg.state === 'paused') return 'paused with indexing';
  return null;
}

/** One collection: "OCR: 12 of 40 pages, about 2 min left" (read or failed, of all), or what stops it. */
export function describeCollectionOcr(n: OcrCounts, eta: number | null, problem: string | null, bg: BackgroundOcr, paused: boolean): string {
  const read = n.done + n.failed;
  const failed = n.failed ? ` (${count(n.failed)} could not be read: \`trove failures\`)` : '';
  if (n.left === 0) return `OCR: ${count(n.done)} of ${count(n.pages)} page${n.pages === 1 ? '' : 's'} read${failed}`;
  const parts = [`OCR: ${count(read)} of ${count(n.pages)} page${n.pages === 1 ? '' : 's'}${failed}`];
  const why = problem ? `cannot read now: ${problem}` : stateClause(bg, paused);
  if (why) parts.push(why);
  else if (eta !== null) parts.push(`about ${formatDuration(eta)} left`);
  else if (n.deferredDocuments === n.pendingDocuments) parts.push('waiting to try again');
  return parts.join(', ');
}

/** Every collection: "OCR: 12 of 40 pages, …; background OCR is running". */
export function describeOcr(collections: readonly CollectionOcrStatus[], bg: BackgroundOcr): string {
  if (!collections.length) return 'OCR: no scanned pages';
  const pages = collections.reduce((n, c) => n + c.pages, 0);
  const read = collections.reduce((n, c) => n + c.done + c.failed, 0);
  const left = collections.reduce((n, c) => n + c.left, 0);
  const head = `OCR: ${count(read)} of ${count(pages)} scanned page${pages === 1 ? '' : 's'} read`;
  if (!left) return head;
  switch (bg.state) {
    case 'reading':
      return `${head}; background OCR is running`;
    case 'waiting':
      return `${head}; background OCR resumes when indexing and searches are quiet`;
    case 'paused':
      return `${head}; background OCR is paused with indexing`;
    case 'idle':
      return head;
    case 'off':
      return `${head}; ${bg.source === 'saved' ? 'OCR is switched off in Settings' : 'this process does not read scans in the background (`trove index` and running hosts do)'}`;
  }
}
