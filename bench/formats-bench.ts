// bench:formats [--corpus dir] [--files N] [--mixed N] [--cache dir] [--queries N]
// Documents, measured on real PDFs: the first N Markdown files of a corpus (default
// ../shared/bench/corpora/powershell-docs) printed to PDF by headless Chromium into a cache folder
// outside the repo (built once), then, in the same run:
//   1. PDF extraction speed, Trove's parse workers (one per core) against poppler's `pdftotext`
//      (as many processes as cores): pages/s and MB/s, and the ratio (goal ≥ 0.25x);
//   2. word-level agreement of Trove's text with pdftotext's (bag of words, goal ≥ 97%);
//   3. keyword quality: known-item questions (a heading found in one file only) against the
//      Markdown originals and against their PDFs, nDCG@10 of each (goal: within 0.02);
//   4. a mixed folder (Markdown, PDF, DOCX, PPTX, XLSX, EPUB) indexed kind by kind: files/s per
//      kind, and the process's peak RSS (workers included).
// Prints figures on stderr and one JSON line on stdout. Needs Chromium and pdftotext (Debian:
// chromium, poppler-utils).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { DEFAULT_CHUNKING } from '../src-main/engine/ingest/chunker.js';
import { ParsePool } from '../src-main/engine/ingest/parse-pool.js';
import { Engine } from '../src-main/engine/index.js';
import { buildMixedFolder } from './lib/mixed-corpus.js';
import { buildPdfCorpus, markdownFiles } from './lib/pdf-corpus.js';

const { values } = parseArgs({
  options: {
    corpus: { type: 'string' },
    files: { type: 'string', default: '600' },
    mixed: { type: 'string', default: '40' },
    cache: { type: 'string' },
    queries: { type: 'string', default: '300' },
    chromium: { type: 'string', default: process.env.TROVE_CHROMIUM ?? '/usr/bin/chromium' },
  },
});
const root = path.resolve(import.meta.dirname, '..');
const corpus = path.resolve(values.corpus ?? path.join(root, '../shared/bench/corpora/powershell-docs'));
const cores = os.availableParallelism();
const cache = path.resolve(values.cache ?? path.join(os.homedir(), '.cache', 'trove-bench', `formats-${path.basename(corpus)}`));
const mdFiles = markdownFiles(corpus, Number(values.files));
const pdfDir = path.join(cache, 'pdf');
const files = await buildPdfCorpus(corpus, mdFiles, pdfDir, values.chromium);
const run = promisify(execFile);

// ---- 1 + 2: extraction speed and agreement ------------------------------------------------------
const pdfPaths = files.map((f) => path.join(pdfDir, f.pdf));
const bytes = pdfPaths.reduce((n, p) => n + fs.statSync(p).size, 0);
const pool = new ParsePool(DEFAULT_CHUNKING, { workers: cores });
await pool.prepare(fs.readFileSync(pdfPaths[0]!), 'warm-up.pdf'); // start the workers and load pdf.js before timing
const ours = new Array<string>(pdfPaths.length);
let pages = 0;
let failures = 0;
let t0 = performance.now();
await inParallel(pdfPaths, cores * 2, async (p, i) => {
  const r = await pool.prepare(fs.readFileSync(p), p);
  if (!r.ok) {
    failures++;
    ours[i] = '';
    return;
  }
  pages += Number(r.metadata.pages ?? 0);
  ours[i] = r.text;
});
const troveMs = performance.now() - t0;
await pool.close();

const theirs = new Array<string>(pdfPaths.length);
t0 = performance.now();
await inParallel(pdfPaths, cores, async (p, i) => {
  theirs[i] = (await run('pdftotext', ['-enc', 'UTF-8', p, '-'], { maxBuffer: 256 * 1024 * 1024 })).stdout;
});
const popplerMs = performance.now() - t0;

