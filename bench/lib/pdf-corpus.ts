// The PDF corpus of bench:formats: Markdown files of a corpus rendered to HTML (a small converter:
// headings, paragraphs, lists, tables, code) and printed to PDF by headless Chromium, the same
// printing as `chromium --print-to-pdf`, driven through playwright-core so one browser prints them
// all. Built once into a cache folder outside the repository and reused.
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

export interface CorpusFile {
  /** Path of the Markdown original, relative to the corpus. */
  markdown: string;
  /** Path of its PDF, relative to the cache folder. */
  pdf: string;
}

/** Markdown files of a corpus in a stable order (sorted paths), at most `limit`. */
export function markdownFiles(dir: string, limit: number): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(d, e.name), r);
      else if (e.name.endsWith('.md') && e.name !== 'SOURCE.md') out.push(r);
    }
  };
  walk(dir, '');
  return out.slice(0, limit);
}

/** Prints every file not printed yet; returns them all. */
export async function buildPdfCorpus(corpus: string, files: string[], cache: string, chromiumPath: string): Promise<CorpusFile[]> {
  const out = files.map((markdown) => ({ markdown, pdf: markdown.replace(/\.md$/, '.pdf') }));
  const missing = out.filter((f) => !fs.existsSync(path.join(cache, f.pdf)));
  if (!missing.length) return out;
  console.error(`printing ${missing.length} PDFs into ${cache} (once) …`);
  await printPdfs(
    missing.map((f) => ({
      target: path.join(cache, f.pdf),
      html: () => {
        const md = fs.readFileSync(path.join(corpus, f.markdown), 'utf8');
        return markdownToHtml(md, titleOf(md) || path.basename(f.markdown, '.md'));
      },
    })),
    chromiumPath,
  );
  return out;
}

export interface PdfJob {
  /** Where the PDF goes (written as `<target>.part`, then renamed: a stopped run leaves no half file). */
  target: string;
  /** The page to print, made when its turn comes (so a long list holds no pages in memory). */
  html: () => string;
}

/** Prints pages to A4 PDFs in one headless Chromium, two pages at a time (the machine has two cores). */
export async function printPdfs(jobs: readonly PdfJob[], chromiumPath: string, onPrinted?: (done: number) => void): Promise<void> {
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    let next = 0;
    let done = 0;
    const worker = async () => {
      const page = await browser.newPage();
      while (next < jobs.length) {
        const job = jobs[next++]!;
        await page.setContent(job.html(), { waitUntil: 'load' });
        fs.mkdirSync(path.dirname(job.target), { recursive: true });
        await page.pdf({ path: `${job.target}.part`, format: 'A4', margin: { top: '2cm', bottom: '2cm', left: '2cm', right: '2cm' } });
        fs.renameSync(`${job.target}.part`, job.target);
        onPrinted?.(++done);
      }
      await page.close();
    };
    await Promise.all([worker(), worker()]);
  } finally {
    await browser.close();
  }
}

/** The title the Markdown parser gives the original (front matter title, else the first H1): the PDF's document title. */
export function titleOf(md: string): string {
  const fm = /^---\n([\s\S]*?)\n---\n/.exec(md.replace(/\r\n?/g, '\n'));
  const fmTitle = fm && /^title:\s*(.+)$/m.exec(fm[1]!)?.[1]?.trim().replace(/^['"]|['"]$/g, '');
  return fmTitle || /^#\s+(.+)$/m.exec(md)?.[1]?.trim() || '';
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const inline = (s: string) =>
  esc(s)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1');

/** Enough Markdown for realistic pages: front matter dropped, headings, paragraphs, lists, tables, code. */
export function markdownToHtml(md: string, title: string): string {
  const lines = md.replace(/\r\n?/g, '\n').replace(/^---\n[\s\S]*?\n---\n/, '').split('\n');
  const html: string[] = [];
  let para: string[] = [];
  let list: string[] = [];
  let table: string[][] = [];
  const flush = () => {
    if (para.length) html.push(`<p>${inline(para.join(' '))}</p>`);
    if (list.length) html.push(`<ul>${list.map((l) => `<li>${inline(l)}</li>`).join('')}</ul>`);
    if (table.length) html.push(`<table>${table.map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join('')}</tr>`).join('')}</table>`);
    para = [];
    list = [];
    table = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      flush();
      const code: string[] = [];
      while (++i < lines.length && !lines[i]!.trimStart().startsWith(fence[1]!)) code.push(lines[i]!);
      html.push(`<pre>${esc(code.join('\n'))}</pre>`);
      continue;
    }
    const h = /^(#{1,6})\s+(.*?)\s*#*$/.exec(line);
    if (h) {
      flush();
      html.push(`<h${h[1]!.length}>${inline(h[2]!)}</h${h[1]!.length}>`);
    } else if (/^\s*([-*+]|\d+\.)\s+/.test(line)) {
      if (para.length || table.length) flush();
      list.push(line.replace(/^\s*([-*+]|\d+\.)\s+/, ''));
    } else if (/^\s*\|.*\|\s*$/.test(line)) {
      if (para.length || list.length) flush();
      if (!/^\s*\|[\s:|-]+\|\s*$/.test(line)) table.push(line.trim().slice(1, -1).split('|').map((c) => c.trim()));
    } else if (!line.trim()) flush();
    else para.push(line.trim());
  }
  flush();
  return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(title)}</title><style>
    body { font-family: 'DejaVu Serif', serif; font-size: 11pt; line-height: 1.4; }
    pre { font-family: 'DejaVu Sans Mono', monospace; font-size: 9pt; white-space: pre-wrap; }
    table { border-collapse: collapse; } td { border: 1px solid #999; padding: 2px 6px; }
  </style></head><body>${html.join('\n')}</body></html>`;
}
