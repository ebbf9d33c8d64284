// PDFium (the PDF engine of Chromium, compiled to WebAssembly by @embedpdf/pdfium) behind the few
// calls Trove makes: open a document from bytes, its metadata and page labels, each page's
// characters as text items in content order (a run of glyphs on one baseline in one size: its
// origin, advance and matrix, the items pdf-layout.ts orders), whether a page draws an image, and
// for OCR (ocr/pdf-raster.ts) a page rendered in grey or its only image's pixels. The module is
// loaded once per thread; its exports are called directly, not through ccall, because a page
// makes a few calls per character. Its heap may not grow past MAX_WASM_BYTES (the parse worker's
// JavaScript heap limit does not cover WebAssembly memory); WebAssembly memory only grows, so after
// a document that grew it past MAX_HEAP_BYTES, or a trap (an abort leaves an instance unusable),
// the instance is dropped and the next document gets a fresh one.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { TextItemLike } from './pdf-layout.js';

/** The raw exports used here (C signatures: handles and pointers are numbers). */
interface Pdfium {
  HEAPU8: Uint8Array;
  HEAPF32: Float32Array;
  HEAPF64: Float64Array;
  _malloc(n: number): number;
  _free(p: number): void;
  _PDFiumExt_Init(): void;
  _FPDF_LoadMemDocument(data: number, size: number, password: number): number;
  _FPDF_GetLastError(): number;
  _FPDF_CloseDocument(doc: number): void;
  _FPDF_GetPageCount(doc: number): number;
  _FPDF_GetMetaText(doc: number, tag: number, buf: number, len: number): number;
  _FPDF_GetPageLabel(doc: number, index: number, buf: number, len: number): number;
  _FPDF_LoadPage(doc: number, index: number): number;
  _FPDF_ClosePage(page: number): void;
  _FPDFPage_CountObjects(page: number): number;
  _FPDFPage_GetObject(page: number, i: number): number;
  _FPDFPageObj_GetType(obj: number): number;
  _FPDFFormObj_CountObjects(form: number): number;
  _FPDFFormObj_GetObject(form: number, i: number): number;
  _FPDFPage_GetRotation(page: number): number;
  _FPDF_GetPageWidthF(page: number): number;
  _FPDF_GetPageHeightF(page: number): number;
  _FPDF_GetPageBoundingBox(page: number, rect: number): number;
  _FPDFPageObj_GetMatrix(obj: number, matrix: number): number;
  _FPDFImageObj_GetBitmap(obj: number): number;
  _FPDFBitmap_CreateEx(width: number, height: number, format: number, buffer: number, stride: number): number;
  _FPDFBitmap_FillRect(bitmap: number, left: number, top: number, width: number, height: number, argb: number): number;
  _FPDFBitmap_GetFormat(bitmap: number): number;
  _FPDFBitmap_GetWidth(bitmap: number): number;
  _FPDFBitmap_GetHeight(bitmap: number): number;
  _FPDFBitmap_GetStride(bitmap: number): number;
  _FPDFBitmap_GetBuffer(bitmap: number): number;
  _FPDFBitmap_Destroy(bitmap: number): void;
  _FPDF_RenderPageBitmap(bitmap: number, page: number, x: number, y: number, width: number, height: number, rotate: number, flags: number): void;
  _FPDFText_LoadPage(page: number): number;
  _FPDFText_ClosePage(text: number): void;
  _FPDFText_CountChars(text: number): number;
  _FPDFText_GetUnicode(text: number, i: number): number;
  _FPDFText_IsGenerated(text: number, i: number): number;
  _FPDFText_GetFontSize(text: number, i: number): number;
  _FPDFText_GetLooseCharBox(text: number, i: number, rect: number): number;
  _FPDFText_GetCharOrigin(text: number, i: number, x: number, y: number): number;
  _FPDFText_GetMatrix(text: number, i: number, matrix: number): number;
}

