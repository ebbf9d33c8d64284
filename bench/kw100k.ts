import { readManifest, scaleCorpusDir } from './lib/scale-corpus.js';
import { openScaleEngine } from './lib/scale-engine.js';
import { percentile } from './lib/mcp-http.js';
import os from 'node:os'; import path from 'node:path';
const home = process.argv[2]!; const n = Number(process.argv[3] ?? 500);
const m = readManifest(scaleCorpusDir(100000, 29, path.join(os.homedir(), '.cache', 'trove-bench')), 100000, 29)!;
const qs = m.questions.slice(0, n);
const e = await openScaleEngine(home);
for (const q of qs.slice(0, 50)) await e.search(q, 'keyword');
for (let round = 0; round < Number(process.argv[4] ?? 2); round++) { // a third round: after every list is made (search/champion-lists.ts)
const times: number[] = []; const slow: [number, string][] = [];
for (const q of qs) { const t0 = performance.now(); await e.search(q, 'keyword'); const t = performance.now() - t0; times.push(t); slow.push([t, q]); }
times.sort((a, b) => a - b);
console.log(JSON.stringify({ round, p50: percentile(times, 0.5).toFixed(2), p95: percentile(times, 0.95).toFixed(2), p99: percentile(times, 0.99).toFixed(2), load: os.loadavg()[0] }));
if (round === 1) console.log(slow.sort((a, b) => b[0] - a[0]).slice(0, 12).map(([t, q]) => `${t.toFixed(1)} ${q}`).join('\n'));
}
await e.close();
