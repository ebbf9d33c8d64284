// The Connect screen's live request log: a real MCP SDK client talks to a real host over HTTP, and
// each request shows up through the app API (list and pushed event) with the client's name, the
// tool, how it ended and how long it took; never the token, and arguments only as a short preview.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent, ClientRequest } from '../../src-main/api/results.js';
import { mountAppApi, type MountedAppApi } from '../../src-main/host/app-api-mount.js';
import type { Host } from '../../src-main/host/host.js';
import { makeFixture, startTestHost, type Fixture } from '../mcp/helpers.js';
import { ok } from '../helpers/app-api.js';

let f: Fixture;
let host: Host;
let mounted: MountedAppApi;
const events: ApiEvent[] = [];

beforeAll(async () => {
  f = await makeFixture();
  host = await startTestHost(f);
  mounted = mountAppApi(host, { ui: false });
  mounted.api.onEvent((e) => events.push(e));
});

afterAll(async () => {
  await mounted?.close();
  await host?.close();
  await f?.cleanup();
});

describe('connect.requests', () => {
  it('logs a real client’s initialize and tool calls, newest first, and pushes each as an event', async () => {
    const client = new Client({ name: 'log-test-client', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(host.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${host.token}` } } });
    await client.connect(transport);
    const longQuery = `jitter ${'and more words '.repeat(20)}`;
    const started = performance.now();
    await client.callTool({ name: 'search', arguments: { query: longQuery } });
    const elapsed = performance.now() - started; // the logged duration is the server's share of it
    const bad = await client.callTool({ name: 'multi_get', arguments: { pattern: '' } });
    expect(bad.isError).toBe(true);
    await client.close();

    const log = ok<ClientRequest[]>(await mounted.api.call('connect.requests', {}));
    const search = log.find((r) => r.tool === 'search')!;
    expect(search).toMatchObject({ client: 'log-test-client', method: 'tools/call', status: 'ok', httpStatus: 200 });
    expect(Number.isFinite(search.durationMs)).toBe(true);
    expect(search.durationMs).toBeLessThanOrEqual(Math.ceil(elapsed));
    expect(search.preview!.length).toBeLessThanOrEqual(60);
    expect(search.preview).toMatch(/^\{"query":"jitter and more/);
    expect(log.find((r) => r.tool === 'multi_get')).toMatchObject({ client: 'log-test-client', status: 'error' });
    // newest first: the failing call came after the search
    expect(log.findIndex((r) => r.tool === 'multi_get')).toBeLessThan(log.findIndex((r) => r.tool === 'search'));
    expect(log.some((r) => r.method === 'initialize')).toBe(true);
    expect(JSON.stringify(log)).not.toContain(host.token);

    const pushed = events.filter((e): e is Extract<ApiEvent, { type: 'connect.request' }> => e.type === 'connect.request').map((e) => e.request);
    expect(pushed.map((r) => r.id).sort()).toEqual(log.map((r) => r.id).sort());
  });

  it('records each client by its clientInfo on both protocol generations, with its version, token and protocol', async () => {
    const { token } = await f.engine.createToken({ name: 'laptop' });
    for (const [era, name] of [
      ['legacy', 'legacy-agent'],
      ['modern', 'stateless-agent'],
    ] as const) {
      const client = new Client({ name, version: '3.1.4' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
      await client.connect(new StreamableHTTPClientTransport(new URL(host.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      await client.callTool({ name: 'knowledge.search', arguments: { query: 'jitter' } });
      await client.close();
      const call = ok<ClientRequest[]>(await mounted.api.call('connect.requests', {})).find((r) => r.tool === 'knowledge.search' && r.client === name);
      expect(call, era).toMatchObject({ clientVersion: '3.1.4', token: 'laptop', protocol: era === 'modern' ? '2026-07-28' : '2025', status: 'ok' });
    }
  });

  it('names a request without clientInfo after its token', async () => {
    const res = await fetch(host.mcpUrl, {
      method: 'POST',
      headers: { Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    await res.text();
    const [newest] = ok<ClientRequest[]>(await mounted.api.call('connect.requests', {}));
    expect(newest).toMatchObject({ method: 'tools/list', status: 'error', client: 'runtime' });
  });

  it('keeps only the newest entries when the ring is full', async () => {
    const { McpRequestLog } = await import('../../src-main/mcp/transports/request-log.js');
    const ring = new McpRequestLog(3);
    for (let i = 0; i < 5; i++) {
      ring.add({ time: '', client: 'c', clientVersion: null, token: 't', protocol: '2025', method: `m${i}`, tool: null, preview: null, status: 'ok', httpStatus: 200, durationMs: 1 });
    }
    expect(ring.list().map((r) => r.method)).toEqual(['m4', 'm3', 'm2']);
  });
});
