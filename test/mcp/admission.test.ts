// Admission control at /mcp (mcp/transports/admission.ts): with the host saturated — a tiny limit
// and calls held open by a gate this test controls, never a timer — real SDK clients over real
// HTTP get the documented, retryable `busy` error at once (2025 sessions and stateless 2026-07-28
// alike, with its retry-after hint), a queued call runs when a slot frees, a call past its wait
// bound is answered busy, and the refused call succeeds on retry. And sessions are released: the
// live count returns to its floor after many clients close.
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../src-main/host/host.js';
import type { ServerExtension } from '../../src-main/mcp/server.js';
import { BUSY_ERROR_CODE } from '../../src-main/mcp/transports/admission.js';
import { until } from '../helpers/until.js';
import { firstText, makeFixture, startTestHost, type Fixture } from './helpers.js';

/** A tool whose calls stay open until the test opens the gate. */
function gate(): { extension: ServerExtension; open(): void; held(): number } {
  const waiting: (() => void)[] = [];
  let held = 0;
  return {
    extension: (server) => {
      server.registerTool('hold', { description: 'Answers when the test opens the gate' }, async () => {
        held++;
        await new Promise<void>((resolve) => waiting.push(resolve));
        return { content: [{ type: 'text', text: 'released' }] };
      });
    },
    open: () => {
      for (const release of waiting.splice(0)) release();
    },
    held: () => held,
  };
}

const info = { name: 'admission-test', version: '1' };

async function v1(host: Host): Promise<V1Client> {
  const c = new V1Client(info);
  await c.connect(new V1Http(new URL(host.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${host.token}` } } }));
  return c;
}

async function v2(host: Host): Promise<V2Client> {
  const c = new V2Client(info, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await c.connect(new V2Http(new URL(host.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${host.token}` } } }));
  return c;
}

/** What a call was answered with when it was refused. */
async function refusal(call: Promise<unknown>): Promise<{ code: unknown; message: string; data: { busy?: boolean; retryAfterMs?: number } }> {
  try {
    await call;
  } catch (err) {
    const e = err as { code?: unknown; message: string; data?: { busy?: boolean; retryAfterMs?: number } };
    return { code: e.code, message: e.message, data: e.data ?? {} };
  }
  throw new Error('the call was answered, not refused');
}

let f: Fixture;
beforeAll(async () => {
  f = await makeFixture();
});
afterAll(async () => {
  await f?.cleanup();
});

