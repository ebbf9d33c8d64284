// RTF: the text of the document body. No maintained pure-JS library reads general RTF as text
// (rtf-stream-parser, the kept one, only de-encapsulates Outlook's HTML/text), so this is a small
// reader of the RTF 1.9 grammar: groups, control words, `\'hh` bytes decoded in the code page of
// the document or of the current font's charset (GBK, Shift_JIS, Big5, EUC-KR… through iconv-lite,
// consecutive bytes decoded together so double-byte text survives), `\uN` with its `\ucN`
// fallbacks skipped, and the destinations that are not text (fonts, colours, styles, pictures,
// objects, headers) left out. `{\info{\title …}}` gives the title; `\outlinelevelN` headings.
import iconv from 'iconv-lite';
import { DocBuilder } from './doc-builder.js';
import { baseTitle, type DocumentParser, type ParsedDocument } from './types.js';

const SKIPPED = new Set([
  'fonttbl', 'colortbl', 'stylesheet', 'listtable', 'listoverridetable', 'rsidtbl', 'generator', 'pict', 'object',
  'header', 'headerl', 'headerr', 'headerf', 'footer', 'footerl', 'footerr', 'footerf', 'themedata', 'colorschememapping',
  'datastore', 'latentstyles', 'xmlnstbl', 'fldinst', 'filetbl', 'revtbl', 'pgdsctbl', 'mmathPr', 'author', 'operator',
  'company', 'comment', 'doccomm', 'keywords', 'subject', 'creatim', 'revtim', 'printim', 'buptim', 'bkmkstart', 'bkmkend',
]);
/** \fcharsetN → code page. */
const CHARSET_CODEPAGE: Record<number, number> = { 128: 932, 129: 949, 130: 1361, 134: 936, 136: 950, 161: 1253, 162: 1254, 163: 1258, 177: 1255, 178: 1256, 186: 1257, 204: 1251, 222: 874, 238: 1250 };
const SYMBOLS: Record<string, string> = {
  par: '\n', line: '\n', sect: '\n', page: '\n', row: '\n', cell: ' | ', tab: ' ', emdash: '\u2014', endash: '\u2013',
  bullet: '\u2022', lquote: '\u2018', rquote: '\u2019', ldblquote: '\u201c', rdblquote: '\u201d', emspace: ' ', enspace: ' ', qmspace: ' ',
};

interface State {
  skip: boolean;
  uc: number;
  font: number;
  destination: string;
}

export const rtfParser: DocumentParser = {
  kind: 'rtf',
  binary: true,
  async parse(bytes, fileName, limits): Promise<ParsedDocument> {
    const src = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    if (!src.startsWith('{\\rtf')) throw new Error('not an RTF file (it does not start with {\\rtf)');
    const fontCodepage = new Map<number, number>();
    let codepage = 1252;
    let state: State = { skip: false, uc: 1, font: -1, destination: '' };
    const stack: State[] = [];
    let body = '';
    let title = '';
    let pendingBytes: number[] = [];
    let skipFallback = 0;
    let fontNumber = -1;
    let outline: number | null = null;
    const paragraphs: { text: string; level: number | null }[] = [];

    let kept = 0; // characters of body text so far: reading stops at the text bound
    const emit = (s: string) => {
      if (state.destination === 'title') title += s;
      else if (!state.skip) {
        body += s;
        kept += s.length;
      }
    };
    const flushBytes = () => {
      if (!pendingBytes.length) return;
      const cp = fontCodepage.get(state.font) ?? codepage;
      const enc = iconv.encodingExists(`cp${cp}`) ? `cp${cp}` : 'cp1252';
      emit(iconv.decode(Buffer.from(pendingBytes), enc));
      pendingBytes = [];
    };
    const endParagraph = () => {
      paragraphs.push({ text: body, level: outline });
      body = '';
      outline = null;
    };

    for (let i = 0; i < src.length && kept < limits.maxTextChars; ) {
      const ch = src[i]!;
      if (ch === '{' || ch === '}') {
        flushBytes();
        if (ch === '{') stack.push({ ...state });
        else state = stack.pop() ?? state;
        i++;
        continue;
      }
      if (ch !== '\\') {
        i++;
        if (ch === '\r' || ch === '\n') continue;
        if (skipFallback > 0) {
          skipFallback--;
          continue;
        }
        flushBytes();
        emit(ch);
        continue;
      }
      const next = src[i + 1] ?? '';
      if (next === "'") {
        const byte = parseInt(src.slice(i + 2, i + 4), 16);
        i += 4;
        if (skipFallback > 0) {
          skipFallback--;
          continue;
        }
        if (!Number.isNaN(byte) && (!state.skip || state.destination === 'title')) pendingBytes.push(byte);
        continue;
      }
      const word = /^\\([a-zA-Z]{1,32})(-?\d{1,10})? ?/.exec(src.slice(i, i + 48));
      if (!word) {
        // a control symbol: \\ \{ \} \~ \- \_ \* and escaped line breaks
        flushBytes();
        i += 2;
        if (next === '*') state.skip = true;
        else if (next === '~') emit('\u00a0');
        else if (next === '_') emit('-');
        else if (next === '\\' || next === '{' || next === '}') emit(next);
        else if (next === '\n' || next === '\r') endParagraph();
        continue;
      }
      i += word[0].length;
      const name = word[1]!;
      const param = word[2] === undefined ? null : Number(word[2]);
      if (name === 'u' && param !== null) {
        flushBytes();
        emit(String.fromCharCode(param < 0 ? param + 65536 : param));
        skipFallback = state.uc;
        continue;
      }
      skipFallback = 0;
      flushBytes();
      if (name === 'uc' && param !== null) state.uc = param;
      else if (name === 'ansicpg' && param !== null) codepage = param;
      else if (name === 'f' && param !== null) {
        if (state.destination === 'fonttbl') fontNumber = param;
        else state.font = param;
      } else if (name === 'fcharset' && param !== null && fontNumber >= 0 && CHARSET_CODEPAGE[param]) fontCodepage.set(fontNumber, CHARSET_CODEPAGE[param]);
      else if (name === 'fonttbl') Object.assign(state, { skip: true, destination: 'fonttbl' });
      else if (name === 'title') Object.assign(state, { destination: 'title' });
      else if (name === 'info') state.skip = true;
      else if (SKIPPED.has(name)) state.skip = true;
      else if (name === 'outlinelevel' && param !== null) outline = param;
      else if (name === 'par' || name === 'sect' || name === 'page') {
        if (!state.skip) endParagraph();
      } else if (SYMBOLS[name] && !state.skip) emit(SYMBOLS[name]);
      if (name === 'bin' && param !== null) i += param; // raw binary data: never text
    }
    flushBytes();
    endParagraph();

    const out = new DocBuilder(limits.maxTextChars);
    let firstHeading = '';
    for (const p of paragraphs) {
      if (p.level !== null && p.level < 9 && p.text.trim()) {
        if (!firstHeading) firstHeading = p.text.trim();
        out.heading(p.level + 1, p.text);
      } else out.paragraph(p.text);
    }
    return out.build(title.trim() || firstHeading || baseTitle(fileName), 'rtf');
  },
};
