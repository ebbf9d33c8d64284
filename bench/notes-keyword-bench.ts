// bench:notes-keyword [--home DIR] [--rounds 50]: in-process keyword search over reliability:load's
// 5,000 generated notes, asked the load test's six questions. The notes draw on 60 words, so every
// question's words are in nearly every chunk and a search ranks all ~23,000: the reader threads'
// cost under reliability:load, apart from the load. The profile is built once in DIR (kept: run
// it under `valgrind --tool=callgrind` with two round counts for the instructions a search).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Engine } from '../src-main/engine/index.js';
import { writeNotes } from '../test/reliability/lib/generated-corpus.js';

const { values } = parseArgs({ options: { home: { type: 'string' }, rounds: { type: 'string', default: '50' } } });
const home = path.resolve(values.home ?? path.join(os.tmpdir(), 'trove-bench-notes-keyword'));
const rounds = Number(values.rounds);
const profileDir = path.join(home, 'profile');
const fresh = !fs.existsSync(profileDir);
const engine = await Engine.open({ profileDir });
if (fresh) {
  writeNotes(path.join(home, 'big'), 5000, 3); // the load test's big collection
  await engine.addCollection({ root: path.join(home, 'big'), name: 'big' });
  await engine.index();
}
const questions = ['keeper wind swell', 'retries jitter herd', 'lantern harbour', 'gannets puffins cliff', 'compass glacier summit', 'copper signal orchard'];
const search = (query: string) => engine.search({ query, limit: 10, mode: 'keyword' });
for (const q of questions) await search(q);
const times: number[] = [];
const cpu0 = process.cpuUsage();
for (let r = 0; r < rounds; r++) {
  for (const q of questions) {
    const t0 = performance.now();
    await search(q);
    times.push(performance.now() - t0);
  }
}
const cpu = process.cpuUsage(cpu0);
times.sort((a, b) => a - b);
const at = (p: number) => +times[Math.min(times.length - 1, Math.floor(times.length * p))]!.toFixed(2);
const { totals } = await engine.status();
await engine.close();
console.log(JSON.stringify({ bench: 'notes-keyword', chunks: totals.chunks, searches: times.length, p50_ms: at(0.5), p95_ms: at(0.95), cpu_ms_per_search: +((cpu.user + cpu.system) / 1000 / times.length).toFixed(2), load: os.loadavg()[0] }));
