// The official conformance suite (@modelcontextprotocol/conformance 0.1.16, server mode, every
// scenario) and the MCP Inspector CLI, both real and both on Node 22 (fetched with npx from the
// npm registry; about a minute on the first run, seconds once cached). The suite cannot send a
// token, so a test-only proxy adds it; the server is not weakened. Non-applicable scenarios are
// listed, with reasons, in conformance/expected-failures.yml; the suite fails on any other
// failure and on a listed scenario that passes.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../src-main/host/host.js';
import { conformanceFixtures } from './conformance/fixtures.js';
import { startTokenProxy } from './conformance/token-proxy.js';
import { makeFixture, REPO, startTestHost, type Fixture } from './helpers.js';

const run = promisify(execFile);
const NPX = ['-y', '-p', 'node@22'];
const EXPECTED = path.join(REPO, 'test', 'mcp', 'conformance', 'expected-failures.yml');

let f: Fixture;
let host: Host;
let proxy: { url: string; close(): Promise<void> };
let home: string;

beforeAll(async () => {
  f = await makeFixture();
  host = await startTestHost(f, { mcpExtension: conformanceFixtures });
  proxy = await startTokenProxy({ port: host.port, token: host.token });
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-inspector-home-')); // the Inspector writes ~/.mcp-inspector
});
afterAll(async () => {
  await proxy?.close();
  await host?.close();
  await f?.cleanup();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

describe('conformance suite', () => {
  it('passes every applicable server scenario', { timeout: 600_000 }, async () => {
    const args = [...NPX, '-p', '@modelcontextprotocol/conformance@0.1.16', '--', 'conformance', 'server', '--url', proxy.url, '--suite', 'all', '--expected-failures', EXPECTED];
    const r = await run('npx', args, { cwd: os.tmpdir(), timeout: 540_000, maxBuffer: 32 << 20 }).catch((err: { code?: number; stdout?: string; stderr?: string }) => err);
    const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
    expect(out, out.slice(-4000)).toMatch(/Baseline check passed/);
    for (const s of ['server-initialize', 'ping', 'logging-set-level', 'completion-complete', 'tools-list', 'json-schema-2020-12', 'resources-list', 'resources-templates-read', 'prompts-list', 'server-sse-multiple-streams', 'dns-rebinding-protection']) {
      expect(out).toMatch(new RegExp(`✓ ${s}: [1-9]\\d* passed, 0 failed`));
    }
    expect((r as { code?: number }).code ?? 0).toBe(0);
  });
});

describe('MCP Inspector CLI', () => {
  const inspector = (...args: string[]) =>
    run('npx', [...NPX, '-p', '@modelcontextprotocol/inspector@2.12.0', '--', 'mcp-inspector', '--cli', host.mcpUrl, '--header', `Authorization: Bearer ${host.token}`, '--stored-auth-only', ...args, '--format', 'json'], {
      cwd: os.tmpdir(),
      timeout: 300_000,
      env: { ...process.env, HOME: home },
    });

  it('lists the tools and calls search over 2025 and 2026-07-28', { timeout: 600_000 }, async () => {
    const list = JSON.parse((await inspector('--method', 'tools/list')).stdout) as { result: { tools: { name: string }[] } };
    expect(list.result.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['search', 'vsearch', 'query', 'get', 'multi_get', 'status']));
    for (const era of ['legacy', 'modern']) {
      const fastBefore = host.mcp.fastCallCount();
      const call = JSON.parse((await inspector('--protocol-era', era, '--method', 'tools/call', '--tool-name', 'search', '--tool-arg', 'query=jitter')).stdout) as {
        result: { structuredContent: { results: { file: string }[] } };
      };
      expect(call.result.structuredContent.results[0]!.file, era).toBe('notes/retries.md');
      // the Inspector's stateless call is one the fast tools/call path answers (mcp/transports/fast-call.ts)
      expect(host.mcp.fastCallCount() - fastBefore, era).toBe(era === 'modern' ? 1 : 0);
    }
  });
});
