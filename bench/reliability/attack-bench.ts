// reliability:attack: every row of the attack table against a real host (DNS rebinding, tokens,
// scope escapes (agent memory too), path traversal, oversized and malformed), slow-drip clients and 1,000 parallel
// connections. Prints attempts and refusals per group, anything that got through or leaked, the
// refusals the host logged by reason, and one JSON line.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DNS_REBINDING, manyConnections, MEMORY_ESCAPES, OVERSIZED, runAttacks, SCOPE_ESCAPES, slowDrip, startTarget, TOKENS, TRAVERSALS } from '../../test/reliability/lib/attacks.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-bench-attack-'));
const quiet = process.stderr.write.bind(process.stderr);
process.stderr.write = (() => true) as typeof process.stderr.write; // the host's refusal log; counted below instead
const t = await startTarget(dir, { headersTimeoutMs: 2000, requestTimeoutMs: 4000 });
try {
  const out = await runAttacks(t, [...DNS_REBINDING, ...TOKENS, ...SCOPE_ESCAPES, ...MEMORY_ESCAPES, ...TRAVERSALS, ...OVERSIZED, slowDrip('headers'), slowDrip('body'), manyConnections(1000)]);
  process.stderr.write = quiet;
  const groups = new Map<string, { tried: number; refused: number }>();
  for (const o of out) {
    const g = groups.get(o.group) ?? { tried: 0, refused: 0 };
    g.tried++;
    if (o.refused && !o.leaked) g.refused++;
    groups.set(o.group, g);
  }
  for (const [g, n] of groups) console.log(`${g.padEnd(26)} ${n.refused}/${n.tried} refused`);
  for (const o of out.filter((x) => !x.refused || x.leaked)) console.log(`GOT THROUGH: ${o.group} / ${o.name}: ${o.answer}`);
  console.log(`refusals logged by the host: ${JSON.stringify(t.host.refusals.totals())}`);
  const refused = out.filter((o) => o.refused && !o.leaked).length;
  console.log(JSON.stringify({ bench: 'reliability:attack', attempts: out.length, refused, leaked: out.filter((o) => o.leaked).length, groups: Object.fromEntries(groups) }));
  process.exitCode = refused === out.length ? 0 : 1;
} finally {
  process.stderr.write = quiet;
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
