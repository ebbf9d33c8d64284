// bench:ocr — Trove's OCR (OcrEngine: tesseract.js-core in niced worker threads) side by side with
// Debian's tesseract CLI on the same scans, in the same run. Builds its scan set (bench/lib/ocr-scans.ts:
// clean, noisy and 2°-skewed pages at 300 dpi, photo-like pages at 150 dpi, English and Chinese,
// as image-only PDFs and as PNG/JPEG), reads every page with both, and prints one JSON line: word
// accuracy per variant (character accuracy for Chinese) and pages/s with both cores busy (Trove:
// its pool, one worker per core, niced by 10; the CLI: one process per core, OMP_THREAD_LIMIT=1,
// its best throughput here — with OpenMP on, one page at a time was slower on 2 shared cores —
// at the same niceness).
//   npm run bench:ocr [-- --pages 2 --zh-pages 2 --rounds 1 --out scans-dir]
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { downloadModel } from '../src-main/engine/embed/downloader.js';
import { findModel, loadManifest } from '../src-main/engine/embed/manifest.js';
import { OcrEngine } from '../src-main/engine/ocr/ocr-engine.js';
import { buildScans, type Lang, type Scan, type Variant } from './lib/ocr-scans.js';
import { CHINESE, ENGLISH } from './lib/ocr-texts.js';

const args = process.argv.slice(2);
const arg = (name: string, def: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const outDir = args.includes('--out') ? args[args.indexOf('--out') + 1]! : null;
const PAGES = arg('pages', 2);
const ZH_PAGES = arg('zh-pages', 2);
const ROUNDS = arg('rounds', 1);
const CORES = os.availableParallelism();
const NICE = 10; // ocr-pool.ts's default

const cli = spawnSync('tesseract', ['--version'], { encoding: 'utf8' });
if (cli.status !== 0) throw new Error('bench:ocr compares with the tesseract CLI: apt-get install tesseract-ocr tesseract-ocr-chi-sim');
const cliVersion = /tesseract (\S+)/.exec(cli.stdout + cli.stderr)?.[1] ?? '?';

// Chinese language data for Trove: pulled like `trove models pull tesseract-chi_sim` into a bench cache
const manifest = loadManifest();
const cacheDir = path.join(os.homedir(), '.cache', 'trove-bench', 'models');
await downloadModel(findModel(manifest, 'tesseract-chi_sim', 'ocr'), cacheDir);

const plan: { lang: Lang; variant: Variant; pages: number }[] = [
  ...(['clean', 'noisy', 'skewed', 'photo150'] as const).map((variant) => ({ lang: 'eng' as const, variant, pages: PAGES })),
  { lang: 'chi_sim', variant: 'clean', pages: ZH_PAGES },
];
const scans = await buildScans({ eng: ENGLISH, chi_sim: CHINESE }, plan);
if (outDir) {
  fs.mkdirSync(outDir, { recursive: true });
  for (const s of scans) {
    fs.writeFileSync(path.join(outDir, `${s.id}.${s.imageExt}`), s.image);
    if (s.pdf) fs.writeFileSync(path.join(outDir, `${s.id}.pdf`), s.pdf);
    fs.writeFileSync(path.join(outDir, `${s.id}.txt`), s.truth);
  }
}
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-ocr-bench-'));
for (const s of scans) fs.writeFileSync(path.join(work, `${s.id}.${s.imageExt}`), s.image);

const engine = new OcrEngine({ models: { manifest, locations: { cacheDir } } });

async function troveRun(): Promise<{ texts: Map<string, string>; seconds: number }> {
  const texts = new Map<string, string>();
  const t0 = performance.now();
  await Promise.all(scans.map(async (s) => {
    const r = await engine.recognize({ kind: s.pdf ? 'pdf' : 'image', bytes: s.pdf ?? s.image, languages: [s.lang], fileName: s.id });
    if (r.failed.length) throw new Error(`${s.id}: ${r.failed.map((f) => f.reason).join('; ')}`);
    texts.set(s.id, r.pages.map((p) => p.text).join('\n'));
  }));
  return { texts, seconds: (performance.now() - t0) / 1000 };
}

async function cliRun(): Promise<{ texts: Map<string, string>; seconds: number }> {
  const texts = new Map<string, string>();
  const queue = [...scans];
  const t0 = performance.now();
  const one = (s: Scan) => new Promise<void>((resolve, reject) => {
    // at the niceness of Trove's workers, so the shared machine's other load weighs on both alike
    const p = spawn('nice', ['-n', String(NICE), 'tesseract', path.join(work, `${s.id}.${s.imageExt}`), 'stdout', '-l', s.lang, '--psm', '3'], { env: { ...process.env, OMP_THREAD_LIMIT: '1' } });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? (texts.set(s.id, out), resolve()) : reject(new Error(`tesseract exited ${code} on ${s.id}`))));
  });
  await Promise.all(Array.from({ length: CORES }, async () => {
    for (let s = queue.shift(); s; s = queue.shift()) await one(s);
  }));
  return { texts, seconds: (performance.now() - t0) / 1000 };
}

