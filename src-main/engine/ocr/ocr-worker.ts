// Entry of an OCR worker thread: decodes or renders one page at a time and recognises it with its
// own Tesseract instance. Its thread is niced on Linux (niceness is per thread there, and all the
// work runs on this thread), so searches and indexing on the other threads win the CPU. A page's
// failure is a reply, never a crash; a page that runs too long is the pool's to stop (it
// terminates the thread: plain JavaScript and WebAssembly, safe to stop anywhere). It exits through
// the 'close' message after releasing Tesseract.
import { parentPort, workerData } from 'node:worker_threads';
import type { PdfRaster as PdfRasterType } from './pdf-raster.js';
import type { LanguageFile, Tesseract as TesseractType } from './tesseract.js';
import type { OcrLimits, OcrPage, OcrSourceKind } from './types.js';
import { lowerThreadPriority } from '../worker-script.js';

export interface OcrWorkerInit {
  /** Lower this thread's priority by this much (Linux). */
  nice: number;
}

/** The file a request is about: its bytes are shared, not copied, with every worker that reads it. */
export interface OcrSource {
  /** Identifies the file across requests, so a worker keeps a PDF open while it reads its pages. */
  key: string;
  kind: OcrSourceKind;
  bytes: SharedArrayBuffer;
  length: number;
}

export type OcrWorkerRequest =
  | { op: 'count'; id: number; source: OcrSource }
  | { op: 'page'; id: number; source: OcrSource; page: number; languages: LanguageFile[]; limits: Pick<OcrLimits, 'maxPixelsPerPage'> }
  | { op: 'forget'; key: string }
  /** Get ready for a scan on its way (loaded before its bytes arrive): its languages, and PDFium for a PDF. No reply. */
  | { op: 'warm'; languages: LanguageFile[]; pdf: boolean }
  | { op: 'close' };

export type OcrWorkerReply =
  | { ready: true }
  | { ready: false; error: string }
  | { id: number; pages: number }
  | { id: number; page: OcrPage }
  | { id: number; error: string };

const port = parentPort!;
const init = workerData as OcrWorkerInit;

lowerThreadPriority(init.nice);

// the decoders, PDFium and Tesseract load only now, on the niced thread: loading them is work too
// (a worker warmed ahead of a scan loads while indexing parses the file)
const [{ decodeImagePage, imagePageCount, ImageError }, { loadPdfium }, { PdfPageError, PdfRaster }, { Tesseract }] = await Promise.all([
  import('./image-decode.js'),
  import('../ingest/parsers/pdfium.js'),
  import('./pdf-raster.js'),
  import('./tesseract.js'),
]);

let tesseract: TesseractType | null = null;
try {
  tesseract = await Tesseract.load();
  port.postMessage({ ready: true } satisfies OcrWorkerReply);
} catch (err) {
  port.postMessage({ ready: false, error: `cannot start Tesseract: ${(err as Error).message}` } satisfies OcrWorkerReply);
  port.close();
}

/** The PDF being read (one at a time: pages of one file arrive together). */
let open: { key: string; pdf: Promise<PdfRasterType> } | null = null;

function pdfFor(source: OcrSource): Promise<PdfRasterType> {
  if (open?.key === source.key) return open.pdf;
  void forget();
  const pdf = PdfRaster.open(new Uint8Array(source.bytes, 0, source.length));
  pdf.catch(() => undefined); // a broken PDF is reported by whoever awaits it
  open = { key: source.key, pdf };
  return pdf;
}

async function forget(key?: string): Promise<void> {
  if (!open || (key && open.key !== key)) return;
  const was = open.pdf;
  open = null;
  await was.then((p) => p.close()).catch(() => undefined);
}

async function warm(msg: Extract<OcrWorkerRequest, { op: 'warm' }>): Promise<void> {
  try {
    tesseract?.use(msg.languages);
    if (msg.pdf) await loadPdfium();
  } catch {
    /* the page that needs it fails with the reason */
  }
}

async function handle(msg: Exclude<OcrWorkerRequest, { op: 'forget' | 'warm' | 'close' }>): Promise<OcrWorkerReply> {
  const bytes = new Uint8Array(msg.source.bytes, 0, msg.source.length);
  try {
    if (msg.op === 'count') {
      const pages = msg.source.kind === 'pdf' ? (await pdfFor(msg.source)).pageCount : (await imagePageCount(bytes)).pages;
      return { id: msg.id, pages };
    }
    const image = msg.source.kind === 'pdf' ? await (await pdfFor(msg.source)).render(msg.page, msg.limits) : await decodeImagePage(bytes, msg.page, msg.limits);
    tesseract!.use(msg.languages);
    return { id: msg.id, page: tesseract!.recognize(msg.page, image) };
  } catch (err) {
    const known = err instanceof ImageError || err instanceof PdfPageError;
    return { id: msg.id, error: known ? (err as Error).message : `recognition failed: ${(err as Error).message}` };
  }
}

// one request at a time, in order: Tesseract is not re-entrant
let chain = Promise.resolve();
port.on('message', (msg: OcrWorkerRequest) => {
  chain = chain.then(async () => {
    if (msg.op === 'close') {
      await forget();
      tesseract?.end();
      port.close();
      return;
    }
    if (msg.op === 'forget') return forget(msg.key);
    if (msg.op === 'warm') return warm(msg);
    port.postMessage(await handle(msg));
  });
});
