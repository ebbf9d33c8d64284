// Two ways to call a running Trove's MCP tools for the memory benchmark, timed per call on the
// client side as the peer's benchmark times its calls: HTTP (fetch with keep-alive, stateless
// 2026-07-28 requests, as bench:mcp does) and stdio through `trove mcp` with the official SDK
// client (the peer is measured over stdio with its official client).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export interface CallOutcome {
  ms: number;
  /** structuredContent (null on error). */
  data: Record<string, unknown> | null;
  /** The isError text or the protocol error (null when it worked). */
  error: string | null;
}

export interface Caller {
  label: string;
  call(tool: string, args: Record<string, unknown>): Promise<CallOutcome>;
  close(): Promise<void>;
}

const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'bench-memory', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };

type ToolResult = { isError?: boolean; content?: { text?: string }[]; structuredContent?: Record<string, unknown> };

function outcome(ms: number, r: ToolResult): CallOutcome {
  if (r.isError) return { ms, data: null, error: r.content?.map((c) => c.text ?? '').join(' ') ?? 'error' };
  return { ms, data: r.structuredContent ?? null, error: null };
}

export function httpCaller(url: string, token: string): Caller {
  let id = 0;
  return {
    label: 'http (2026-07-28, fetch client)',
    async call(tool, args) {
      const t0 = performance.now();
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
            Authorization: `Bearer ${token}`,
            'MCP-Protocol-Version': '2026-07-28',
            'Mcp-Method': 'tools/call',
            'Mcp-Name': tool,
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: tool, arguments: args, _meta: ENVELOPE } }),
        });
        const text = await res.text();
        const ms = performance.now() - t0;
        const json = res.headers.get('content-type')?.includes('event-stream') ? /^data: (.+)$/m.exec(text)![1]! : text;
        const msg = JSON.parse(json) as { result?: ToolResult; error?: { message: string } };
        return msg.error ? { ms, data: null, error: msg.error.message } : outcome(ms, msg.result!);
      } catch (err) {
        return { ms: performance.now() - t0, data: null, error: (err as Error).message };
      }
    },
    close: async () => undefined,
  };
}

/** The SDK client over stdio: `node bin/trove.js mcp`, which relays to the profile's running host. */
export async function stdioCaller(bin: string, profileDir: string): Promise<Caller> {
  const client = new Client({ name: 'bench-memory', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'], env: { PATH: process.env.PATH ?? '', TROVE_HOME: profileDir }, stderr: 'ignore' }));
  return {
    label: 'stdio (trove mcp, SDK client)',
    async call(tool, args) {
      const t0 = performance.now();
      try {
        const r = (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 120_000 })) as ToolResult;
        return outcome(performance.now() - t0, r);
      } catch (err) {
        return { ms: performance.now() - t0, data: null, error: (err as Error).message };
      }
    },
    close: () => client.close(),
  };
}
