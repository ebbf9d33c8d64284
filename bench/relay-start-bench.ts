// bench:relay-start [--spawns 10]: what a stdio MCP client pays to start `trove mcp` (the relay to
// the running host, host/stdio-relay.ts): from spawning it to its answer to `initialize`, and the
// CPU of that process, with a host already serving an empty profile. Every MCP client that spawns
// Trove pays this once per start. Needs the built CLI. Prints a line per spawn and one JSON line.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { childrenCpuSeconds } from './lib/children-cpu.js';

const { values } = parseArgs({ options: { spawns: { type: 'string', default: '10' } } });
const spawns = Number(values.spawns);
const BIN = path.resolve(import.meta.dirname, '../bin/trove.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-bench-relay-'));
const env = { ...process.env, TROVE_HOME: path.join(dir, 'profile'), TROVE_PORT: '0' };
const INITIALIZE = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } };

const serve = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--json', '--no-embed'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
try {
  await new Promise<void>((resolve, reject) => {
    let out = '';
    serve.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('"mcpUrl"')) resolve();
    });
    serve.once('exit', (code) => reject(new Error(`trove serve exited with ${code}`)));
  });
  const rows: { answeredMs: number; cpuMs: number }[] = [];
  for (let i = 0; i < spawns; i++) {
    const cpu0 = childrenCpuSeconds();
    const t0 = performance.now();
    const relay = spawn(process.execPath, [BIN, 'mcp'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: relay.stdout });
    const answered = new Promise<number>((resolve) => lines.once('line', () => resolve(performance.now() - t0)));
    relay.stdin.write(`${JSON.stringify(INITIALIZE)}\n`);
    const answeredMs = await answered;
    relay.stdin.end();
    await new Promise((r) => relay.once('exit', r));
    const cpuMs = Math.round((childrenCpuSeconds() - cpu0) * 1000);
    rows.push({ answeredMs, cpuMs });
    console.log(`spawn ${i + 1}: initialize answered in ${answeredMs.toFixed(0)} ms; the relay's CPU ${cpuMs.toFixed(0)} ms`);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(JSON.stringify({ bench: 'relay-start', spawns, answeredMsMedian: Math.round(median(rows.map((r) => r.answeredMs))), cpuMsMedian: Math.round(median(rows.map((r) => r.cpuMs))), rows }));
} finally {
  serve.kill('SIGTERM');
  await new Promise((r) => serve.once('exit', r));
  fs.rmSync(dir, { recursive: true, force: true });
}