/** A WebAssembly heap larger than this after a document is given back by starting a new instance. */
const MAX_HEAP_BYTES = 256 * 1024 * 1024;
const FPDF_ERR_FILE = 2;
const FPDF_ERR_FORMAT = 3;
const FPDF_ERR_PASSWORD = 4;
const FPDF_ERR_SECURITY = 5;
const OBJ_IMAGE = 3;
const OBJ_FORM = 5;
const BITMAP_GREY = 1;
/** FPDFBitmap_GetFormat's formats → bytes per pixel (grey, BGR, BGRx, BGRA). */
const BITMAP_CHANNELS: Record<number, 1 | 3 | 4> = { 1: 1, 2: 3, 3: 4, 4: 4 };
/** Render annotations' appearances too (form fields, stamps), as a viewer shows the page. */
const RENDER_ANNOTATIONS = 0x01;
/** How far past a run's end, in its size, the next glyph may start and join it: kerning's slack, or a word space. */
const GLYPH_GAP = 0.15;
const WORD_GAP = 0.5;
/** PDFium marks a hyphen it takes for a line-end word break with U+0002; the text keeps the hyphen. */
const SOFT_HYPHEN_MARK = 2;

/** PDFium's heap may not grow past this: a PDF that needs more fails as too large, the machine is left alone. */
const MAX_WASM_BYTES = 1024 * 1024 * 1024;

/** The part of the WebAssembly global used here (the node build's type libraries do not declare it). */
interface WasmApi {
  compile(bytes: Uint8Array): Promise<object>;
  Instance: new (module: object, imports: object) => object;
  RuntimeError: new () => Error;
}
const WASM = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

let compiled: object | null = null;
let loading: Promise<Pdfium> | null = null;
/** The instance `loading` resolved to: a document closing on an older one leaves it be. */
let live: Pdfium | null = null;

function instance(): Promise<Pdfium> {
  return (loading ??= (async () => {
    compiled ??= await WASM.compile(readFileSync(createRequire(import.meta.url).resolve('@embedpdf/pdfium/pdfium.wasm')));
    const wasm = compiled;
    let instance: { exports: Record<string, unknown> } | undefined;
    const { init } = await import('@embedpdf/pdfium');
    const wrapped = await init({
      instantiateWasm(imports: { env: Record<string, (...args: number[]) => number> }, receive: (instance: object) => unknown) {
        const env = imports.env;
        const grow = env.emscripten_resize_heap!;
        // refused, malloc returns null and PDFium aborts: the page or document fails, and the instance is replaced (retire)
        env.emscripten_resize_heap = (bytes: number) => ((bytes >>> 0) > MAX_WASM_BYTES ? 0 : grow(bytes));
        instance = new WASM.Instance(wasm, imports) as { exports: Record<string, unknown> };
        return receive(instance);
      },
    } as Parameters<typeof init>[0]);
    const P = direct(wrapped.pdfium as unknown as Pdfium, instance!.exports);
    P._PDFiumExt_Init();
    return (live = P);
  })().catch((err: unknown) => {
    loading = null;
    throw err;
  }));
}

/**
 * The module's functions as the WebAssembly instance exports them. The package's own `_name`
 * functions are a debug build's wrappers: each checks its arguments and spreads them into the
 * call, which costs more than the call itself at a few calls per glyph. The heap views stay the
 * module's (it replaces them when the memory grows).
 */
function direct(module: Pdfium, exports: Record<string, unknown>): Pdfium {
  const P = Object.create(module) as Pdfium;
  for (const [name, fn] of Object.entries(exports)) {
    if (typeof fn === 'function') Object.defineProperty(P, `_${name}`, { value: fn });
  }
  return P;
}

/** The next document gets a fresh instance: this one's heap grew too large, or it trapped (an abort leaves it unusable). */
function retire(P: Pdfium): void {
  if (live !== P) return;
  live = null;
  loading = null;
}

/** Runs PDFium calls; a trap (memory refused, an abort) retires the instance and fails with the reason. */
function guarded<T>(P: Pdfium, run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (!(err instanceof WASM.RuntimeError)) throw err;
    retire(P);
    const full = P.HEAPU8.byteLength + 64 * 1024 * 1024 > MAX_WASM_BYTES;
    throw new Error(full ? `PDFium ran out of memory (over ${MAX_WASM_BYTES >> 20} MB)` : `PDFium stopped: ${err.message}`);
  }
}

/** Loads PDFium on this thread ahead of the first document (an OCR worker warmed for a scan on its way). */
export const loadPdfium = (): Promise<unknown> => instance();

export class PdfOpenError extends Error {}

/** An open PDF; close() frees it (and, when it grew the heap too far, the instance). */
export class PdfiumDocument {
  private closed = false;