describe('a saturated host answers busy', () => {
  const g = gate();
  let host: Host;
  beforeAll(async () => {
    host = await startTestHost(f, { mcpExtension: g.extension, admission: { maxInFlight: 1, maxQueue: 0 } });
  });
  afterAll(async () => {
    g.open();
    await host?.close();
  });

  it('to 2025 sessions and stateless clients at once, with a retry-after hint; the call succeeds on retry', async () => {
    const holder = await v1(host);
    const session = await v1(host);
    const stateless = await v2(host);
    const held = holder.callTool({ name: 'hold', arguments: {} });
    await until(async () => host.mcp.admission(), (s) => s.inFlight === 1 && g.held() === 1, 10_000, 'the held call in flight');

    const fromStateless = await refusal(stateless.callTool({ name: 'search', arguments: { query: 'backoff' } }));
    expect(fromStateless.code).toBe(BUSY_ERROR_CODE);
    expect(fromStateless.message).toMatch(/busy/i);
    expect(fromStateless.data.busy).toBe(true);
    expect(fromStateless.data.retryAfterMs).toBeGreaterThanOrEqual(50);
    const fromSession = await refusal(session.callTool({ name: 'get', arguments: { file: 'notes/retries.md' } }));
    expect(fromSession.code).toBe(BUSY_ERROR_CODE);
    expect(fromSession.data.retryAfterMs).toBeGreaterThanOrEqual(50);

    // on the wire: HTTP 200, the request's id, and Retry-After for plain HTTP callers
    const raw = await fetch(host.mcpUrl, {
      method: 'POST',
      headers: { Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'search' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'search', arguments: { query: 'backoff' }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': info, 'io.modelcontextprotocol/clientCapabilities': {} } } }),
    });
    expect(raw.status).toBe(200);
    expect(Number(raw.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await raw.json()).toMatchObject({ jsonrpc: '2.0', id: 41, error: { code: BUSY_ERROR_CODE, data: { busy: true } } });
    expect(host.mcp.admission().busy).toBe(3);

    g.open();
    expect(firstText(await held)).toBe('released');
    await until(async () => host.mcp.admission(), (s) => s.inFlight === 0, 10_000, 'the slot free again');
    const retried = (await stateless.callTool({ name: 'search', arguments: { query: 'backoff' } })) as { structuredContent?: { results: { file: string }[] } };
    expect(retried.structuredContent?.results.map((r) => r.file)).toContain('notes/retries.md');
    expect(JSON.stringify((await session.callTool({ name: 'get', arguments: { file: 'notes/retries.md' } })).content)).toContain('exponential backoff');
    await Promise.all([holder.close(), session.close(), stateless.close()]);
  });
});

describe('a call waits its turn, within its bound', () => {
  it('runs when the slot frees', async () => {
    const g = gate();
    const host = await startTestHost(f, { mcpExtension: g.extension, admission: { maxInFlight: 1, maxQueue: 4, maxWaitMs: 60_000 } });
    try {
      const a = await v1(host);
      const b = await v2(host);
      const held = a.callTool({ name: 'hold', arguments: {} });
      await until(async () => g.held(), (n) => n === 1, 10_000, 'the held call');
      const queued = b.callTool({ name: 'search', arguments: { query: 'backoff' } });
      await until(async () => host.mcp.admission(), (s) => s.waiting === 1, 10_000, 'the search waiting');
      g.open();
      await held;
      const answer = (await queued) as { structuredContent?: { results: { file: string }[] } };
      expect(answer.structuredContent?.results.map((r) => r.file)).toContain('notes/retries.md');
      expect(host.mcp.admission()).toMatchObject({ inFlight: 0, waiting: 0, busy: 0 });
      await Promise.all([a.close(), b.close()]);
    } finally {
      g.open();
      await host.close();
    }
  });

  it('is answered busy when it has waited its bound, and leaves the queue', async () => {
    const g = gate();
    const host = await startTestHost(f, { mcpExtension: g.extension, admission: { maxInFlight: 1, maxQueue: 4, maxWaitMs: 200 } });
    try {
      const a = await v1(host);
      const b = await v2(host);
      const held = a.callTool({ name: 'hold', arguments: {} });
      await until(async () => g.held(), (n) => n === 1, 10_000, 'the held call');
      const answer = await refusal(b.callTool({ name: 'search', arguments: { query: 'backoff' } }));
      expect(answer.code).toBe(BUSY_ERROR_CODE);
      expect(host.mcp.admission()).toMatchObject({ inFlight: 1, waiting: 0, busy: 1 });
      g.open();
      await held;
      await Promise.all([a.close(), b.close()]);
    } finally {
      g.open();
      await host.close();
    }
  });
});

describe('sessions are released', () => {
  it('the live count returns to its floor after many clients close', async () => {
    const host = await startTestHost(f);
    try {
      const floor = host.mcp.sessionCount();
      const clients = await Promise.all(Array.from({ length: 24 }, () => v1(host)));
      expect(host.mcp.sessionCount()).toBe(floor + 24);
      await Promise.all(clients.map((c) => c.callTool({ name: 'search', arguments: { query: 'backoff' } })));
      // a client ends its session (DELETE), as the SDK's terminateSession and `trove mcp` do
      await Promise.all(clients.map(async (c) => {
        await (c.transport as V1Http).terminateSession();
        await c.close();
      }));
      await until(async () => host.mcp.sessionCount(), (n) => n === floor, 10_000, 'the sessions released');
      expect(host.mcp.activity().sessions).toBe(floor);
    } finally {
      await host.close();
    }
  });
});
