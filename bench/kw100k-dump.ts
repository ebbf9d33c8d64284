// Writes the keyword answers (docid, score rounded) of the 500 bench:scale questions at 100k, one
// line per question, to compare a change's answers with its base's (issue 29's top-k path).
import { readManifest, scaleCorpusDir } from './lib/scale-corpus.js';
import { openScaleEngine } from './lib/scale-engine.js';
import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
const [home, out, n = '500', passes = '1'] = process.argv.slice(2);
const m = readManifest(scaleCorpusDir(100000, 29, path.join(os.homedir(), '.cache', 'trove-bench')), 100000, 29)!;
const e = await openScaleEngine(home!);
let lines: string[] = [];
// later passes ask again in the same process, so the last one's answers come from warm caches (champion lists)
for (let pass = 1; pass <= Number(passes); pass++) {
  lines = [];
  for (const q of m.questions.slice(0, Number(n))) {
    const r = await e.search(q, 'keyword');
    lines.push(JSON.stringify({ q, hits: r.results.map((h) => [h.docid, h.score.toFixed(6), h.chunk.ordinal]) }));
  }
}
fs.writeFileSync(out!, lines.join('\n') + '\n');
await e.close();
