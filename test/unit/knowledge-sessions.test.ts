// The knowledge session store's limits (TTL, capacity, URIs and queries kept, ownership) on a
// clock the test moves, and the request config's parsing: clamped knobs, everything else
// ignored with a log line that names the key but never its value.
import { afterEach, describe, expect, it } from 'vitest';
import { parseKnowledgeConfig, pick } from '../../src-main/mcp/knowledge/request-config.js';
import { KnowledgeSessions } from '../../src-main/mcp/knowledge/session-store.js';

const stores: KnowledgeSessions[] = [];
afterEach(() => {
  while (stores.length) stores.pop()!.close();
});

function store(limits: ConstructorParameters<typeof KnowledgeSessions>[0], clock: { t: number }) {
  const s = new KnowledgeSessions(limits, () => clock.t);
  stores.push(s);
  return s;
}

const owner = { accessKey: 'runtime', token: 'runtime' };

describe('KnowledgeSessions', () => {
  it('a handle lives while used and expires after the TTL of idleness', () => {
    const clock = { t: 0 };
    const s = store({ ttlMs: 1000 }, clock);
    const a = s.mint(owner, { name: 'agent', version: '1' });
    expect(a.handle).toMatch(/^ks_[\w-]{24}$/);
    clock.t = 900;
    expect(s.byHandle(a.handle!, 'runtime')).toBe(a); // touched: idle time starts again
    clock.t = 1800;
    expect(s.byHandle(a.handle!, 'runtime')).toBe(a);
    expect(s.list()[0]!.uses).toBe(3); // minted, then found twice
    clock.t = 2801;
    expect(s.byHandle(a.handle!, 'runtime')).toBeNull();
    expect(s.size).toBe(0);
  });

  it('belongs to its token: another token’s lookup and end find nothing', () => {
    const s = store({}, { t: 0 });
    const a = s.mint(owner, null);
    expect(s.byHandle(a.handle!, 'token:other')).toBeNull();
    expect(s.end(a.handle!, 'token:other')).toBe(false);
    expect(s.end(a.handle!, 'runtime')).toBe(true);
    expect(s.end(a.handle!, 'runtime')).toBe(false);
  });

  it('keeps at most maxSessions, dropping the least recently used', () => {
    const clock = { t: 0 };
    const s = store({ maxSessions: 3 }, clock);
    const [a, b, c] = [s.mint(owner, null), s.mint(owner, null), s.mint(owner, null)];
    clock.t = 1;
    s.byHandle(a.handle!, 'runtime'); // a is now the most recently used
    const d = s.mint(owner, null);
    expect(s.size).toBe(3);
    expect(s.byHandle(b.handle!, 'runtime')).toBeNull();
    for (const x of [a, c, d]) expect(s.byHandle(x.handle!, 'runtime')).toBe(x);
  });

  it('a sweep drops every idle session, whatever order they were made and used in, and keeps the live ones', () => {
    const clock = { t: 0 };
    const s = store({ ttlMs: 1000 }, clock);
    const [a, b, c] = [s.mint(owner, null), s.mint(owner, null), s.mint(owner, null)];
    clock.t = 500;
    s.byHandle(a.handle!, 'runtime'); // the oldest made, now the most recently used
    const d = s.mint(owner, null);
    clock.t = 1200; // b and c idle past the TTL; a and d not
    s.sweep();
    expect(s.size).toBe(2);
    for (const x of [a, d]) expect(s.byHandle(x.handle!, 'runtime')).toBe(x);
    clock.t = 2300; // a and d touched at 1200: idle past the TTL now
    s.mint(owner, null); // a new session sweeps first
    expect(s.size).toBe(1);
    for (const x of [a, b, c, d]) expect(s.byHandle(x.handle!, 'runtime')).toBeNull();
  });

  it('remembers a bounded, most-recent set of URIs and queries', () => {
    const s = store({ maxSeen: 3, maxQueries: 2 }, { t: 0 });
    const a = s.mint(owner, null);
    s.remember(a, ['u1', 'u2', 'u3'], 'q1');
    s.remember(a, ['u1', 'u4'], 'q2'); // u1 seen again: now newest; u2 is the oldest and goes
    s.remember(a, [], 'q3');
    expect([...a.seen]).toEqual(['u3', 'u1', 'u4']);
    expect(a.recentQueries).toEqual(['q2', 'q3']);
  });

  it('a protocol session is made on first use and found again by its id; ending it by id works', () => {
    const s = store({}, { t: 0 });
    const a = s.forProtocolSession('abc', owner, { client: { name: 'x', version: null }, defaults: { max_tokens: 100 } });
    expect(a).toMatchObject({ handle: null, protocol: '2025', defaults: { max_tokens: 100 } });
    expect(s.forProtocolSession('abc', owner)).toBe(a);
    expect(s.list()).toEqual([expect.objectContaining({ kind: 'mcp-session', client: { name: 'x', version: null }, token: 'runtime', seen: 0 })]);
    expect(s.end('mcp:abc', 'runtime')).toBe(true);
  });
});

