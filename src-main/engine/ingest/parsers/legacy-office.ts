// Legacy binary Office files (.doc, .ppt, .xls: OLE compound documents). No maintained pure-JS
// library reads them (word-extractor reads .doc text but has had no release in years; SheetJS's
// maintained builds are no longer published to npm), so they are skipped with a reason that says
// what to do, instead of being left out silently.
import { UnsupportedDocument, type DocumentParser } from './types.js';

const NAMES: Record<string, string> = { doc: 'Word 97-2003 (.doc)', ppt: 'PowerPoint 97-2003 (.ppt)', xls: 'Excel 97-2003 (.xls)' };
const MODERN: Record<string, string> = { doc: '.docx', ppt: '.pptx', xls: '.xlsx' };

export function legacyOfficeParser(ext: 'doc' | 'ppt' | 'xls'): DocumentParser {
  return {
    kind: ext,
    binary: true,
    parse() {
      return Promise.reject(new UnsupportedDocument(`unsupported format: ${NAMES[ext]} is a legacy binary format Trove does not read; save it as ${MODERN[ext]}`));
    },
  };
}
