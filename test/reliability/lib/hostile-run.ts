// Runs the hostile corpus through a real engine: writes it, indexes it while files change and
// vanish, then checks every row of the table and every good file, and measures peak RSS. Shared
// by the fast test (small scale) and `npm run reliability:hostile` (full scale).
import fs from 'node:fs';
import path from 'node:path';
import { Engine, type IndexReport } from '../../../src-main/engine/index.js';
import { HOSTILE, markerFor, unlock, writeGoodCorpus, type Expectation, type Scale } from './hostile-corpus.js';

export interface RowOutcome {
  kind: string;
  expect: Expectation;
  files: number;
  problems: string[];
}

export interface HostileOutcome {
  badFiles: number;
  goodFiles: number;
  goodMissing: string[];
  rows: RowOutcome[];
  churn: string[];
  reported: number;
  peakRssMb: number;
  indexMs: number;
}

export async function runHostileCorpus(opts: { dir: string; scale: Scale; goodFiles: number; maxFileBytes?: number }): Promise<HostileOutcome> {
  const root = path.join(opts.dir, 'corpus');
  fs.mkdirSync(root, { recursive: true });
  const good = writeGoodCorpus(root, opts.goodFiles);
  const rows = HOSTILE.map((row) => ({ row, marker: markerFor(row), paths: row.make(root, opts.scale, markerFor(row)) }));
  const engine = await Engine.open({ profileDir: path.join(opts.dir, 'profile'), ...(opts.maxFileBytes ? { maxFileBytes: opts.maxFileBytes } : {}) });
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  try {
    await engine.addCollection({ root, name: 'corpus' });
    const churn = startChurn(root);
    const started = performance.now();
    let reports: IndexReport[];
    try {
      reports = await engine.index();
    } finally {
      churn.stop();
    }
    const indexMs = performance.now() - started;
    reports = [...reports, ...(await engine.index())]; // the churned files settle; a second run over the hostile files is quiet
    peak = Math.max(peak, process.memoryUsage().rss);

    const reasons = new Map<string, string>();
    for (const r of reports) for (const e of [...r.skipped, ...r.failed, ...r.notices]) reasons.set(e.path, e.reason);
    for (const f of await engine.failures()) reasons.set(f.path, f.reason);
    const indexed = new Set(await engine.documentPaths('corpus'));
    const found = async (marker: string) => new Set((await engine.search({ query: marker, limit: 100 })).results.map((h) => h.path));

    const outcomes: RowOutcome[] = [];
    for (const { row, marker, paths } of rows) {
      const problems: string[] = [];
      const hits = await found(marker);
      for (const p of paths) {
        const reported = [...reasons.entries()].find(([k, why]) => (k === p || p.startsWith(`${k}/`)) && why.trim().length > 0);
        if (row.expect === 'indexed' && !hits.has(p)) problems.push(`${JSON.stringify(p)} is not found by its marker`);
        if (row.expect === 'reported' && !reported) problems.push(`${JSON.stringify(p)} was not reported with a reason`);
        if (row.expect === 'reported' && indexed.has(p)) problems.push(`${JSON.stringify(p)} was indexed`);
        if (row.expect === 'ignored' && (indexed.has(p) || hits.size)) problems.push(`${JSON.stringify(p)} (or its target) was indexed`);
      }
      outcomes.push({ kind: row.kind, expect: row.expect, files: paths.length, problems });
    }
    const goodMissing: string[] = [];
    for (const g of good) if (!(await found(g.marker)).has(g.path)) goodMissing.push(g.path);
    const churnProblems = checkChurn(root, indexed, await found('churnfinalversion'));
    return {
      badFiles: rows.reduce((n, r) => n + r.paths.length, 0),
      goodFiles: good.length,
      goodMissing,
      rows: outcomes,
      churn: churnProblems,
      reported: reasons.size,
      peakRssMb: Math.round(Math.max(peak, peakFromProc()) / 2 ** 20),
      indexMs: Math.round(indexMs),
    };
  } finally {
    clearInterval(sampler);
    await engine.close();
    unlock(root);
  }
}

/** A file rewritten over and over and files appearing and vanishing while the index runs. */
function startChurn(root: string): { stop(): void } {
  const dir = path.join(root, 'churn');
  fs.mkdirSync(dir, { recursive: true });
  let n = 0;
  const timer = setInterval(() => {
    n++;
    fs.writeFileSync(path.join(dir, 'changing.md'), `# Changing\n\nchurnversion${n}\n${'filler text '.repeat(n % 50)}\n`);
    const born = path.join(dir, `vanishing-${n}.md`);
    fs.writeFileSync(born, `# Vanishing ${n}\n`);
    if (n > 1) fs.rmSync(path.join(dir, `vanishing-${n - 1}.md`), { force: true });
    if (n % 7 === 0) fs.rmSync(born, { force: true });
  }, 3);
  return {
    stop() {
      clearInterval(timer);
      fs.writeFileSync(path.join(dir, 'changing.md'), '# Changing\n\nchurnfinalversion\n');
      for (const f of fs.readdirSync(dir)) if (f.startsWith('vanishing-')) fs.rmSync(path.join(dir, f));
    },
  };
}

/** After the settling run: the changed file has its last content, and no vanished file is left in the index. */
/** `finalVersion`: what a search for the changing file's final marker, churnfinalversion, finds. */
function checkChurn(root: string, indexed: Set<string>, finalVersion: Set<string>): string[] {
  const problems: string[] = [];
  if (!finalVersion.has('churn/changing.md')) problems.push('churn/changing.md does not have its final content');
  const ghosts = [...indexed].filter((p) => p.startsWith('churn/vanishing-') && !fs.existsSync(path.join(root, p)));
  if (ghosts.length) problems.push(`vanished files still indexed: ${ghosts.slice(0, 3).join(', ')}`);
  return problems;
}

/** The kernel's high-water mark of this process's RSS (Linux), or 0. */
function peakFromProc(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}
