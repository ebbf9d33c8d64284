// bench:ocr-live [--rounds N] [--cold] [--database <postgresql://… admin URL>]: how long a scanned page takes
// to become searchable by its words after it is written into a watched folder of an idle host (the
// issue's goal: ≤ 10 s). A host engine (background OCR on, as `trove serve` and the app run it)
// watches a folder of text notes; each round writes a new scanned page (a 300 dpi English page from
// bench:ocr's scan set, PNG or image-only PDF, never seen before: the page cache cannot answer) and
// searches every 100 ms for a word only that page has. Prints one JSON line: each round's seconds,
// median, max. With --database the index is a new PostgreSQL database on that server (dropped after).
// --cold: every round is the first scan of a host just started on the index (no parse or OCR worker
// up yet), as on a host that has been idle for a while (its workers leave after 30 s idle).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Engine } from '../src-main/engine/index.js';
import { buildScans } from './lib/ocr-scans.js';
import { CHINESE, ENGLISH } from './lib/ocr-texts.js';

const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const rounds = Number(opt('rounds') ?? 4);
const admin = opt('database');
const cold = args.includes('--cold');

// the English text's pages, clean then noisy (new bytes each: the page cache cannot answer), PDF and PNG alternating
const all = await buildScans({ eng: ENGLISH, chi_sim: CHINESE }, [
  { lang: 'eng', variant: 'clean', pages: 99 },
  { lang: 'eng', variant: 'noisy', pages: 99 },
  { lang: 'eng', variant: 'photo150', pages: 99 },
]);
const scans = Array.from({ length: rounds }, (_, i) => all[i % all.length]!);
if (rounds > all.length) throw new Error(`at most ${all.length} rounds (distinct pages)`);
// a long word of the page (a hit on this round's file is what counts: earlier pages may have it too)
const probes = scans.map((s) => (s.truth.toLowerCase().match(/[a-z]{8,}/g) ?? [])[0] ?? 'harbour');

let database: string | undefined;
let dbName: string | undefined;
if (admin) {
  dbName = `trove_bench_ocrlive_${process.pid}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  const template = (await c.query("SELECT 1 FROM pg_database WHERE datname = 'trove_template'")).rowCount ? ' TEMPLATE trove_template' : '';
  await c.query(`CREATE DATABASE ${dbName}${template}`);
  await c.end();
  const u = new URL(admin);
  u.pathname = `/${dbName}`;
  database = u.toString();
}

const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-bench-ocrlive-'));
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-bench-ocrlive-root-'));
for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(root, `note-${i}.md`), `# Note ${i}\n\nA text note about the harbour, number ${i}.\n`);
const seconds: number[] = [];
/** Per round, seconds from the write: indexed by name (the index run done), OCR started, the page recognised. */
const phases: { indexed: number | null; ocrStarted: number | null; recognised: number | null }[] = [];
let t0 = 0;
let phase = { indexed: null as number | null, ocrStarted: null as number | null, recognised: null as number | null };
const since = () => Math.round((performance.now() - t0) / 10) / 100;

/** A host on the profile, watching, with the round's phases recorded. */
async function openHost(): Promise<Engine> {
  const e = await Engine.open({ profileDir, database, ocr: { auto: true }, embeddings: { auto: false } });
  e.onProgress((p) => {
    if (p.phase === 'idle' && p.done > 0) phase.indexed ??= since();
  });
  e.onOcrProgress((p) => {
    phase.ocrStarted ??= since();
    if (p.recognised + p.cached + p.failed > 0) phase.recognised ??= since();
  });
  return e;
}

let engine = await openHost();
try {
  await engine.addCollection({ root, name: 'live' });
  await engine.index();
  await engine.startWatching();
  // rounds follow each other closely, so after the first one the workers are up (unless --cold)
  for (const [i, s] of scans.entries()) {
    if (cold && i > 0) {
      await engine.stopWatching();
      await engine.close();
      engine = await openHost();
      await engine.startWatching();
    }
    await new Promise((r) => setTimeout(r, 1500)); // idle: the watcher and stages quiet
    const file = path.join(root, `scan-${i}.${s.pdf ? 'pdf' : s.imageExt}`);
    phase = { indexed: null, ocrStarted: null, recognised: null };
    t0 = performance.now();
    fs.writeFileSync(file, s.pdf ?? s.image);
    for (;;) {
      const r = await engine.search({ query: probes[i]!, mode: 'keyword', limit: 50 });
      if (r.results.some((h) => h.path === path.basename(file))) break;
      if (performance.now() - t0 > 120_000) throw new Error(`scan ${i} not searchable after 120 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
    seconds.push(since());
    phases.push(phase);
  }
} finally {
  await engine.stopWatching();
  await engine.close();
  if (admin && dbName) {
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await c.end();
  }
  fs.rmSync(profileDir, { recursive: true, force: true });
  fs.rmSync(root, { recursive: true, force: true });
}
const sorted = [...seconds].sort((a, b) => a - b);
console.log(
  JSON.stringify({
    backend: admin ? 'postgres' : 'sqlite',
    cold,
    rounds: seconds.length,
    first_s: seconds[0],
    seconds,
    phases,
    median_s: sorted[Math.floor(sorted.length / 2)],
    max_s: sorted.at(-1),
    containers: scans.map((s) => (s.pdf ? 'pdf' : s.imageExt)),
    loadavg: os.loadavg().map((x) => Math.round(x * 100) / 100),
  }),
);
