// Picks the parser for a file by its extension: text parsers (Markdown, HTML, code, plain text)
// run where the file is indexed; document parsers (PDF, Office, OpenDocument, EPUB, RTF, e-mail,
// images for OCR) read bytes and run in the parse workers (ingest/parse-pool.ts).
import { codeParser } from './code.js';
import { docxParser } from './docx.js';
import { emailParser } from './email.js';
import { epubParser } from './epub.js';
import { htmlParser } from './html.js';
import { imageParser } from './image.js';
import { legacyOfficeParser } from './legacy-office.js';
import { markdownParser } from './markdown.js';
import { odsParser } from './ods.js';
import { odpParser, odtParser } from './opendocument.js';
import { pdfParser } from './pdf.js';
import { pptxParser } from './pptx.js';
import { rtfParser } from './rtf.js';
import { textParser } from './text.js';
import type { DocumentParser, Parser } from './types.js';
import { xlsxParser } from './xlsx.js';

const MARKDOWN = new Set(['md', 'markdown', 'mdx', 'mdown']);
const HTML = new Set(['html', 'htm', 'xhtml']);
const CODE: Record<string, string> = {
  ts: 'typescript', tsx: 'typescript', mts: 'typescript', cts: 'typescript', js: 'javascript', jsx: 'javascript',
  mjs: 'javascript', cjs: 'javascript', vue: 'vue', svelte: 'svelte', py: 'python', pyi: 'python', rb: 'ruby', go: 'go',
  rs: 'rust', java: 'java', kt: 'kotlin', kts: 'kotlin', scala: 'scala', swift: 'swift', m: 'objective-c',
  mm: 'objective-c', c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', cxx: 'cpp', hpp: 'cpp', hh: 'cpp', cs: 'csharp',
  fs: 'fsharp', php: 'php', pl: 'perl', lua: 'lua', r: 'r', jl: 'julia', dart: 'dart', ex: 'elixir', exs: 'elixir',
  erl: 'erlang', hs: 'haskell', clj: 'clojure', el: 'elisp', zig: 'zig', nim: 'nim', sol: 'solidity', sh: 'shell',
  bash: 'shell', zsh: 'shell', fish: 'shell', ps1: 'powershell', psm1: 'powershell', bat: 'batch', cmd: 'batch',
  sql: 'sql', graphql: 'graphql', proto: 'protobuf', css: 'css', scss: 'scss', less: 'less',
};
// e-mail reads its attachments with the parsers here (the functions below: declared, so in hand already)
const mailParser = emailParser({ documentParserFor, parserFor });
const DOCUMENTS: Record<string, DocumentParser> = {
  pdf: pdfParser,
  docx: docxParser, docm: docxParser, dotx: docxParser,
  pptx: pptxParser, pptm: pptxParser, ppsx: pptxParser,
  xlsx: xlsxParser, xlsm: xlsxParser,
  odt: odtParser, odp: odpParser, ods: odsParser,
  epub: epubParser,
  rtf: rtfParser,
  eml: mailParser, mbox: mailParser,
  doc: legacyOfficeParser('doc'), ppt: legacyOfficeParser('ppt'), xls: legacyOfficeParser('xls'),
  // read only for their text by OCR (not in the default include globs until the OCR stage runs)
  png: imageParser, jpg: imageParser, jpeg: imageParser, jpe: imageParser, jfif: imageParser,
  tif: imageParser, tiff: imageParser, webp: imageParser, gif: imageParser, bmp: imageParser,
};

/** The kinds of document parsers. */
export const DOCUMENT_KINDS: readonly string[] = [...new Set(Object.values(DOCUMENTS).map((p) => p.kind))];
/** Every kind a file can be indexed as (what `--kind` takes). */
export const KNOWN_KINDS: readonly string[] = ['markdown', 'text', 'html', 'code', ...DOCUMENT_KINDS];

/** What a hit's `page` counts in a document of this kind (slide, sheet, chapter, message, page). */
export function pageUnit(kind: string): string {
  return PAGE_UNITS[kind] ?? 'page';
}
const PAGE_UNITS: Record<string, string> = { pptx: 'slide', odp: 'slide', xlsx: 'sheet', ods: 'sheet', epub: 'chapter', email: 'message' };

const codeParsers = new Map<string, Parser>();

export function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

/** The document parser for a file, or undefined when the file is read as text. */
export function documentParserFor(path: string): DocumentParser | undefined {
  return DOCUMENTS[extensionOf(path)];
}

/** The text parser for a file (documents have their own: documentParserFor). */
export function parserFor(path: string): Parser {
  const ext = extensionOf(path);
  if (MARKDOWN.has(ext)) return markdownParser;
  if (HTML.has(ext)) return htmlParser;
  const language = CODE[ext];
  if (language) {
    let p = codeParsers.get(language);
    if (!p) codeParsers.set(language, (p = codeParser(language)));
    return p;
  }
  return textParser;
}
