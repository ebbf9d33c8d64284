// How a stateless (2026-07-28) answer goes on the wire through mcp/transports/node-adapter.ts: a
// complete JSON answer in one piece with its Content-Length (no chunked encoding), the same JSON
// the SDK produced; an answer that streams (a progress notification before the result) as
// text/event-stream, the notification first; and an error the handler answers keeps its status.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../src-main/host/host.js';
import type { ServerExtension } from '../../src-main/mcp/server.js';
import { makeFixture, startTestHost, type Fixture } from './helpers.js';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'framing-test', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

// test-only: a tool that reports progress before it answers, so its answer streams
const progressProbe: ServerExtension = (server) => {
  server.registerTool('progress_probe', { description: 'Reports progress, then answers' }, async (ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 2 } });
    return { content: [{ type: 'text', text: 'probe done' }] };
  });
};

let f: Fixture;
let host: Host;
beforeAll(async () => {
  f = await makeFixture();
  host = await startTestHost(f, { mcpExtension: progressProbe });
});
afterAll(async () => {
  await host?.close();
  await f?.cleanup();
});

function call(tool: string, args: Record<string, unknown>, meta: Record<string, unknown> = {}) {
  return fetch(host.mcpUrl, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${host.token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'tools/call',
      'Mcp-Name': tool,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: tool, arguments: args, _meta: { ...ENVELOPE, ...meta } } }),
  });
}

describe('stateless answers on the wire', () => {
  it('a JSON answer comes in one piece with its Content-Length', async () => {
    const res = await call('search', { query: 'backoff' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('transfer-encoding')).toBeNull();
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
    const msg = JSON.parse(bytes.toString('utf8')) as { id: number; result: { structuredContent: { results: { file: string }[] } } };
    expect(msg.id).toBe(7);
    expect(msg.result.structuredContent.results.map((r) => r.file)).toContain('notes/retries.md');
  });

  it('an answer with a notification before it streams as server-sent events, the notification first', async () => {
    const res = await call('progress_probe', {}, { progressToken: 'p-1' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await res.text())
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as { method?: string; params?: { progress?: number }; result?: { content: { text: string }[] } });
    expect(events.map((e) => e.method ?? 'result')).toEqual(['notifications/progress', 'result']);
    expect(events[0]!.params?.progress).toBe(1);
    expect(events[1]!.result?.content[0]!.text).toBe('probe done');
  });

  it('an unknown tool is the usual JSON-RPC error, framed the same way', async () => {
    const res = await call('no_such_tool', {});
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
    const msg = JSON.parse(bytes.toString('utf8')) as { id: number; error?: { message: string } };
    expect(msg.id).toBe(7);
    expect(msg.error?.message).toMatch(/no_such_tool/);
  });
});