  private constructor(
    private readonly P: Pdfium,
    private readonly doc: number,
    private readonly data: number,
    /** Scratch memory for out-parameters: a rect, a matrix, two doubles. */
    private readonly scratch: number,
  ) {}

  static async open(bytes: Uint8Array): Promise<PdfiumDocument> {
    const P = await instance();
    const data = P._malloc(Math.max(1, bytes.length));
    if (!data) throw new PdfOpenError('the PDF is too large to open');
    P.HEAPU8.set(bytes, data);
    let doc: number;
    try {
      doc = guarded(P, () => P._FPDF_LoadMemDocument(data, bytes.length, 0));
    } catch (err) {
      throw new PdfOpenError(`cannot open the PDF: ${(err as Error).message}`);
    }
    if (!doc) {
      const code = P._FPDF_GetLastError();
      P._free(data);
      if (code === FPDF_ERR_PASSWORD) throw new PdfOpenError('the PDF is encrypted with a password; it cannot be read');
      if (code === FPDF_ERR_SECURITY) throw new PdfOpenError('the PDF uses an encryption this reader does not support; it cannot be read');
      if (code === FPDF_ERR_FORMAT || code === FPDF_ERR_FILE) throw new PdfOpenError('not a readable PDF (truncated or damaged?)');
      throw new PdfOpenError(`cannot open the PDF (PDFium error ${code})`);
    }
    return new PdfiumDocument(P, doc, data, P._malloc(64));
  }

  get pageCount(): number {
    return this.P._FPDF_GetPageCount(this.doc);
  }

  /** A document-information entry (Title, Author, Subject…), '' when absent. */
  meta(tag: 'Title' | 'Author' | 'Subject'): string {
    const P = this.P;
    const name = P._malloc(tag.length + 1);
    P.HEAPU8.set([...Buffer.from(tag, 'latin1'), 0], name);
    try {
      return this.utf16((buf, len) => P._FPDF_GetMetaText(this.doc, name, buf, len));
    } finally {
      P._free(name);
    }
  }

  /** Page `index`'s (0-based) label, '' when the document gives it none. */
  pageLabel(index: number): string {
    return this.utf16((buf, len) => this.P._FPDF_GetPageLabel(this.doc, index, buf, len));
  }

  /** Page `index` (0-based), open until its close(); null when PDFium cannot load it. */
  page(index: number): PdfiumPage | null {
    const page = guarded(this.P, () => this.P._FPDF_LoadPage(this.doc, index));
    return page ? new PdfiumPage(this.P, page, this.scratch) : null;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    const P = this.P;
    try {
      P._FPDF_CloseDocument(this.doc);
      P._free(this.data);
      P._free(this.scratch);
    } catch {
      retire(P); // it trapped before: nothing of it is used again
      return;
    }
    // memory.grow never shrinks: a document that took a large heap would keep it for the thread's life
    if (P.HEAPU8.byteLength > MAX_HEAP_BYTES) retire(P);
  }

  /** A UTF-16LE string from a PDFium getter that returns the bytes it needs (terminator included). */
  private utf16(get: (buf: number, len: number) => number): string {
    const P = this.P;
    return guarded(P, () => {
      const len = get(0, 0);
      if (len <= 2) return '';
      const buf = P._malloc(len);
      try {
        get(buf, len);
        return Buffer.from(P.HEAPU8.subarray(buf, buf + len - 2)).toString('utf16le');
      } finally {
        P._free(buf);
      }
    });
  }
}

/** One loaded page of a PdfiumDocument. */
export class PdfiumPage {
  constructor(
    private readonly P: Pdfium,
    private readonly handle: number,
    /** The document's scratch memory (one page is read at a time). */
    private readonly scratch: number,
  ) {}

  /** The page's text items in content order; throws when PDFium cannot read its text. */
  textItems(): TextItemLike[] {
    return guarded(this.P, () => {
      const text = this.P._FPDFText_LoadPage(this.handle);
      if (!text) throw new Error('the page text cannot be read');
      try {
        return this.items(text);
      } finally {
        this.P._FPDFText_ClosePage(text);
      }
    });
  }

