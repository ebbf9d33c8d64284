import { Engine } from '/work/main/src-main/engine/engine.ts';
import fs from 'node:fs';
const home = '/tmp/smoke-home'; fs.rmSync(home, {recursive:true, force:true});
const e = Engine.open({ profileDir: home });
e.addCollection({ root: '/work/shared/bench/corpora/cpp-docs', name: 'cpp', exclude: ['**/build/**'] });
let t = performance.now();
const r = await e.index();
console.log(JSON.stringify({...r[0], skipped: r[0].skipped.slice(0,5), failed: r[0].failed.slice(0,5), notices: r[0].notices.slice(0,5)}), performance.now()-t, 'ms', process.memoryUsage().rss/1e6);
for (const q of ['how do I allocate memory with new', 'lambda capture', '"move constructor"', 'std::vector push_back']) {
  t = performance.now();
  const s = e.search({ query: q, limit: 3, explain: true });
  console.log(q, (performance.now()-t).toFixed(2), s.plan, s.results.map(x => [x.path, x.score, x.snippet.slice(0, 120)]));
}
console.log(e.status().totals);
t = performance.now(); const r2 = await e.index(); console.log('reindex', performance.now()-t, r2[0].unchanged);
e.close();
