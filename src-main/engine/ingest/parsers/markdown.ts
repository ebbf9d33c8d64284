// Markdown: YAML front matter → title/tags/metadata, ATX and setext headings, fenced code
// kept whole. A small line scanner, not a full CommonMark parser: we need structure, not HTML.
import yaml from 'js-yaml';
import { baseTitle, type Heading, type ParsedDocument, type Parser, type TextRange } from './types.js';

const FRONT_MATTER = /^---[ \t]*\n([\s\S]*?)\n(?:---|\.\.\.)[ \t]*(?:\n|$)/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;

export const markdownParser: Parser = {
  kind: 'markdown',
  parse(text, fileName): ParsedDocument {
    const { metadata, bodyStart, note } = readFrontMatter(text);
    const headings: Heading[] = [];
    const atomic: TextRange[] = [];
    let fence: { marker: string; start: number } | null = null;
    let prevLine = '';
    let prevOffset = -1;
    let offset = bodyStart;
    while (offset < text.length || (offset === text.length && fence)) {
      let nl = text.indexOf('\n', offset);
      if (nl < 0) nl = text.length;
      const line = text.slice(offset, nl);
      if (fence) {
        const close = FENCE.exec(line);
        if ((close && close[1]![0] === fence.marker[0] && close[1]!.length >= fence.marker.length) || nl >= text.length) {
          atomic.push({ start: fence.start, end: nl });
          fence = null;
        }
      } else {
        const open = FENCE.exec(line);
        const atx = open ? null : ATX.exec(line);
        const setext = !open && !atx && prevLine.trim() && !isBlockStart(prevLine) ? SETEXT.exec(line) : null;
        if (open) fence = { marker: open[1]!, start: offset };
        else if (atx) headings.push({ offset, level: atx[1]!.length, text: stripInline(atx[2] ?? '') });
        else if (setext && prevOffset >= 0) {
          // the previous line was the heading text; a '---' under a paragraph line is a level-2 heading
          headings.push({ offset: prevOffset, level: setext[1]![0] === '=' ? 1 : 2, text: stripInline(prevLine.trim()) });
        }
      }
      prevLine = fence ? '' : line;
      prevOffset = offset;
      if (nl >= text.length) break;
      offset = nl + 1;
    }
    const fmTitle = typeof metadata.title === 'string' ? metadata.title.trim() : '';
    const h1 = headings.find((h) => h.level === 1)?.text;
    if (note) metadata.front_matter_error = note;
    return {
      text,
      title: fmTitle || h1 || headings[0]?.text || baseTitle(fileName),
      kind: 'markdown',
      tags: readTags(metadata),
      metadata,
      headings,
      atomic,
      bodyStart,
    };
  },
};

function readFrontMatter(text: string): { metadata: Record<string, unknown>; bodyStart: number; note?: string } {
  const m = FRONT_MATTER.exec(text);
  if (!m) return { metadata: {}, bodyStart: 0 };
  try {
    // JSON schema: dates stay strings, no custom tags; the result is plain JSON by construction
    const data: unknown = yaml.load(m[1]!, { schema: yaml.JSON_SCHEMA, json: true });
    const metadata = data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
    return { metadata, bodyStart: m[0].length };
  } catch (err) {
    // Broken front matter is kept as text (nothing lost) and reported in metadata.
    return { metadata: {}, bodyStart: 0, note: (err as Error).message.split('\n')[0] };
  }
}

function readTags(metadata: Record<string, unknown>): string[] {
  const raw = metadata.tags ?? metadata.keywords ?? metadata.categories;
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(/[,\s]+/) : [];
  return [...new Set(list.map((t) => String(t).trim().replace(/^#/, '').toLowerCase()).filter(Boolean))];
}

function isBlockStart(line: string): boolean {
  return /^\s*([-*+]\s|\d+[.)]\s|>|\||#)/.test(line);
}

function stripInline(s: string): string {
  return s
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*_~]/g, '')
    .trim();
}