  /** Whether the page draws an image, directly or inside a form XObject. */
  drawsImage(): boolean {
    const P = this.P;
    const scan = (count: number, get: (i: number) => number, depth: number): boolean => {
      for (let i = 0; i < count; i++) {
        const obj = get(i);
        const type = P._FPDFPageObj_GetType(obj);
        if (type === OBJ_IMAGE) return true;
        if (type === OBJ_FORM && depth < 8 && scan(P._FPDFFormObj_CountObjects(obj), (k) => P._FPDFFormObj_GetObject(obj, k), depth + 1)) return true;
      }
      return false;
    };
    return guarded(P, () => scan(P._FPDFPage_CountObjects(this.handle), (i) => P._FPDFPage_GetObject(this.handle, i), 0));
  }

  /** The page's size in points, turned as the page is shown (its /Rotate applied). */
  size(): { width: number; height: number } {
    return { width: this.P._FPDF_GetPageWidthF(this.handle), height: this.P._FPDF_GetPageHeightF(this.handle) };
  }

  /** Quarter turns clockwise the page is shown at (its /Rotate). */
  rotation(): number {
    return this.P._FPDFPage_GetRotation(this.handle);
  }

  /** The page's visible box in PDF units: [x0, y0, x1, y1] (the crop box within the media box). */
  box(): [number, number, number, number] {
    const P = this.P;
    P._FPDF_GetPageBoundingBox(this.handle, this.scratch);
    const f = this.scratch >> 2;
    const [left, top, right, bottom] = [P.HEAPF32[f]!, P.HEAPF32[f + 1]!, P.HEAPF32[f + 2]!, P.HEAPF32[f + 3]!];
    return [left, bottom, right, top];
  }

  /** The page rendered in grey at width × height pixels on white. */
  renderGrey(width: number, height: number): Uint8Array {
    const P = this.P;
    return guarded(P, () => {
      const bitmap = P._FPDFBitmap_CreateEx(width, height, BITMAP_GREY, 0, 0);
      if (!bitmap) throw new Error(`cannot make a ${width} × ${height} page image (out of memory?)`);
      try {
        P._FPDFBitmap_FillRect(bitmap, 0, 0, width, height, 0xffffffff);
        P._FPDF_RenderPageBitmap(bitmap, this.handle, 0, 0, width, height, 0, RENDER_ANNOTATIONS);
        return this.pixels(bitmap).data;
      } finally {
        P._FPDFBitmap_Destroy(bitmap);
      }
    });
  }

  /**
   * When the page draws nothing but one image: its placement matrix [a, b, c, d, e, f] and its
   * pixels as stored (no mask, no resampling), grey or in PDFium's BGR order; else null.
   */
  onlyImage(): { matrix: number[]; pixels: () => RawPixels | null } | null {
    const P = this.P;
    const found = guarded(P, () => {
      if (P._FPDFPage_CountObjects(this.handle) !== 1) return null;
      const obj = P._FPDFPage_GetObject(this.handle, 0);
      if (P._FPDFPageObj_GetType(obj) !== OBJ_IMAGE || !P._FPDFPageObj_GetMatrix(obj, this.scratch)) return null;
      const f = this.scratch >> 2;
      return { obj, matrix: [...P.HEAPF32.subarray(f, f + 6)] };
    });
    if (!found) return null;
    const { obj, matrix } = found;
    return {
      matrix,
      pixels: () =>
        guarded(P, () => {
          const bitmap = P._FPDFImageObj_GetBitmap(obj);
          if (!bitmap) return null;
          try {
            return this.pixels(bitmap);
          } finally {
            P._FPDFBitmap_Destroy(bitmap);
          }
        }),
    };
  }

  close(): void {
    try {
      this.P._FPDF_ClosePage(this.handle);
    } catch {
      retire(this.P); // it trapped before: nothing of it is used again
    }
  }

  /** A bitmap's pixels copied out of the WebAssembly heap, rows packed (no stride padding). */
  private pixels(bitmap: number): RawPixels {
    const P = this.P;
    const channels = BITMAP_CHANNELS[P._FPDFBitmap_GetFormat(bitmap)];
    if (!channels) throw new Error('the image has a pixel format PDFium does not describe');
    const width = P._FPDFBitmap_GetWidth(bitmap);
    const height = P._FPDFBitmap_GetHeight(bitmap);
    const stride = P._FPDFBitmap_GetStride(bitmap);
    const start = P._FPDFBitmap_GetBuffer(bitmap);
    const row = width * channels;
    const data = new Uint8Array(row * height);
    if (stride === row) data.set(P.HEAPU8.subarray(start, start + row * height));
    else for (let y = 0; y < height; y++) data.set(P.HEAPU8.subarray(start + y * stride, start + y * stride + row), y * row);
    return { width, height, channels, data };
  }

