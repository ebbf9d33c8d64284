// bench:soak [--kills N] [--corpus dir]: SIGKILL a full index of the cpp-docs collection at N
// random moments (each child resumes the queue the previous one left), check the database after
// every kill, then let it finish and compare with an uninterrupted run: documents, chunks, FTS
// rows, integrity, leftover jobs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { Engine, readEnvironment } from '../src-main/engine/index.js';
import { runChild, snapshot } from '../test/live/crash-helpers.js';

const { values } = parseArgs({
  options: {
    kills: { type: 'string', default: '50' },
    corpus: { type: 'string', default: path.resolve(import.meta.dirname, '../../shared/bench/corpora/cpp-docs/docs') },
    batch: { type: 'string', default: '64' },
    'max-lines': { type: 'string', default: '12' },
  },
});
const KILLS = Number(values.kills);
const BATCH = Number(values.batch);
const MAX_LINES = Number(values['max-lines']);

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-bench-soak-'));
const root = path.join(work, 'docs');
try {
  console.error(`copying ${values.corpus} → ${root}`);
  fs.cpSync(values.corpus!, root, { recursive: true });

  const baseProfile = path.join(work, 'baseline');
  const t0 = performance.now();
  const engine = await Engine.open({ ...readEnvironment(process.env).engine, profileDir: baseProfile, indexing: { batchFiles: BATCH } });
  await engine.addCollection({ root, name: 'corpus' });
  await engine.index();
  await engine.close();
  const baseSeconds = (performance.now() - t0) / 1000;
  const baseline = snapshot(path.join(baseProfile, 'index.sqlite'));
  console.error(`uninterrupted: ${baseline.documents.length} documents, ${baseline.chunks} chunks in ${baseSeconds.toFixed(1)} s`);

  const profile = path.join(work, 'soak');
  const db = path.join(profile, 'index.sqlite');
  let midway = 0;
  let integrityOk = 0;
  let checked = 0;
  const progress: number[] = [];
  for (let i = 0; i < KILLS; i++) {
    // lines: 1 "ready", 2 scanning, then two per batch (start, end): the kill lands anywhere from
    // the start-up scan to a few batches in, and up to 40 ms after the line (inside a transaction)
    const line = 1 + Math.floor(Math.random() * MAX_LINES);
    const delay = Math.floor(Math.random() * 40);
    const run = await runChild(profile, root, BATCH, line, delay);
    if (run.killed && !run.finished) midway++;
    if (!fs.existsSync(db)) continue;
    const handle = new Database(db, { readonly: true });
    checked++;
    if (handle.pragma('integrity_check', { simple: true }) === 'ok') integrityOk++;
    progress.push((handle.prepare('SELECT count(*) AS n FROM documents').get() as { n: number }).n);
    handle.close();
    process.stderr.write(`kill ${i + 1}/${KILLS} at line ${line} + ${delay} ms: ${progress.at(-1)} documents so far\n`);
  }
  const final = await runChild(profile, root, BATCH, -1);
  const result = snapshot(db);
  const same =
    JSON.stringify(result.documents) === JSON.stringify(baseline.documents) && result.chunks === baseline.chunks && result.ftsRows === baseline.chunks;
  console.log(`soak: ${KILLS} SIGKILLs during a full index of ${baseline.documents.length} cpp-docs files (batches of ${BATCH}; each kill at a random progress line 1-${MAX_LINES} + 0-40 ms)`);
  console.log(`  killed mid-work: ${midway}/${KILLS}; integrity_check ok after ${integrityOk}/${checked} kills; documents after each kill: ${progress.join(' ')}`);
  console.log(
    `  after the final run (${final.finished ? 'finished' : 'did not finish'}): documents ${result.documents.length} vs ${baseline.documents.length} uninterrupted, ` +
      `chunks ${result.chunks} vs ${baseline.chunks}, FTS rows ${result.ftsRows}, leftover jobs ${result.jobs}, duplicate paths ${result.duplicatePaths}, ` +
      `integrity ${result.integrity}, FTS integrity ${result.ftsIntegrity}; identical to the uninterrupted index: ${same ? 'yes' : 'NO'}`,
  );
  if (!same || result.integrity !== 'ok' || result.jobs !== 0) process.exitCode = 1;
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
