import { Engine } from '/work/main/src-main/engine/engine.ts';
import fs from 'node:fs';
const home = '/tmp/prof-home'; fs.rmSync(home, {recursive:true, force:true});
const e = Engine.open({ profileDir: home });
e.addCollection({ root: '/work/shared/bench/corpora/cpp-docs', name: 'cpp', exclude: ['**/build/**'] });
const t = performance.now();
await e.index();
console.log(performance.now()-t);
e.close();