  /**
   * Characters → items: a character joins the item before it when it sits on that item's baseline
   * in the same size, no further along than a hair past where the item ends (glyphs drawn one by
   * one, as Chromium and Skia write them, become one run again), or a word gap past it after a
   * space PDFium inserted. The line breaks it inserts are left out: where a line ends is the
   * layout's to find, from where the glyphs are.
   */
  private items(text: number): TextItemLike[] {
    const P = this.P;
    const items: TextItemLike[] = [];
    const box = this.scratch >> 2;
    const origin = (this.scratch + 32) >> 3;
    let cur: Run | null = null;
    const end = () => {
      if (cur) items.push({ str: cur.str, transform: cur.transform, width: cur.width, height: cur.size, hasEOL: false });
      cur = null;
    };
    const count = P._FPDFText_CountChars(text);
    for (let i = 0; i < count; i++) {
      let code = P._FPDFText_GetUnicode(text, i);
      if (P._FPDFText_IsGenerated(text, i)) {
        if (code === 0x20 && cur) {
          (cur as Run).str += ' ';
          (cur as Run).spaced = true;
        }
        continue;
      }
      if (code === SOFT_HYPHEN_MARK) code = 0x2d;
      // a glyph with no Unicode (a font without a map) still takes its place in the run, as nothing
      const ch = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : '';
      P._FPDFText_GetLooseCharBox(text, i, this.scratch);
      P._FPDFText_GetCharOrigin(text, i, this.scratch + 32, this.scratch + 40);
      const F = P.HEAPF32;
      const left = F[box]!, top = F[box + 1]!, right = F[box + 2]!, bottom = F[box + 3]!;
      const x = P.HEAPF64[origin]!, y = P.HEAPF64[origin + 1]!;
      const fontSize = P._FPDFText_GetFontSize(text, i);
      if (cur !== null && (cur as Run).fontSize === fontSize) {
        const run: Run = cur;
        const along = (x - run.x) * run.cos + (y - run.y) * run.sin;
        const across = (y - run.y) * run.cos - (x - run.x) * run.sin;
        const gap = along - run.width;
        if (Math.abs(across) <= run.size * 0.05 && gap <= run.size * (run.spaced ? WORD_GAP : GLYPH_GAP) && gap >= -run.size * 0.5) {
          run.str += ch;
          run.spaced = false;
          run.width = Math.max(run.width, farEdge(run, left, top, right, bottom));
          continue;
        }
      }
      end();
      P._FPDFText_GetMatrix(text, i, this.scratch);
      const M = P.HEAPF32;
      const a = M[box]! * fontSize, b = M[box + 1]! * fontSize, c = M[box + 2]! * fontSize, d = M[box + 3]! * fontSize;
      const norm = Math.hypot(a, b) || 1;
      const run: Run = { str: ch, transform: [a, b, c, d, x, y], x, y, cos: a / norm, sin: b / norm, size: Math.hypot(c, d) || fontSize, fontSize, width: 0, spaced: false };
      run.width = Math.max(0, farEdge(run, left, top, right, bottom));
      cur = run;
    }
    end();
    return items;
  }
}

/** Pixels in rows: 1 channel is grey; 3 and 4 are blue, green, red (and an unused or alpha byte). */
export interface RawPixels {
  width: number;
  height: number;
  channels: 1 | 3 | 4;
  data: Uint8Array;
}

interface Run {
  str: string;
  transform: number[];
  /** The run's origin, its direction and size in user space, and how far along it its glyphs reach. */
  x: number;
  y: number;
  cos: number;
  sin: number;
  size: number;
  fontSize: number;
  width: number;
  /** PDFium put a space after the last glyph: the next may follow a word gap away. */
  spaced: boolean;
}

/** How far along the run a character's box reaches (its advance end: boxes are PDFium's loose ones). */
function farEdge(run: Run, left: number, top: number, right: number, bottom: number): number {
  return ((run.cos >= 0 ? right : left) - run.x) * run.cos + ((run.sin >= 0 ? top : bottom) - run.y) * run.sin;
}