// warm-up: each of Trove's workers started, with its languages and PDFium loaded (a host keeps them between files)
const firstOf = (lang: Lang) => scans.find((s) => s.lang === lang && s.pdf)!;
for (const lang of ['eng', 'chi_sim'] as const) {
  await Promise.all(Array.from({ length: CORES }, () => engine.recognize({ kind: 'pdf', bytes: firstOf(lang).pdf!, languages: [lang] })));
}

const load = () => os.loadavg()[0]!.toFixed(1);
const loadBefore = load();
const trove: { texts: Map<string, string>; seconds: number }[] = [];
const tess: { texts: Map<string, string>; seconds: number }[] = [];
for (let r = 0; r < ROUNDS; r++) {
  trove.push(await troveRun());
  tess.push(await cliRun());
}
await engine.close();
fs.rmSync(work, { recursive: true, force: true });

const accuracy = (texts: Map<string, string>, filter: (s: Scan) => boolean, measure: (truth: string, got: string) => number) => {
  const chosen = scans.filter(filter);
  return round(chosen.reduce((n, s) => n + measure(s.truth, texts.get(s.id) ?? ''), 0) / chosen.length);
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rate = (runs: { seconds: number }[]) => round(scans.length / median(runs.map((r) => r.seconds)), 3);
const eng = (v: Variant) => (s: Scan) => s.lang === 'eng' && s.variant === v;
const line: Record<string, unknown> = { bench: 'ocr', pages: scans.length, cores: CORES, rounds: ROUNDS, load_before: Number(loadBefore), load_after: Number(load()) };
for (const v of ['clean', 'noisy', 'skewed', 'photo150'] as const) {
  line[`trove_word_accuracy_${v}`] = accuracy(trove[0]!.texts, eng(v), wordAccuracy);
  line[`tesseract_word_accuracy_${v}`] = accuracy(tess[0]!.texts, eng(v), wordAccuracy);
}
line.trove_char_accuracy_zh = accuracy(trove[0]!.texts, (s) => s.lang === 'chi_sim', charAccuracy);
line.tesseract_char_accuracy_zh = accuracy(tess[0]!.texts, (s) => s.lang === 'chi_sim', charAccuracy);
line.trove_pages_per_s = rate(trove);
line.tesseract_pages_per_s = rate(tess);
line.speed_ratio = round((line.trove_pages_per_s as number) / (line.tesseract_pages_per_s as number), 2);
line.trove_engine = `tesseract.js-core (WebAssembly), tessdata_best int (@tesseract.js-data), ${CORES} worker threads`;
line.tesseract_engine = `tesseract ${cliVersion} CLI, Debian tessdata (fast), ${CORES} processes, OMP_THREAD_LIMIT=1, nice ${NICE}`;
console.log(JSON.stringify(line));

function round(x: number, digits = 4): number {
  return Number(x.toFixed(digits));
}

/** Typographic variants both engines may print for the same mark. */
function normalise(s: string): string {
  return s.normalize('NFKC').replace(/[‘’‛′]/g, "'").replace(/[“”„″]/g, '"').replace(/[‐‑‒–—]/g, '-');
}

/** 1 − word edit distance / words in the truth (whitespace and line breaks do not count). */
function wordAccuracy(truth: string, got: string): number {
  const a = normalise(truth).split(/\s+/).filter(Boolean);
  const b = normalise(got).split(/\s+/).filter(Boolean);
  return Math.max(0, 1 - editDistance(a, b) / a.length);
}

/** 1 − character edit distance / characters in the truth, whitespace left out (Chinese has none). */
function charAccuracy(truth: string, got: string): number {
  const a = [...normalise(truth).replace(/\s+/g, '')];
  const b = [...normalise(got).replace(/\s+/g, '')];
  return Math.max(0, 1 - editDistance(a, b) / a.length);
}

function editDistance(a: string[], b: string[]): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}
