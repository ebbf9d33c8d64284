// Tesseract through tesseract.js-core: the Tesseract C++ API (TessBaseAPI) compiled to WebAssembly,
// loaded from node_modules and given language data read from verified local files, so nothing is
// ever fetched (tesseract.js's own worker layer defaults to a CDN for both; it is not used). One
// instance per OCR worker thread; recognition blocks that thread, which is why it has one.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { relaxedSimd, simd } from 'wasm-feature-detect';
import type { GreyPage } from './image-decode.js';
import { toPgm } from './image-decode.js';
import type { OcrLine, OcrPage } from './types.js';

/** A language's data file (a `<code>.traineddata` or `.traineddata.gz`). */
export interface LanguageFile {
  code: string;
  file: string;
}

/** The part of tesseract.js-core's TessBaseAPI binding used here (Tesseract's C++ API). */
interface TessBaseApi {
  Init(datapath: string, language: string, oem: number): number;
  SetVariable(name: string, value: string): boolean;
  SetImageFile(exifOrientation: number, angle: number): void;
  SetSourceResolution(ppi: number): void;
  Recognize(monitor: null): number;
  FindLines(): number;
  /** The page's slant found by FindLines, in radians. */
  GetGradient(): number;
  MeanTextConf(): number;
  GetTSVText(page: number): string;
  Clear(): void;
  End(): void;
}
interface TessModule {
  FS: { writeFile(p: string, data: Uint8Array): void; mkdir(p: string): void; unlink(p: string): void };
  TessBaseAPI: new () => TessBaseApi;
}

const OEM_LSTM_ONLY = 1;
const PSM_AUTO = '3';
const TESSDATA = '/tessdata';
/** Below ~0.3° a page is read as it is (tesseract.js draws the same line). */
const MIN_DESKEW_RADIANS = 0.005;

/** Which build of the core runs here: relaxed SIMD (Electron, Node 22+), SIMD (Node 20), or plain. */
async function coreFile(): Promise<string> {
  const flavour = (await relaxedSimd()) ? 'relaxedsimd-lstm' : (await simd()) ? 'simd-lstm' : 'lstm';
  return createRequire(import.meta.url).resolve(`tesseract.js-core/tesseract-core-${flavour}.js`);
}

export class Tesseract {
  private api: TessBaseApi | null = null;
  private loaded = new Set<string>();
  private current = '';

  private constructor(private readonly module: TessModule) {
    module.FS.mkdir(TESSDATA);
  }

  static async load(): Promise<Tesseract> {
    const file = await coreFile();
    const factory = createRequire(import.meta.url)(file) as (opts: object) => Promise<TessModule>;
    // the .wasm beside the loader, read here: the loader never has to look for (or fetch) it
    const wasmBinary = fs.readFileSync(file.replace(/\.js$/, '.wasm'));
    return new Tesseract(await factory({ wasmBinary, print: () => undefined, printErr: () => undefined }));
  }

  /** Initialises Tesseract for these languages (again only when they change). */
  use(languages: LanguageFile[]): void {
    const key = languages.map((l) => l.code).join('+');
    if (this.api && key === this.current) return;
    for (const l of languages) {
      if (this.loaded.has(l.code)) continue;
      const bytes = fs.readFileSync(l.file);
      const data = path.extname(l.file) === '.gz' ? gunzipSync(bytes) : bytes;
      this.module.FS.writeFile(`${TESSDATA}/${l.code}.traineddata`, data);
      this.loaded.add(l.code);
    }
    this.api?.End();
    const api = new this.module.TessBaseAPI();
    if (api.Init(TESSDATA, key, OEM_LSTM_ONLY) !== 0) {
      this.api = null;
      this.current = '';
      throw new Error(`Tesseract could not load the language data for ${key} (damaged file?)`);
    }
    api.SetVariable('tessedit_pageseg_mode', PSM_AUTO);
    this.api = api;
    this.current = key;
  }

  /** Recognises one grey page. */
  recognize(pageNumber: number, image: GreyPage): OcrPage {
    const api = this.api;
    if (!api) throw new Error('Tesseract has no languages loaded');
    this.module.FS.writeFile('/input', toPgm(image));
    try {
      this.setImage(api, image, 0);
      // a page scanned askew: Tesseract's line finder measures the slant, and the page is read
      // straightened (at 2° its blocks otherwise came apart and whole paragraphs went missing)
      api.FindLines();
      const angle = api.GetGradient();
      if (Math.abs(angle) >= MIN_DESKEW_RADIANS) this.setImage(api, image, angle);
      if (api.Recognize(null) !== 0) throw new Error('Tesseract could not recognise the page');
      const paragraphs = linesFromTsv(api.GetTSVText(0));
      const text = paragraphs.map((p) => p.map((l) => l.text).join('\n')).join('\n\n');
      return { page: pageNumber, text, paragraphs, confidence: text ? Math.max(0, api.MeanTextConf()) : 0 };
    } finally {
      api.Clear();
      this.module.FS.unlink('/input');
    }
  }

  private setImage(api: TessBaseApi, image: GreyPage, angle: number): void {
    api.SetImageFile(1, angle);
    if (image.dpi) api.SetSourceResolution(image.dpi);
  }

  end(): void {
    this.api?.End();
    this.api = null;
  }
}

const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\u3000-\\u303f\\uff00-\\uffef';
const SPACE_BETWEEN_CJK = new RegExp(`(?<=[${CJK}]) +(?=[${CJK}])`, 'gu');

/**
 * Tesseract's TSV (level, page, block, paragraph, line, word, box, confidence, text) → paragraphs
 * of lines. Words are joined with spaces, except between CJK characters, which Tesseract separates
 * although the script has no spaces (they would also split the index's CJK bigrams).
 */
export function linesFromTsv(tsv: string): OcrLine[][] {
  const paragraphs: OcrLine[][] = [];
  let paraKey = '';
  let lineKey = '';
  let words: { text: string; conf: number }[] = [];
  const flushLine = () => {
    if (!words.length) return;
    const text = words.map((w) => w.text).join(' ').replace(SPACE_BETWEEN_CJK, '');
    const confidence = Math.round(words.reduce((n, w) => n + w.conf, 0) / words.length);
    paragraphs.at(-1)!.push({ text, confidence });
    words = [];
  };
  for (const row of tsv.split('\n')) {
    const f = row.split('\t');
    if (f[0] !== '5' || f.length < 12) continue;
    const text = f.slice(11).join('\t').trim();
    const conf = Number(f[10]);
    if (!text || conf < 0) continue;
    const para = `${f[2]}.${f[3]}`;
    const line = `${para}.${f[4]}`;
    if (line !== lineKey) {
      flushLine();
      if (para !== paraKey) paragraphs.push([]);
      paraKey = para;
      lineKey = line;
    }
    words.push({ text, conf });
  }
  flushLine();
  return paragraphs.filter((p) => p.length);
}
