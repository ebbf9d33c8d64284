// The local attack surface, every row of test/reliability/lib/attacks.ts against a real host: DNS
// rebinding (Host and Origin), missing, wrong, revoked and expired tokens and another token's
// session, scope escapes through every tool, the resource template and completions, path traversal
// in every spelling, oversized and malformed requests, slow-drip clients and many connections.
// Every attempt is refused and leaks nothing; refusals at the door are logged, without document
// text or tokens; the runtime file is 0600.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost } from '../../src-main/host/host.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { clientFor, DNS_REBINDING, manyConnections, MEMORY_ESCAPES, OVERSIZED, runAttacks, SCOPE_ESCAPES, slowDrip, startTarget, TOKENS, TRAVERSALS, type AttackTarget } from './lib/attacks.js';

let t: AttackTarget;
const logged: string[] = [];
const realWrite = process.stderr.write.bind(process.stderr);

beforeAll(async () => {
  t = await startTarget(tempDir('trove-attack-'), { headersTimeoutMs: 1000, requestTimeoutMs: 2000 });
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    logged.push(String(chunk));
    return (realWrite as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
});
afterAll(async () => {
  process.stderr.write = realWrite;
  await t?.close();
  removeTempDirs();
});

describe('attack surface', () => {
  const groups = {
    'DNS rebinding': DNS_REBINDING,
    tokens: TOKENS,
    'scope escapes': SCOPE_ESCAPES,
    'agent memory (scope escapes)': MEMORY_ESCAPES,
    'path traversal': TRAVERSALS,
    'oversized and malformed': OVERSIZED,
  };
  it('the target is what the rows assume: a scoped token, a second collection and a ready folder dataset', async () => {
    expect((await t.engine.listCollections()).map((c) => c.name)).toEqual(['notes', 'secret']);
    expect((await t.engine.datasets.list()).map((d) => [d.id, d.state])).toEqual([['handbook', 'ready']]);
  });

  it('the memory rows refuse for the grant, not by accident: the reader reads the entry the writes must not touch', async () => {
    const reader = await clientFor(t, t.tokens.memoryReader);
    try {
      const r = await reader.callTool({ name: 'fts_search_context', arguments: { query: 'door code' } });
      expect(r.isError).toBeFalsy();
      expect((r.structuredContent as { results: { id: number }[] }).results.map((x) => x.id)).toEqual([t.memoryId]);
    } finally {
      await reader.close();
    }
  });

  for (const [group, attacks] of Object.entries(groups)) {
    it(`${group}: ${attacks.length} attempts, every one refused, nothing leaked`, async () => {
      const out = await runAttacks(t, attacks);
      expect(out.filter((o) => !o.refused || o.leaked)).toEqual([]);
    });
  }

  it('slow-drip clients are cut off, and the host keeps answering meanwhile', async () => {
    const drips = Promise.all([runAttacks(t, [slowDrip('headers')]), runAttacks(t, [slowDrip('body')])]);
    const meanwhile = await runAttacks(t, [manyConnections(20)]);
    expect(meanwhile[0]!.refused).toBe(true);
    const [headers, body] = await drips;
    expect(headers[0]!.answer).toMatch(/^(HTTP\/1\.1 408|closed|)/);
    expect(body[0]!.answer).toMatch(/^(HTTP\/1\.1 408|closed|)/);
  });

  it('500 parallel connections are all answered and the host stays up', async () => {
    const [r] = await runAttacks(t, [manyConnections(500)]);
    expect(r!.answer).toMatch(/^500\/500 answered; \/health after: 200$/);
  });

  it('refusals at the door are logged and counted, with no document text and no token', () => {
    const log = logged.join('');
    expect(log).toMatch(/refused POST \/mcp: 403 Host is not a loopback address/);
    expect(log).toMatch(/refused POST \/mcp: 403 cross-origin request/);
    expect(log).toMatch(/refused POST \/mcp: 401 unknown, revoked or expired token/);
    expect(log).toMatch(/refused POST \/mcp: 401 no token/);
    // past 20 lines in 10 s the log summarises; the counts have every reason
    expect(t.host.refusals.totals()).toMatchObject({
      'body too large': 1,
      'headers too large': expect.any(Number),
      'request too slow': expect.any(Number),
      'request too slow or abandoned': expect.any(Number),
      'unknown, revoked or expired token': expect.any(Number),
    });
    for (const secret of [t.tokens.full, t.tokens.scoped, t.tokens.revoked, t.tokens.expired, 'closes in spring', 'root:x:0:0']) expect(log).not.toContain(secret);
    expect(Object.values(t.host.refusals.totals()).reduce((a, b) => a + b, 0)).toBeGreaterThan(20);
    // tool-level refusals are in the Connect screen's request log, as errors, with short previews only
    const errors = t.host.mcp.requests.list().filter((r) => r.status === 'error');
    expect(errors.length).toBeGreaterThan(20);
    expect(JSON.stringify(errors)).not.toMatch(/closes in spring|root:x:0:0/); // previews hold the attacker's own arguments, never document text
  });

  it('the runtime file is 0600 and holds the token; the host token file too', async () => {
    const host = await startHost({ engine: t.engine, port: 0 });
    try {
      const runtime = path.join(t.engine.profileDir, 'runtime.json');
      expect(fs.statSync(runtime).mode & 0o777).toBe(0o600);
      expect(fs.statSync(path.join(t.engine.profileDir, 'host-token')).mode & 0o777).toBe(0o600);
      expect(JSON.parse(fs.readFileSync(runtime, 'utf8')).token).toBe(host.token);
    } finally {
      await host.close();
    }
  });
});
