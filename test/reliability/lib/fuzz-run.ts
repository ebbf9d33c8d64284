// Runs the fuzzers against a real host (the attack suite's two collections): tool calls through
// the v1 SDK client, raw bodies over HTTP (with and without a live 2025 session), and raw lines
// through `trove mcp` on stdio. Returns what was tried and every answer that was not structured.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import fc from 'fast-check';
import type { Engine } from '../../../src-main/engine/index.js';
import { writeRuntimeFile } from '../../../src-main/host/runtime-file.js';
import { clientFor, raw, startTarget } from './attacks.js';
import { MEMORY_WRITES, postRaw, rawMessage, structured, toolCall } from './fuzz.js';

const BIN = path.resolve(import.meta.dirname, '..', '..', '..', 'bin', 'trove.js');

export interface FuzzOutcome {
  toolCalls: number;
  rawHttp: number;
  stdioLines: number;
  stdioAnswers: number;
  failures: string[];
  indexUnchanged: boolean;
  /** Memory write calls that were accepted (valid entries fast-check happened to build); memory may change only through them. */
  memoryWritesAccepted: number;
  /** With no write accepted, memory is exactly as before; with some, it is still readable and its keyword index sound. */
  memoryConsistent: boolean;
  healthAfter: number;
}

/** Agent memory as a string: every entry's thread, source, text, tags and metadata. */
async function memoryFingerprint(engine: Engine): Promise<string> {
  const entries = [];
  for (let offset: number | null = 0; offset !== null; ) {
    const page = await engine.memory.list({ limit: 100, offset });
    entries.push(...page.entries.map((e) => [e.id, e.threadId, e.source, e.text, e.tags, e.metadata]));
    offset = page.nextOffset;
  }
  return JSON.stringify(entries);
}

/** What must not change: collections and counts, every path, and what a few searches return. */
async function fingerprint(engine: Engine): Promise<string> {
  const collections = await Promise.all((await engine.listCollections()).map(async (c) => [c.name, c.documents, c.chunks, await engine.documentPaths(c.name)]));
  const searches = await Promise.all(['retry backoff', 'acquisition', 'guide'].map(async (q) => (await engine.search({ query: q, limit: 20 })).results.map((r) => `${r.path}:${r.score}`)));
  return JSON.stringify({ collections, searches });
}

export async function runFuzz(opts: { dir: string; toolCalls: number; rawHttp: number; stdioLines: number; seed: number }): Promise<FuzzOutcome> {
  const t = await startTarget(opts.dir);
  const failures: string[] = [];
  const before = await fingerprint(t.engine);
  const memoryBefore = await memoryFingerprint(t.engine);
  let memoryWritesAccepted = 0;
  const port = t.host.port;
  try {
    // 1. tool calls through a real client: a result (isError or not), or a JSON-RPC error with a code
    const client = await clientFor(t, t.tokens.full);
    try {
      await fc.assert(
        fc.asyncProperty(toolCall, async (call) => {
          try {
            const r = await client.callTool(call, undefined, { timeout: 30_000 });
            if (!Array.isArray(r.content)) throw new Error(`no content array: ${JSON.stringify(r).slice(0, 200)}`);
            if (!r.isError && MEMORY_WRITES.includes(call.name)) memoryWritesAccepted++;
          } catch (err) {
            if (typeof (err as { code?: unknown }).code !== 'number') throw err; // McpError carries the JSON-RPC code
          }
        }),
        { numRuns: opts.toolCalls, seed: opts.seed, endOnFailure: true },
      );
    } catch (err) {
      failures.push(`tool call: ${(err as Error).message.slice(0, 1500)}`);
    } finally {
      await client.close();
    }

    // 2. raw bodies over HTTP, half inside a live 2025 session
    const init = await raw(t, {
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Host: `127.0.0.1:${port}`, Authorization: `Bearer ${t.tokens.full}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } } }),
    });
    const session = String(init.headers['mcp-session-id'] ?? '');
    try {
      await fc.assert(
        fc.asyncProperty(rawMessage, fc.boolean(), async (m, inSession) => {
          const answer = await postRaw(port, t.tokens.full, { ...m, ...(inSession ? { session } : {}) });
          const problem = structured(answer);
          if (problem) throw new Error(problem);
        }),
        { numRuns: opts.rawHttp, seed: opts.seed + 1, endOnFailure: true },
      );
    } catch (err) {
      failures.push(`raw HTTP: ${(err as Error).message.slice(0, 1500)}`);
    }

    // 3. raw lines through the stdio shim
    writeRuntimeFile(t.engine.profileDir, { port, pid: process.pid, token: t.tokens.full, mcpUrl: t.host.mcpUrl, startedAt: new Date().toISOString() });
    const lines = fc.sample(rawMessage.map((m) => m.body.replace(/\r?\n/g, ' ')), { numRuns: opts.stdioLines, seed: opts.seed + 2 });
    const stdio = await throughShim(t.engine.profileDir, lines);
    failures.push(...stdio.failures);

    const health = await raw(t, { method: 'GET', path: '/health', headers: { Host: `127.0.0.1:${port}` } });
    let memoryConsistent: boolean;
    try {
      const memoryAfter = await memoryFingerprint(t.engine); // readable after the run, whatever was written
      await t.engine.memory.search({ query: 'door code', mode: 'keyword' });
      memoryConsistent = memoryWritesAccepted > 0 || memoryAfter === memoryBefore;
    } catch (err) {
      failures.push(`memory after the run: ${(err as Error).message}`);
      memoryConsistent = false;
    }
    return {
      toolCalls: opts.toolCalls,
      rawHttp: opts.rawHttp,
      stdioLines: lines.length,
      stdioAnswers: stdio.answers,
      failures,
      indexUnchanged: await fingerprint(t.engine) === before,
      memoryWritesAccepted,
      memoryConsistent,
      healthAfter: health.status,
    };
  } finally {
    await t.close();
  }
}

export async function throughShim(profileDir: string, lines: string[]): Promise<{ answers: number; failures: string[] }> {
  const child = spawn(process.execPath, [BIN, 'mcp'], { env: { PATH: process.env.PATH ?? '', TROVE_HOME: profileDir }, stdio: ['pipe', 'pipe', 'pipe'] });
  // listened for from the start: a shim that dies mid-stream must end the run, not leave it waiting for a drain
  const exited = new Promise<number | null>((r) => child.once('exit', r));
  child.stdin.on('error', () => undefined); // writing to a shim that died: reported below by its exit code
  const failures: string[] = [];
  let answers = 0;
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const reading = (async () => {
    for await (const line of createInterface({ input: child.stdout })) {
      answers++;
      try {
        const m = JSON.parse(line) as Record<string, unknown>;
        if (m.jsonrpc !== '2.0' || (!('result' in m) && !('error' in m))) failures.push(`stdio: not a JSON-RPC answer: ${line.slice(0, 200)}`);
      } catch {
        failures.push(`stdio: not JSON on stdout: ${line.slice(0, 200)}`);
      }
    }
  })();
  let gone = false;
  void exited.then(() => (gone = true));
  for (const l of lines) {
    if (gone) break;
    if (!child.stdin.write(`${l}\n`)) await Promise.race([new Promise((r) => child.stdin.once('drain', r)), exited]);
  }
  child.stdin.end();
  const code = await exited;
  await reading;
  if (code !== 0) failures.push(`stdio: trove mcp exited with ${code}: ${stderr.slice(-500)}`);
  return { answers, failures };
}