const agreement = wordAgreement(ours, theirs);
const extraction = {
  files: pdfPaths.length,
  pages,
  mb: +(bytes / 1e6).toFixed(1),
  failures,
  trove_pages_per_s: +(pages / (troveMs / 1000)).toFixed(1),
  trove_mb_per_s: +(bytes / 1e6 / (troveMs / 1000)).toFixed(2),
  pdftotext_pages_per_s: +(pages / (popplerMs / 1000)).toFixed(1),
  pdftotext_mb_per_s: +(bytes / 1e6 / (popplerMs / 1000)).toFixed(2),
  ratio: +(popplerMs / troveMs).toFixed(3),
  word_agreement: +agreement.overall.toFixed(4),
  worst_files: agreement.worst.map((w) => ({ file: files[w.index]!.pdf, agreement: +w.agreement.toFixed(3) })),
};
console.error(
  `extraction: ${extraction.files} PDFs, ${pages} pages, ${extraction.mb} MB on ${cores} cores — Trove ${extraction.trove_pages_per_s} pages/s ` +
    `(${extraction.trove_mb_per_s} MB/s), pdftotext ${extraction.pdftotext_pages_per_s} pages/s (${extraction.pdftotext_mb_per_s} MB/s): ` +
    `${extraction.ratio}x; word agreement ${(agreement.overall * 100).toFixed(2)}%`,
);

// ---- 3: keyword quality, Markdown originals against their PDFs ----------------------------------
// the selected files in folders of their own (copies of the Markdown, links to the cached PDFs)
const setDir = path.join(cache, `set-${files.length}`);
const mdDir = path.join(setDir, 'md');
const pdfSetDir = path.join(setDir, 'pdf');
for (const f of files) {
  for (const [from, to] of [[path.join(corpus, f.markdown), path.join(mdDir, f.markdown)], [path.join(pdfDir, f.pdf), path.join(pdfSetDir, f.pdf)]] as const) {
    if (fs.existsSync(to)) continue;
    fs.mkdirSync(path.dirname(to), { recursive: true });
    if (to.endsWith('.pdf')) fs.linkSync(from, to);
    else fs.copyFileSync(from, to);
  }
}
const questions = knownItemQuestions(corpus, files.map((f) => f.markdown), Number(values.queries));
const quality = { questions: questions.length, markdown_ndcg10: 0, pdf_ndcg10: 0, difference: 0 };
for (const [kind, dir, ext] of [['markdown', mdDir, '.md'], ['pdf', pdfSetDir, '.pdf']] as const) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), `trove-bench-formats-${kind}-`));
  const engine = await Engine.open({ profileDir: home });
  await engine.addCollection({ root: dir, name: kind });
  await engine.index();
  await engine.compactIndex();
  let sum = 0;
  for (const q of questions) {
    const hits = (await engine.search({ query: q.query, limit: 10 })).results.map((r) => r.path);
    const rank = hits.indexOf(q.file.replace(/\.md$/, ext));
    if (rank >= 0) sum += 1 / Math.log2(rank + 2);
  }
  await engine.close();
  fs.rmSync(home, { recursive: true, force: true });
  quality[kind === 'markdown' ? 'markdown_ndcg10' : 'pdf_ndcg10'] = +(sum / Math.max(1, questions.length)).toFixed(4);
}
quality.difference = +(quality.pdf_ndcg10 - quality.markdown_ndcg10).toFixed(4);
console.error(`keyword quality: ${quality.questions} known-item questions, nDCG@10 Markdown ${quality.markdown_ndcg10}, PDF ${quality.pdf_ndcg10} (${quality.difference >= 0 ? '+' : ''}${quality.difference})`);

