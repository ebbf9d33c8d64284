// Plain text: paragraphs only; the title is the file name.
import { baseTitle, type Parser } from './types.js';

export const textParser: Parser = {
  kind: 'text',
  parse(text, fileName) {
    return { text, title: baseTitle(fileName), kind: 'text', tags: [], metadata: {}, headings: [], atomic: [], bodyStart: 0 };
  },
};
