// Format parsers (markdown, html, code, text) and byte decoding.
import { describe, expect, it } from 'vitest';
import { decodeText } from '../../src-main/engine/ingest/decode.js';
import { parserFor } from '../../src-main/engine/ingest/parsers/index.js';
import { markdownParser } from '../../src-main/engine/ingest/parsers/markdown.js';
import { htmlParser } from '../../src-main/engine/ingest/parsers/html.js';

describe('markdown', () => {
  it('reads front matter into title, tags and metadata', () => {
    const text = '---\ntitle: "Retry Guide"\ntags: [Networking, "#http"]\nauthor: Ada\ndate: 2024-05-01\n---\n# Heading One\n\nBody.\n';
    const doc = markdownParser.parse(text, 'notes/retry.md');
    expect(doc.title).toBe('Retry Guide');
    expect(doc.tags).toEqual(['networking', 'http']);
    expect(doc.metadata).toMatchObject({ author: 'Ada', date: '2024-05-01' }); // dates stay strings
    expect(doc.bodyStart).toBe(text.indexOf('# Heading One'));
    expect(doc.text).toBe(text); // nothing is removed from what get serves
    expect(doc.kind).toBe('markdown');
  });

  it('accepts tags as a comma or space separated string, and keywords', () => {
    expect(markdownParser.parse('---\ntags: a, b c\n---\nx', 'a.md').tags).toEqual(['a', 'b', 'c']);
    expect(markdownParser.parse('---\nkeywords: [k1]\n---\nx', 'a.md').tags).toEqual(['k1']);
  });

  it('keeps broken front matter as text and says why', () => {
    const text = '---\ntitle: [unclosed\n---\n# Real Title\n';
    const doc = markdownParser.parse(text, 'broken.md');
    expect(doc.bodyStart).toBe(0);
    expect(doc.title).toBe('Real Title');
    expect(typeof doc.metadata.front_matter_error).toBe('string');
  });

  it('finds ATX and setext headings with their offsets and levels, ignoring fenced code', () => {
    const text = [
      '# ATX One #',
      'Setext One',
      '==========',
      'para',
      '',
      'Setext Two',
      '----------',
      '```',
      '# not a heading',
      '```',
      '###### Six',
      '- list item',
      '---',
      '####### seven hashes is text',
    ].join('\n');
    const doc = markdownParser.parse(text, 'h.md');
    expect(doc.headings.map((h) => [h.level, h.text])).toEqual([
      [1, 'ATX One'],
      [1, 'Setext One'],
      [2, 'Setext Two'],
      [6, 'Six'],
    ]);
    // offsets point at the heading's own line (for setext: the text line, not the underline)
    expect(doc.headings.map((h) => text.slice(h.offset, text.indexOf('\n', h.offset)))).toEqual([
      '# ATX One #',
      'Setext One',
      'Setext Two',
      '###### Six',
    ]);
    expect(doc.atomic).toHaveLength(1);
    expect(text.slice(doc.atomic[0]!.start, doc.atomic[0]!.end)).toBe('```\n# not a heading\n```');
  });

  it('strips inline markup from heading text and takes the first h1 as title', () => {
    const doc = markdownParser.parse('intro\n\n## Sub\n\n# The `code` and [link](http://x) *title*\n', 'doc.md');
    expect(doc.title).toBe('The code and link title');
    expect(doc.headings.map((h) => h.text)).toEqual(['Sub', 'The code and link title']);
  });

  it('falls back to the file name for a title', () => {
    expect(markdownParser.parse('no headings here', 'dir/my-note.md').title).toBe('my-note');
  });

  it('keeps an unclosed fence whole to the end of the file', () => {
    const text = 'a\n\n~~~\ncode\n# x\n';
    const doc = markdownParser.parse(text, 'u.md');
    expect(doc.headings).toEqual([]);
    expect(doc.atomic[0]!.end).toBe(text.length);
    expect(text.slice(doc.atomic[0]!.start)).toBe('~~~\ncode\n# x\n');
  });
});

