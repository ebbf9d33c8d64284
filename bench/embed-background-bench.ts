// bench:embed-background <profile dir>: how long a host's background embedding stage takes to give
// every chunk of an indexed (not yet embedded) profile a vector while nobody searches, with the
// process's CPU seconds (its model workers are threads of it). Run it on a fresh copy each time.
import { Engine, readEnvironment } from '../src-main/engine/index.js';
const env = readEnvironment(process.env).engine;
const t0 = performance.now();
const c0 = process.cpuUsage();
const e = await Engine.open({ ...env, profileDir: process.argv[2] ?? '', embeddings: { ...env.embeddings, auto: true } });
for (;;) {
  const st = await e.status();
  if (st.needsEmbedding === 0 && st.hasVectorIndex) break;
  await new Promise((r) => setTimeout(r, 500));
}
const c = process.cpuUsage(c0);
console.log(`background fill: wall ${((performance.now() - t0) / 1000).toFixed(1)} s, cpu ${((c.user + c.system) / 1e6).toFixed(1)} s`);
await e.close();