// ---- 4: a mixed folder, kind by kind ------------------------------------------------------------
const mixedDir = path.join(cache, `mixed-${values.mixed}`);
await buildMixedFolder(corpus, files.map((f) => f.markdown), pdfDir, files.map((f) => f.pdf), mixedDir, Number(values.mixed));
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-bench-formats-mixed-'));
const engine = await Engine.open({ profileDir: home });
// warm up first: the parse workers start, and each loads its parsers (pdf.js) on first use
const warm = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-bench-formats-warm-'));
for (const kind of ['pdf', 'docx', 'pptx', 'xlsx', 'epub']) {
  for (const f of fs.readdirSync(path.join(mixedDir, kind)).slice(0, cores)) fs.copyFileSync(path.join(mixedDir, kind, f), path.join(warm, f));
}
await engine.addCollection({ root: warm, name: 'warm-up' });
await engine.index({ collection: 'warm-up' });
fs.rmSync(warm, { recursive: true, force: true });
const perKind: Record<string, { files: number; mb: number; seconds: number; files_per_s: number }> = {};
for (const kind of ['md', 'pdf', 'docx', 'pptx', 'xlsx', 'epub']) {
  const dir = path.join(mixedDir, kind);
  const names = fs.readdirSync(dir);
  const mb = names.reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0) / 1e6;
  await engine.addCollection({ root: dir, name: `mixed-${kind}` });
  const started = performance.now();
  await engine.index({ collection: `mixed-${kind}` });
  const seconds = (performance.now() - started) / 1000;
  perKind[kind] = { files: names.length, mb: +mb.toFixed(2), seconds: +seconds.toFixed(2), files_per_s: +(names.length / seconds).toFixed(1) };
}
const failed = (await engine.status()).collections.filter((c) => c.name.startsWith('mixed-')).reduce((n, c) => n + c.failed, 0);
await engine.close();
fs.rmSync(home, { recursive: true, force: true });
const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
console.error(`mixed folder: ${Object.entries(perKind).map(([k, v]) => `${k} ${v.files_per_s} files/s`).join(', ')}; ${failed} failed; peak RSS ${peakRssMb} MB (whole run)`);

console.log(JSON.stringify({ corpus: path.basename(corpus), cores, load: os.loadavg().map((l) => +l.toFixed(2)), extraction, quality, mixed: { per_kind: perKind, failed }, peak_rss_mb: peakRssMb }));

// ---- helpers ---------------------------------------------------------------------------------------

async function inParallel<T>(items: T[], width: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i]!, i);
    }
  }));
}

/** Bag-of-words agreement: shared words over the larger of the two counts, over all files (markers left out). */
function wordAgreement(a: string[], b: string[]): { overall: number; worst: { index: number; agreement: number }[] } {
  const words = (s: string) => {
    const m = new Map<string, number>();
    for (const w of s.replace(/^\[(page|slide|sheet|chapter)[^\n]*\]$/gm, '').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) m.set(w, (m.get(w) ?? 0) + 1);
    return m;
  };
  let shared = 0;
  let total = 0;
  const per: { index: number; agreement: number }[] = [];
  a.forEach((text, i) => {
    const x = words(text);
    const y = words(b[i] ?? '');
    let s = 0;
    for (const [w, n] of x) s += Math.min(n, y.get(w) ?? 0);
    const big = Math.max([...x.values()].reduce((n, v) => n + v, 0), [...y.values()].reduce((n, v) => n + v, 0));
    shared += s;
    total += big;
    per.push({ index: i, agreement: big ? s / big : 1 });
  });
  return { overall: total ? shared / total : 1, worst: per.sort((p, q) => p.agreement - q.agreement).slice(0, 5) };
}

/** Headings that occur in one selected file only, asked as a question; that file is the answer. */
function knownItemQuestions(dir: string, rel: string[], limit: number): { query: string; file: string }[] {
  const where = new Map<string, Set<string>>();
  for (const f of rel) {
    const md = fs.readFileSync(path.join(dir, f), 'utf8');
    for (const m of md.matchAll(/^#{1,3} +(.{12,80})$/gm)) {
      // what a reader sees of the heading: a link's text, not its target; about_Aliases → about Aliases (the words either text has)
      const h = m[1]!.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*_]+/g, ' ').replace(/\s+/g, ' ').trim();
      if (!where.has(h)) where.set(h, new Set());
      where.get(h)!.add(f);
    }
  }
  const unique = [...where].filter(([, s]) => s.size === 1).map(([h, s]) => ({ query: h, file: [...s][0]! }));
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = unique.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [unique[i], unique[j]] = [unique[j]!, unique[i]!];
  }
  return unique.slice(0, limit);
}
