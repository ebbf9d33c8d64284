// HTML: the readable text (no tags, scripts or styles), with its headings, title and keywords.
import { Parser as HtmlTokenizer } from 'htmlparser2';
import { baseTitle, type Heading, type ParsedDocument, type Parser, type TextRange } from './types.js';

const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'canvas', 'iframe', 'object', 'head']);
const BLOCK = new Set([
  'p', 'div', 'section', 'article', 'main', 'aside', 'header', 'footer', 'nav', 'ul', 'ol', 'li', 'dl', 'dt', 'dd',
  'table', 'thead', 'tbody', 'tr', 'blockquote', 'pre', 'figure', 'figcaption', 'form', 'fieldset', 'details',
  'summary', 'address', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
]);

export const htmlParser: Parser = {
  kind: 'html',
  parse(html, fileName): ParsedDocument {
    let out = '';
    let skipDepth = 0;
    let preDepth = 0;
    let inTitle = false;
    let title = '';
    let heading: { level: number; offset: number; text: string } | null = null;
    let pre: number | null = null;
    const headings: Heading[] = [];
    const atomic: TextRange[] = [];
    const metadata: Record<string, unknown> = {};
    let tags: string[] = [];

    const breakBlock = () => {
      out = out.replace(/[ \t]+$/, '');
      if (out && !out.endsWith('\n\n')) out += out.endsWith('\n') ? '\n' : '\n\n';
    };

    const tokenizer = new HtmlTokenizer(
      {
        onopentag(name, attrs) {
          if (name === 'title') inTitle = true;
          if (name === 'meta') readMeta(attrs, metadata, (t) => (tags = t));
          if (SKIPPED.has(name)) skipDepth++;
          if (skipDepth) return;
          if (name === 'br') out += '\n';
          else if (name === 'td' || name === 'th') out += out.endsWith('\n') || !out ? '' : '\t';
          else if (BLOCK.has(name)) breakBlock();
          if (name === 'pre') {
            preDepth++;
            pre = out.length;
          }
          const level = /^h([1-6])$/.exec(name);
          if (level) heading = { level: Number(level[1]), offset: out.length, text: '' };
        },
        ontext(data) {
          if (inTitle) title += data;
          if (skipDepth) return;
          const text = preDepth ? data : data.replace(/\s+/g, ' ');
          if (!preDepth && (out.endsWith('\n') || !out || out.endsWith(' ')) && text.startsWith(' ')) out += text.slice(1);
          else out += text;
          if (heading) heading.text += text;
        },
        onclosetag(name) {
          if (name === 'title') inTitle = false;
          if (SKIPPED.has(name)) {
            skipDepth = Math.max(0, skipDepth - 1);
            return;
          }
          if (skipDepth) return;
          if (name === 'pre') {
            preDepth = Math.max(0, preDepth - 1);
            if (pre !== null) atomic.push({ start: pre, end: out.length });
            pre = null;
          }
          if (heading && /^h[1-6]$/.test(name)) {
            const text = heading.text.replace(/\s+/g, ' ').trim();
            if (text) headings.push({ offset: heading.offset, level: heading.level, text });
            heading = null;
          }
          if (BLOCK.has(name)) breakBlock();
        },
      },
      { decodeEntities: true, lowerCaseTags: true },
    );
    tokenizer.write(html);
    tokenizer.end();
    const text = out.replace(/[ \t]+\n/g, '\n').trimEnd();
    const cleanTitle = title.replace(/\s+/g, ' ').trim();
    return {
      text,
      title: cleanTitle || headings.find((h) => h.level === 1)?.text || baseTitle(fileName),
      kind: 'html',
      tags,
      metadata,
      headings: headings.filter((h) => h.offset < text.length),
      atomic: atomic.map((r) => ({ start: r.start, end: Math.min(r.end, text.length) })).filter((r) => r.end > r.start),
      bodyStart: 0,
    };
  },
};

function readMeta(attrs: Record<string, string>, metadata: Record<string, unknown>, setTags: (t: string[]) => void): void {
  const name = (attrs.name ?? attrs.property ?? '').toLowerCase();
  const content = attrs.content?.trim();
  if (!name || !content) return;
  if (name === 'keywords') setTags(content.split(',').map((t) => t.trim().toLowerCase()).filter(Boolean));
  else if (name === 'description' || name === 'author' || name === 'og:description') metadata[name] = content;
}