describe('html', () => {
  const html = `<!doctype html><html><head><title> Page  Title </title>
    <meta name="keywords" content="Alpha, beta">
    <meta name="description" content="A page">
    <style>.x { color: red }</style><script>var secret = "do not index";</script></head>
    <body><h1>Main &amp; Heading</h1><p>First   paragraph with <b>bold</b> text.</p>
    <script>alert("nope")</script><noscript>enable js</noscript>
    <h2>Second</h2><pre>line 1
  indented line 2</pre><ul><li>one</li><li>two</li></ul></body></html>`;
  const doc = htmlParser.parse(html, 'page.html');

  it('keeps readable text only: no tags, scripts or styles', () => {
    expect(doc.text).not.toMatch(/<|>|color: red|do not index|alert|enable js/);
    expect(doc.text).toContain('Main & Heading');
    expect(doc.text).toContain('First paragraph with bold text.');
    expect(doc.text).toContain('line 1\n  indented line 2'); // pre keeps whitespace
    expect(doc.text).toMatch(/one\n+two/);
  });

  it('reads title, keywords and description', () => {
    expect(doc.title).toBe('Page Title');
    expect(doc.tags).toEqual(['alpha', 'beta']);
    expect(doc.metadata).toMatchObject({ description: 'A page' });
    expect(doc.kind).toBe('html');
  });

  it('records headings at their offsets in the readable text, and pre blocks as atomic', () => {
    expect(doc.headings.map((h) => [h.level, h.text, doc.text.slice(h.offset, h.offset + h.text.length)])).toEqual([
      [1, 'Main & Heading', 'Main & Heading'],
      [2, 'Second', 'Second'],
    ]);
    expect(doc.atomic.map((r) => doc.text.slice(r.start, r.end))).toEqual(['line 1\n  indented line 2']);
  });

  it('uses the h1 when there is no <title>', () => {
    expect(htmlParser.parse('<h1>Only H1</h1><p>x</p>', 'a.html').title).toBe('Only H1');
  });
});

describe('parserFor', () => {
  it('picks a parser by extension', () => {
    expect(parserFor('a/b.MD').kind).toBe('markdown');
    expect(parserFor('x.htm').kind).toBe('html');
    expect(parserFor('x.txt').kind).toBe('text');
    expect(parserFor('Makefile').kind).toBe('text');
    const code = parserFor('src/main.py').parse('def f():\n    return 1\n', 'src/main.py');
    expect(code).toMatchObject({ kind: 'code', title: 'main.py', metadata: { language: 'python' } });
    expect(code.text).toBe('def f():\n    return 1\n');
  });
});

describe('decodeText', () => {
  it('decodes UTF-8 and strips a BOM', () => {
    expect(decodeText(Buffer.from('\ufeffhéllo', 'utf8'))).toEqual({ ok: true, text: 'héllo' });
  });

  it('decodes UTF-16 LE and BE with a BOM', () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('héllo 世界', 'utf16le')]);
    expect(decodeText(le)).toEqual({ ok: true, text: 'héllo 世界' });
    const be = Buffer.from(Buffer.from('héllo 世界', 'utf16le')).swap16();
    expect(decodeText(Buffer.concat([Buffer.from([0xfe, 0xff]), be]))).toEqual({ ok: true, text: 'héllo 世界' });
  });

  it('refuses binary content', () => {
    expect(decodeText(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]))).toEqual({
      ok: false,
      reason: 'binary content (not text)',
    });
    expect(decodeText(Buffer.from(Array.from({ length: 200 }, (_, i) => (i % 5) + 1)))).toMatchObject({ ok: false });
  });

  it('falls back to windows-1252 for invalid UTF-8 and says so', () => {
    // café “q” – 5€ in windows-1252: the bytes 0x80-0x9f are where it differs from latin1
    const r = decodeText(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x93, 0x71, 0x94, 0x20, 0x96, 0x20, 0x35, 0x80]));
    expect(r).toEqual({ ok: true, text: 'café “q” – 5€', note: 'invalid UTF-8; decoded as windows-1252' });
  });

  it('normalises CRLF and CR line endings', () => {
    expect(decodeText(Buffer.from('a\r\nb\rc\n'))).toEqual({ ok: true, text: 'a\nb\nc\n' });
  });
});