describe('request config', () => {
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64');
  const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

  it('reads base64 and base64url JSON, clamping each knob', () => {
    const lines: string[] = [];
    const log = (l: string) => lines.push(l);
    expect(parseKnowledgeConfig(b64({ snippet_length: 5, max_tokens: 1e9, sibling_window: 2.6, chars_per_token: 3.5, order_by: 'recent' }), log)).toEqual({
      snippet_length: 50,
      max_tokens: 100_000,
      sibling_window: 3,
      chars_per_token: 3.5,
      order_by: 'recent',
    });
    expect(parseKnowledgeConfig(b64url({ snippet_length: 2001 }), log)).toEqual({ snippet_length: 2000 });
    expect(parseKnowledgeConfig({ max_tokens: 10 }, log)).toEqual({ max_tokens: 16 });
    expect(lines).toEqual([]);
  });

  it('ignores other keys, wrong types and unreadable text, with a log line naming the key but not the value', () => {
    const lines: string[] = [];
    const log = (l: string) => lines.push(l);
    expect(parseKnowledgeConfig(b64({ token: 'trove_supersecret-1', password: 'hunter2-config', order_by: 'sideways', max_tokens: '100' }), log)).toEqual({});
    expect(lines.join('\n')).toMatch(/key "token" ignored/);
    expect(lines.join('\n')).toMatch(/key "password" ignored/);
    expect(lines.join('\n')).toMatch(/order_by ignored/);
    expect(lines.join('\n')).toMatch(/max_tokens ignored: not a number/);
    expect(lines.join('\n')).not.toMatch(/supersecret|hunter2/);
    expect(parseKnowledgeConfig('%%%', log)).toEqual({});
    expect(parseKnowledgeConfig(b64([1, 2]), log)).toEqual({});
    expect(parseKnowledgeConfig('x'.repeat(5000), log)).toEqual({});
    expect(lines.join('\n')).toMatch(/not base64-encoded JSON[\s\S]*not a JSON object[\s\S]*longer than 4096/);
  });

  it('precedence: tool input > session defaults > request config > global default', () => {
    expect(pick('max_tokens', 300, { max_tokens: 200 }, { max_tokens: 100 })).toEqual({ value: 300, explicit: true });
    expect(pick('max_tokens', undefined, { max_tokens: 200 }, { max_tokens: 100 })).toEqual({ value: 200, explicit: true });
    expect(pick('max_tokens', undefined, {}, { max_tokens: 100 })).toEqual({ value: 100, explicit: true });
    expect(pick('max_tokens', undefined, {}, {})).toEqual({ value: 5000, explicit: false });
    expect(pick('order_by', undefined, {}, { order_by: 'recent' }).value).toBe('recent');
  });
});
