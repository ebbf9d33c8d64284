// Source code: kept verbatim; blank-line separated blocks are the chunker's paragraphs.
import { baseTitle, type Parser } from './types.js';

export function codeParser(language: string): Parser {
  return {
    kind: 'code',
    parse(text, fileName) {
      const name = fileName.split('/').pop() ?? fileName;
      return {
        text,
        title: name || baseTitle(fileName),
        kind: 'code',
        tags: [],
        metadata: { language },
        headings: [],
        atomic: [],
        bodyStart: 0,
      };
    },
  };
}
