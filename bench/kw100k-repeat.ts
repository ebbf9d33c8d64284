// The median of repeated keyword searches for a few questions at 100k documents (issue 29): each
// asked a few times first (so a build's lists are made), then 15 times; medians resist a loaded
// machine better than one pass's percentiles. `npx tsx bench/kw100k-repeat.ts <profile> [question…]`
import { openScaleEngine } from './lib/scale-engine.js';
const [home, ...given] = process.argv.slice(2);
const questions = given.length ? given : ['what is return value', 'Requirements', 'what is system.string', 'Long description', 'Windows Runtime', 'Member functions example', 'Return value example', 'How to start and manage thread-based jobs'];
const e = await openScaleEngine(home!);
for (let i = 0; i < 6; i++) for (const q of questions) await e.search(q, 'keyword');
const out: Record<string, number> = {};
for (const q of questions) {
  const t: number[] = [];
  for (let i = 0; i < 15; i++) {
    const t0 = performance.now();
    await e.search(q, 'keyword');
    t.push(performance.now() - t0);
  }
  out[q] = +t.sort((a, b) => a - b)[7]!.toFixed(2);
}
console.log(JSON.stringify(out));
await e.close();
