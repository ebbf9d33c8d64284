// Fuzzing, small: 1,500 generated tool calls (document and agent-memory tools) and raw JSON-RPC messages over HTTP and 300 raw lines
// through `trove mcp` (fast-check, a fixed seed so a failure replays). Only structured answers,
// the host stays up, and the index is unchanged. The long run (20,000+):
// `npm run reliability:fuzz`.
import { afterAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/cli.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { writeRuntimeFile } from '../../src-main/host/runtime-file.js';
import { startTarget } from './lib/attacks.js';
import { runFuzz, throughShim } from './lib/fuzz-run.js';

afterAll(removeTempDirs);

describe('fuzzing the MCP endpoint (small)', () => {
  it('the stdio shim answers lines that are JSON but not a message (null crashed it)', async () => {
    ensureBuilt();
    const t = await startTarget(tempDir('trove-fuzz-shim-'));
    try {
      writeRuntimeFile(t.engine.profileDir, { port: t.host.port, pid: process.pid, token: t.tokens.full, mcpUrl: t.host.mcpUrl, startedAt: new Date().toISOString() });
      const out = await throughShim(t.engine.profileDir, ['null', '42', '"text"', 'true', '[]', '{}', '{"jsonrpc":"2.0","id":7,"method":"ping"}']);
      expect(out.failures).toEqual([]);
      expect(out.answers).toBeGreaterThanOrEqual(5);
    } finally {
      await t.close();
    }
  });

  it('answers every generated call and message with a structured result or error, stays up, changes nothing', { timeout: 300_000 }, async () => {
    ensureBuilt(); // the stdio shim is the built CLI
    const out = await runFuzz({ dir: tempDir('trove-fuzz-'), toolCalls: 700, rawHttp: 800, stdioLines: 300, seed: 20261124 });
    expect(out.failures).toEqual([]);
    expect(out.healthAfter).toBe(200);
    expect(out.indexUnchanged).toBe(true);
    expect(out.memoryConsistent).toBe(true);
    expect(out.stdioAnswers).toBeGreaterThan(100); // requests with an id are answered; notifications are not
  });
});
