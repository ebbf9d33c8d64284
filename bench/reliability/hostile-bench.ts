// reliability:hostile [--small] [--good N]: the hostile corpus at full scale — hundreds of bad files
// (an 8 GB sparse file, a 50 MB single line with the per-file limit raised to 64 MB so it is really
// chunked, 40 copies of each repeatable row) beside N good files (default 2,000) while files churn.
// Prints each row's outcome, the good files found, peak RSS, and one JSON line.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runHostileCorpus } from '../../test/reliability/lib/hostile-run.js';

const { values } = parseArgs({ options: { small: { type: 'boolean', default: false }, good: { type: 'string' } } });
const scale = values.small ? 'small' : 'full';
const goodFiles = Number(values.good ?? (values.small ? 100 : 2000));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-bench-hostile-'));
try {
  const out = await runHostileCorpus({ dir, scale, goodFiles, maxFileBytes: scale === 'full' ? 64 * 2 ** 20 : undefined });
  for (const r of out.rows) console.log(`${r.problems.length ? 'FAIL' : 'ok  '} ${r.kind.padEnd(44)} ${r.expect.padEnd(9)} ${String(r.files).padStart(4)} file(s)${r.problems.length ? `  ${r.problems.join('; ')}` : ''}`);
  console.log(`bad files: ${out.badFiles} (${out.reported} reported with a reason); good files: ${out.goodFiles}, not found: ${out.goodMissing.length}; churn: ${out.churn.length ? out.churn.join('; ') : 'ok'}`);
  console.log(`index run: ${(out.indexMs / 1000).toFixed(1)} s; peak RSS ${out.peakRssMb} MB`);
  const failed = out.rows.filter((r) => r.problems.length).length + out.goodMissing.length + out.churn.length;
  console.log(JSON.stringify({ bench: 'reliability:hostile', scale, badFiles: out.badFiles, reported: out.reported, goodFiles: out.goodFiles, goodMissing: out.goodMissing.length, rowsFailed: out.rows.filter((r) => r.problems.length).length, peakRssMb: out.peakRssMb, indexMs: out.indexMs }));
  process.exitCode = failed ? 1 : 0;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
