// reliability:crash [--small] [--notes N]: 50+ SIGKILLs at random points — 20 while indexing, 20
// while embedding, 10 in the middle of a model switch (all-MiniLM-L6-v2 → test-tiny-embedder), 10
// during agent memory's batch writes —
// each checked at once (integrity_check), resumed and compared with an uninterrupted run (rows,
// FTS, every vector); then a full disk at 5 different points. Needs TROVE_MODELS_DIR holding both models
// (the test models npm test builds: ~/.cache/trove/test-models). Prints each
// scenario's faults survived and problems, and one JSON line.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fullDisk, killAndResume, uninterrupted, type CrashOutcome } from '../../test/reliability/lib/crash-suite.js';
import { writeNotes } from '../../test/reliability/lib/generated-corpus.js';

const { values } = parseArgs({ options: { small: { type: 'boolean', default: false }, notes: { type: 'string' } } });
if (!process.env.TROVE_MODELS_DIR) throw new Error('reliability:crash embeds: set TROVE_MODELS_DIR to the models folder');
const plan = values.small ? { index: 2, embed: 2, switch: 1, memory: 1, disks: [16] } : { index: 20, embed: 20, switch: 10, memory: 10, disks: [8, 24, 64, 160, 400] };
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-bench-crash-'));
writeNotes(root, Number(values.notes ?? (values.small ? 10 : 60)));
const started = performance.now();
const outcomes: CrashOutcome[] = [];
try {
  outcomes.push(await killAndResume('index', root, plan.index));
  outcomes.push(await killAndResume('embed', root, plan.embed));
  const embedded = await uninterrupted('embed', root);
  outcomes.push(await killAndResume('switch', root, plan.switch, embedded.profile));
  fs.rmSync(embedded.profile, { recursive: true, force: true });
  outcomes.push(await killAndResume('memory', root, plan.memory));
  for (const kb of plan.disks) outcomes.push(await fullDisk(root, kb));
  for (const o of outcomes) console.log(`${o.problems.length ? 'FAIL' : 'ok  '} ${o.scenario.padEnd(38)} ${o.kills} fault(s), ${o.midway} mid-work${o.problems.length ? `\n  ${o.problems.join('\n  ')}` : ''}`);
  const faults = outcomes.reduce((n, o) => n + o.kills, 0);
  const survived = outcomes.filter((o) => !o.problems.length).reduce((n, o) => n + o.kills, 0);
  console.log(`${survived} of ${faults} faults survived in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  console.log(JSON.stringify({ bench: 'reliability:crash', faults, survived, scenarios: outcomes.map((o) => ({ scenario: o.scenario, kills: o.kills, midway: o.midway, problems: o.problems.length })) }));
  process.exitCode = survived === faults ? 0 : 1;
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
