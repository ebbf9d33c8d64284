// bench:scale's corpus: N documents drawn from the bench corpora (scale-sources.ts) with a seed —
// Markdown notes, code files, plain-text papers, and a share of PDF, DOCX, PPTX and XLSX documents —
// written once into a cache folder outside the repository and reused while its manifest says the
// same N, seed and version. Document i depends only on (seed, i), so a corpus of 5,000 is the first
// 5,000 documents of the one of 100,000, and a stopped run resumes (printed PDFs and Office files
// already there are kept).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { rng as seeded } from './memory-workload.js';
import { writeDocx, writePptx, writeXlsx } from './mixed-corpus.js';
import { markdownToHtml, printPdfs, titleOf, type PdfJob } from './pdf-corpus.js';
import { firstHeading, type Sources } from './scale-sources.js';

/** Bump when the drawing rules change: a cached corpus of another version is made anew. */
export const SCALE_CORPUS_VERSION = 1;

export type ScaleKind = 'markdown' | 'code' | 'text' | 'pdf' | 'docx' | 'pptx' | 'xlsx';

/** The mix: mostly notes and code, as a person's or a team's knowledge folder has, and one in ten a document. */
export const KIND_SHARES: readonly (readonly [ScaleKind, number])[] = [
  ['markdown', 0.62],
  ['code', 0.2],
  ['text', 0.08],
  ['pdf', 0.04],
  ['docx', 0.03],
  ['pptx', 0.015],
  ['xlsx', 0.015],
];

export interface ScaleDocument {
  kind: ScaleKind;
  /** Path inside the corpus folder. */
  path: string;
  /** The text written (for PDF and Office files, the Markdown they are made from). */
  text: string;
}

export interface ScaleManifest {
  version: number;
  seed: number;
  documents: number;
  kinds: Record<ScaleKind, number>;
  /** Bytes of the files on disk. */
  fileBytes: number;
  /** UTF-8 bytes of the text the documents carry (for PDF and Office files, the Markdown they were made from). */
  textBytes: number;
  /** Documents whose text is the same as an earlier one's (copies: change detection sees one text). */
  duplicates: number;
  /** Questions a person would ask of this corpus, in a fixed order (see questionsFor). */
  questions: string[];
}

/** Document i's own generator: independent of N, so smaller corpora are prefixes of larger ones. */
const rngFor = (seed: number, i: number) => seeded(Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(i + 1, 0xc2b2ae35));

const pick = <T>(rng: () => number, list: readonly T[]): T => list[Math.floor(rng() * list.length)]!;
const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 48) || 'untitled';
/** Log-normal around `median` (sigma in natural-log units), clamped: file sizes in a folder look like this. */
const logNormal = (rng: () => number, median: number, sigma: number, min: number, max: number) => {
  const gauss = Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
  return Math.min(max, Math.max(min, Math.round(median * Math.exp(sigma * gauss))));
};

/** Document i of the corpus drawn with `seed`. */
export function planDocument(sources: Sources, seed: number, i: number): ScaleDocument {
  const rng = rngFor(seed, i);
  let r = rng();
  const kind = KIND_SHARES.find(([, share]) => (r -= share) < 0)?.[0] ?? 'markdown';
  if (kind === 'code') return codeFile(sources, rng, i);
  if (kind === 'text') return paper(sources, rng, i);
  // documents are capped so one huge reference page does not become a 400-page PDF
  const { text, dir, stem } = note(sources, rng, kind === 'markdown' ? Infinity : 60_000);
  const top = kind === 'markdown' ? 'notes' : `documents/${kind}`;
  return { kind, path: `${top}/${dir}/${stem}-${i}.${kind === 'markdown' ? 'md' : kind}`, text };
}

/** A real document with about a quarter of its sections swapped for sections of others (never an exact copy). */
function note(sources: Sources, rng: () => number, maxChars: number): { text: string; dir: string; stem: string } {
  const base = pick(rng, sources.docs);
  let changed = false;
  const sections = base.sections.map((s, k) => {
    if (k === 0 || rng() >= 0.25) return s;
    changed = true;
    return pick(rng, sources.sections);
  });
  if (!changed) sections.push(pick(rng, sources.sections));
  let body = '';
  for (const s of sections) {
    if (body && body.length + s.length > maxChars) break;
    body += `${s}\n\n`;
  }
  const dir = `${base.corpus}/${path.posix.dirname(base.rel)}`.replace(/\/\.$/, '');
  return { text: `${base.frontMatter}${body}`, dir, stem: path.posix.basename(base.rel, '.md') };
}

/** A source file of one language: code blocks of that language until a drawn size is reached. */
function codeFile(sources: Sources, rng: () => number, i: number): ScaleDocument {
  const exts = [...sources.code.keys()].sort();
  const weights = exts.map((e) => sources.code.get(e)!.length);
  let r = rng() * weights.reduce((a, b) => a + b, 0);
  const ext = exts.find((_, k) => (r -= weights[k]!) < 0) ?? exts[0]!;
  const snippets = sources.code.get(ext)!;
  const target = logNormal(rng, 3_000, 0.9, 300, 60_000);
  const topic = firstHeading(pick(rng, sources.sections)) || 'module';
  const comment = ext === 'ps1' ? '#' : '//';
  let text = `${comment} ${topic}\n\n`;
  while (text.length < target) text += `${pick(rng, snippets).text}\n\n`;
  return { kind: 'code', path: `code/${ext}/project-${Math.floor(rng() * 64)}/${slug(topic)}-${i}.${ext}`, text };
}

