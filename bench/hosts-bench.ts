// bench:hosts --database <url> --corpus <dir> [--hosts 2,4] [--runs 1]: several Trove hosts
// indexing one folder into one PostgreSQL at once. For 1 host and each count in --hosts, a fresh
// collection of the folder is made (`trove collection add --no-index --database`), that many
// `trove index --database` processes are started together, and the wall time until the last one
// exits is taken (process start-up included, as a user sees it). Then the exactly-once check:
// every scanned file is a document once, each added by one host only, no chunk twice, every chunk
// with its keyword row once, the queue empty — and the collection is removed again. Prints
// files/s per host count and one JSON line with "backend": "postgres".
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';

const { values } = parseArgs({
  options: { database: { type: 'string' }, corpus: { type: 'string' }, hosts: { type: 'string', default: '2,4' }, runs: { type: 'string', default: '1' } },
});
if (!values.database || !values.corpus) {
  console.error('usage: npm run bench:hosts -- --database <postgresql://…> --corpus <dir> [--hosts 2,4] [--runs N]');
  process.exit(2);
}
const url = values.database;
const corpus = path.resolve(values.corpus);
const counts = [...new Set([1, ...values.hosts.split(',').map(Number)])].filter((n) => Number.isInteger(n) && n > 0);
const root = path.resolve(import.meta.dirname, '..');
const bin = path.join(root, 'bin/trove.js');

console.error('building the CLI (tsc)…');
spawnSync('npx', ['tsc', '-p', 'tsconfig.node.json'], { cwd: root, stdio: 'inherit' });

interface Report {
  scanned: number;
  added: number;
  updated: number;
  unchanged: number;
  chunks: number;
  failed: unknown[];
  skipped: unknown[];
}

function trove(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-bench-host-'));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args, '--json', '--database', url], { env: { ...process.env, TROVE_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      fs.rmSync(home, { recursive: true, force: true });
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

async function must(args: string[]): Promise<string> {
  const r = await trove(args);
  if (r.code !== 0) throw new Error(`trove ${args.join(' ')} failed (${r.code}): ${r.stderr.slice(-2000)}`);
  return r.stdout;
}

const client = new pg.Client({ connectionString: url });
await client.connect();

async function check(name: string) {
  const one = async (sql: string) => (await client.query<{ n: number }>(sql, [name])).rows[0]!.n;
  const of = 'JOIN documents d ON d.id = c.document_id JOIN collections k ON k.id = d.collection_id WHERE k.name = $1';
  return {
    documents: await one('SELECT count(*)::int AS n FROM documents d JOIN collections k ON k.id = d.collection_id WHERE k.name = $1 AND d.parent_id IS NULL'),
    chunks: await one(`SELECT count(*)::int AS n FROM chunks c ${of}`),
    distinctChunks: await one(`SELECT count(DISTINCT (c.document_id, c.ordinal))::int AS n FROM chunks c ${of}`),
    keywordRows: await one(`SELECT count(*)::int AS n FROM chunks_fts f JOIN chunks c ON c.id = f.chunk_id ${of}`),
    jobs: await one('SELECT count(*)::int AS n FROM jobs j JOIN collections k ON k.id = j.collection_id WHERE k.name = $1'),
  };
}

interface Run {
  hosts: number;
  seconds: number;
  files: number;
  filesPerSecond: number;
  addedPerHost: number[];
  documents: number;
  chunks: number;
  exactlyOnce: boolean;
}

const runs: Run[] = [];
for (let r = 0; r < Number(values.runs); r++) {
  for (const hosts of counts) {
    const name = `bench-hosts-${hosts}-${process.pid}-${r}`;
    await must(['collection', 'add', corpus, '--name', name, '--no-index']);
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: hosts }, () => trove(['index', '--collection', name, '--no-embed'])));
    const seconds = (performance.now() - started) / 1000;
    const reports = results.map((x) => {
      if (x.code !== 0) throw new Error(`a host failed (${x.code}): ${x.stderr.slice(-2000)}`);
      return (JSON.parse(x.stdout) as { reports: Report[] }).reports[0]!;
    });
    const files = Math.max(...reports.map((x) => x.scanned));
    const problems = reports.reduce((n, x) => n + x.failed.length + x.skipped.length, 0);
    const c = await check(name);
    const added = reports.map((x) => x.added);
    const exactlyOnce =
      added.reduce((a, b) => a + b, 0) === files - problems &&
      c.documents === files &&
      c.distinctChunks === c.chunks &&
      c.keywordRows === c.chunks &&
      reports.reduce((n, x) => n + x.chunks, 0) === c.chunks &&
      c.jobs === 0;
    runs.push({ hosts, seconds, files, filesPerSecond: files / seconds, addedPerHost: added, documents: c.documents, chunks: c.chunks, exactlyOnce });
    console.error(`${hosts} host(s): ${files} files in ${seconds.toFixed(2)} s (${(files / seconds).toFixed(0)} files/s), added per host ${added.join('/')}, exactly once: ${exactlyOnce}`);
    await must(['collection', 'remove', name]);
  }
}
await client.end();

const load = os.loadavg().map((n) => n.toFixed(2)).join(' ');
console.log(`\nbench:hosts ${corpus} — ${new Date().toISOString()} (load ${load}, ${os.cpus().length} cores)`);
console.log('| hosts | wall s | files | files/s | added per host | documents | chunks | exactly once |');
console.log('| ---: | ---: | ---: | ---: | --- | ---: | ---: | --- |');
for (const r of runs) {
  console.log(`| ${r.hosts} | ${r.seconds.toFixed(2)} | ${r.files} | ${r.filesPerSecond.toFixed(0)} | ${r.addedPerHost.join(' / ')} | ${r.documents} | ${r.chunks} | ${r.exactlyOnce ? 'yes' : 'NO'} |`);
}
console.log(JSON.stringify({ bench: 'hosts', backend: 'postgres', corpus, load, runs }));
if (runs.some((r) => !r.exactlyOnce)) process.exitCode = 1;
