// bench:index <dir> [--peer qmd] [--exclude glob]…: indexing throughput of the real CLI in a
// child process (files/s, MB/s, chunks/s, peak RSS, DB size), optionally side by side with qmd
// indexing the same Markdown files (../shared/bench/peers/qmd.sh).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { peer: { type: 'string' }, exclude: { type: 'string', multiple: true }, runs: { type: 'string', default: '1' } },
});
const dir = positionals[0] && path.resolve(positionals[0]);
if (!dir) {
  console.error('usage: npm run bench:index -- <dir> [--peer qmd] [--exclude <glob>]… [--runs N]');
  process.exit(2);
}
const root = path.resolve(import.meta.dirname, '..');
const qmdScript = path.resolve(root, '../shared/bench/peers/qmd.sh');
// qmd never indexes folders named `build`: compare on the same files
const excludes = values.exclude ?? (values.peer === 'qmd' ? ['**/build/**'] : []);

console.error('building the CLI (tsc)…');
spawnSync('npx', ['tsc', '-p', 'tsconfig.node.json'], { cwd: root, stdio: 'inherit' });

interface Run {
  tool: string;
  seconds: number;
  files: number;
  mb: number;
  chunks: number | null;
  peakRssMb: number;
  /** user + system CPU seconds of the indexing process, all its threads: steadier than wall time on a shared machine */
  cpuSeconds: number;
  dbMb: number;
}

function timed(cmd: string, args: string[], env: NodeJS.ProcessEnv): { seconds: number; peakRssMb: number; cpuSeconds: number; stdout: string } {
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M %U %S', cmd, ...args], { env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  const [rssKb, user, system] = r.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
  return { seconds, peakRssMb: rssKb! / 1024, cpuSeconds: user! + system!, stdout: r.stdout };
}

function dirSizeMb(p: string, filter: (f: string) => boolean = () => true): number {
  let total = 0;
  for (const e of fs.readdirSync(p, { withFileTypes: true, recursive: true })) {
    const f = path.join(e.parentPath, e.name);
    if (e.isFile() && filter(f)) total += fs.statSync(f).size;
  }
  return total / 1e6;
}

function runTrove(): Run {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-bench-index-'));
  const args = [path.join(root, 'bin/trove.js'), '--json', 'collection', 'add', dir!, '--name', 'bench', ...excludes.flatMap((g) => ['--exclude', g])];
  const r = timed(process.execPath, args, { ...process.env, TROVE_HOME: home });
  const out = JSON.parse(r.stdout) as { index: { added: number; chunks: number; bytesRead: number } };
  const run: Run = {
    tool: 'trove',
    seconds: r.seconds,
    files: out.index.added,
    mb: out.index.bytesRead / 1e6,
    chunks: out.index.chunks,
    peakRssMb: r.peakRssMb,
    cpuSeconds: r.cpuSeconds,
    dbMb: dirSizeMb(home),
  };
  fs.rmSync(home, { recursive: true, force: true });
  return run;
}

function runQmd(): Run {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'qmd-bench-'));
  // reuse the installed peer (qmd.sh install) but give each run a fresh home
  const peerDir = process.env.QMD_PEER_DIR ?? '/tmp/qmd-peer';
  const home = path.join(scratch, 'home');
  fs.mkdirSync(path.join(home, '.cache'), { recursive: true });
  fs.mkdirSync(path.join(home, '.config', 'qmd'), { recursive: true });
  const env = {
    ...process.env,
    PATH: `${peerDir}/n22/node_modules/.bin:${process.env.PATH}`,
    NODE_LLAMA_CPP_SKIP_DOWNLOAD: 'true',
    HOME: home,
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_CONFIG_HOME: path.join(home, '.config'),
    QMD_CONFIG_DIR: path.join(home, '.config', 'qmd'),
  };
  const cli = `${peerDir}/app/node_modules/@tobilu/qmd/dist/cli/qmd.js`;
  if (!fs.existsSync(cli)) throw new Error(`qmd is not installed: run ${qmdScript} install`);
  const node = `${peerDir}/n22/node_modules/.bin/node`;
  const r = timed(node, [cli, 'collection', 'add', dir!, '--name', 'bench', '--mask', '**/*.md'], env);
  const m = /Indexed:\s*(\d+)\s*new/i.exec(r.stdout) ?? /(\d+)\s+(?:new|files|documents)/i.exec(r.stdout);
  const run: Run = {
    tool: 'qmd 2.8.3',
    seconds: r.seconds,
    files: m ? Number(m[1]) : NaN,
    mb: NaN,
    chunks: null,
    peakRssMb: r.peakRssMb,
    cpuSeconds: r.cpuSeconds,
    dbMb: dirSizeMb(home, (f) => f.endsWith('.sqlite') || f.endsWith('.db') || f.includes('.sqlite-')),
  };
  fs.rmSync(scratch, { recursive: true, force: true });
  return run;
}

const runs: Run[] = [];
for (let i = 0; i < Number(values.runs); i++) {
  runs.push(runTrove());
  if (values.peer === 'qmd') runs.push(runQmd());
}
const fmt = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '—');
console.log(`\nbench:index ${dir}${excludes.length ? ` (excluding ${excludes.join(', ')})` : ''} — ${new Date().toISOString()}`);
console.log('| tool | wall s | CPU s | files | files/s | MB/s | chunks/s | peak RSS MB | DB MB |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const r of runs) {
  console.log(
    `| ${r.tool} | ${fmt(r.seconds, 2)} | ${fmt(r.cpuSeconds, 2)} | ${r.files} | ${fmt(r.files / r.seconds, 0)} | ${fmt(r.mb / r.seconds)} | ` +
      `${r.chunks === null ? '—' : fmt(r.chunks / r.seconds, 0)} | ${fmt(r.peakRssMb, 0)} | ${fmt(r.dbMb)} |`,
  );
}
const trove = runs.filter((r) => r.tool === 'trove');
const qmd = runs.filter((r) => r.tool !== 'trove');
if (qmd.length) {
  const best = (rs: Run[]) => Math.min(...rs.map((r) => r.seconds));
  console.log(`\ntrove/qmd wall-time ratio (best of ${trove.length}): ${(best(trove) / best(qmd)).toFixed(2)}x`);
}
console.log(JSON.stringify({ runs }));