/** A plain-text reading list of two to four SciFact abstracts, named by the first (one alone would repeat: SciFact has 5,183). */
function paper(sources: Sources, rng: () => number, i: number): ScaleDocument {
  const parts = Array.from({ length: 2 + Math.floor(rng() * 3) }, () => pick(rng, sources.abstracts));
  const text = parts.map((a) => `${a.title}\n\n${a.text}\n`).join('\n');
  const title = slug(parts[0]!.title);
  return { kind: 'text', path: `papers/${title.slice(0, 1)}/${title}-${i}.txt`, text };
}

/**
 * Questions from the corpus's own text: a heading of a drawn document put the way a person asks
 * (as bench:search does), and one in four a SciFact claim (a question about the papers).
 */
export function questionsFor(sources: Sources, seed: number, documents: number, count: number): string[] {
  const rng = seeded(seed * 31 + 7);
  const templates = [
    (h: string) => `how do I ${h.toLowerCase()}`,
    (h: string) => `what is ${h.toLowerCase()}`,
    (h: string) => `${h} example`,
    (h: string) => `why does ${h.toLowerCase()} fail`,
    (h: string) => h,
  ];
  const out: string[] = [];
  while (out.length < count) {
    if (rng() < 0.25) {
      out.push(pick(rng, sources.claims));
      continue;
    }
    const doc = planDocument(sources, seed, Math.floor(rng() * documents));
    const headings = [...doc.text.matchAll(/^#{1,3} +(.{12,80})$/gm)].map((m) => m[1]!.replace(/[`*_]/g, '').trim());
    if (headings.length) out.push(pick(rng, templates)(pick(rng, headings)));
  }
  return out;
}

export function scaleCorpusDir(documents: number, seed: number, cacheRoot = path.join(os.homedir(), '.cache', 'trove-bench')): string {
  return path.join(cacheRoot, `scale-${documents}-seed${seed}`);
}

/** The indexed folder inside a cache folder (the manifest sits beside it, so it is never indexed). */
export const corpusFolder = (cacheDir: string) => path.join(cacheDir, 'corpus');
const manifestFile = (cacheDir: string) => path.join(cacheDir, 'manifest.json');

/** The corpus's manifest if `cacheDir` holds a finished corpus of these parameters. */
export function readManifest(cacheDir: string, documents: number, seed: number): ScaleManifest | null {
  try {
    const m = JSON.parse(fs.readFileSync(manifestFile(cacheDir), 'utf8')) as ScaleManifest;
    return m.version === SCALE_CORPUS_VERSION && m.documents === documents && m.seed === seed ? m : null;
  } catch {
    return null;
  }
}

export interface BuildOptions {
  sources: Sources;
  /** The cache folder: the corpus goes into its `corpus/`, the manifest beside it. */
  cacheDir: string;
  documents: number;
  seed: number;
  questions: number;
  chromium: string;
  log?: (line: string) => void;
}

/** Writes the corpus into `opts.cacheDir` (the manifest last, so an interrupted build is finished next time). */
export async function buildScaleCorpus(opts: BuildOptions): Promise<ScaleManifest> {
  const { sources, documents, seed } = opts;
  const dir = corpusFolder(opts.cacheDir);
  const log = opts.log ?? (() => {});
  fs.rmSync(manifestFile(opts.cacheDir), { force: true });
  const kinds = Object.fromEntries(KIND_SHARES.map(([k]) => [k, 0])) as Record<ScaleKind, number>;
  const pdfs: PdfJob[] = [];
  const texts = new Set<string>();
  let textBytes = 0;
  let duplicates = 0;
  for (let i = 0; i < documents; i++) {
    const doc = planDocument(sources, seed, i);
    kinds[doc.kind]++;
    textBytes += Buffer.byteLength(doc.text);
    const digest = createHash('sha1').update(doc.text).digest('base64');
    if (texts.has(digest)) duplicates++;
    texts.add(digest);
    const target = path.join(dir, doc.path);
    const title = titleOf(doc.text) || path.basename(doc.path).replace(/-\d+\.\w+$/, '');
    if (doc.kind === 'pdf') {
      if (!fs.existsSync(target)) pdfs.push({ target, html: () => markdownToHtml(doc.text, title) });
    } else if (doc.kind === 'markdown' || doc.kind === 'code' || doc.kind === 'text') {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, doc.text);
    } else if (!fs.existsSync(target)) {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      const write = doc.kind === 'docx' ? writeDocx : doc.kind === 'pptx' ? writePptx : writeXlsx;
      await write(doc.text, title, `${target}.part`);
      fs.renameSync(`${target}.part`, target);
    }
    if ((i + 1) % 10_000 === 0) log(`${i + 1} of ${documents} documents planned and written (PDFs come last)`);
  }
  if (pdfs.length) {
    log(`printing ${pdfs.length} PDFs with Chromium …`);
    await printPdfs(pdfs, opts.chromium, (done) => {
      if (done % 500 === 0) log(`${done} of ${pdfs.length} PDFs printed`);
    });
  }
  const manifest: ScaleManifest = {
    version: SCALE_CORPUS_VERSION,
    seed,
    documents,
    kinds,
    fileBytes: folderBytes(dir),
    textBytes,
    duplicates,
    questions: questionsFor(sources, seed, documents, opts.questions),
  };
  fs.writeFileSync(manifestFile(opts.cacheDir), `${JSON.stringify(manifest, null, 1)}\n`);
  return manifest;
}

/** Bytes of the files under `dir`. */
export function folderBytes(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) total += fs.statSync(path.join(e.parentPath, e.name)).size;
  }
  return total;
}
