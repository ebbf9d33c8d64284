// reliability:fuzz [--small] [--seed N]: 21,000 generated inputs — 8,000 tool calls through the
// SDK client (the document tools and agent memory's), 10,000 raw JSON-RPC bodies over HTTP, 3,000 raw lines through `trove mcp` — against a
// real host. Needs the built CLI (npm run build:node). Prints what was tried, any unstructured
// answer, whether the index changed, and one JSON line.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runFuzz } from '../../test/reliability/lib/fuzz-run.js';

const { values } = parseArgs({ options: { small: { type: 'boolean', default: false }, seed: { type: 'string', default: String(Date.now() % 1e9) } } });
const sizes = values.small ? { toolCalls: 300, rawHttp: 300, stdioLines: 100 } : { toolCalls: 8000, rawHttp: 10000, stdioLines: 3000 };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-bench-fuzz-'));
const started = performance.now();
try {
  const out = await runFuzz({ dir, ...sizes, seed: Number(values.seed) });
  const tried = out.toolCalls + out.rawHttp + out.stdioLines;
  console.log(`seed ${values.seed}: ${tried} inputs (${out.toolCalls} tool calls, ${out.rawHttp} raw HTTP bodies, ${out.stdioLines} stdio lines; ${out.stdioAnswers} stdio answers) in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  console.log(`unstructured answers or crashes: ${out.failures.length}${out.failures.length ? `\n${out.failures.join('\n')}` : ''}`);
  console.log(`host after: /health ${out.healthAfter}; index unchanged: ${out.indexUnchanged}; memory writes accepted: ${out.memoryWritesAccepted}, memory consistent: ${out.memoryConsistent}`);
  console.log(JSON.stringify({ bench: 'reliability:fuzz', seed: Number(values.seed), inputs: tried, failures: out.failures.length, indexUnchanged: out.indexUnchanged, memoryWritesAccepted: out.memoryWritesAccepted, memoryConsistent: out.memoryConsistent, healthAfter: out.healthAfter }));
  process.exitCode = out.failures.length || !out.indexUnchanged || !out.memoryConsistent || out.healthAfter !== 200 ? 1 : 0;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
