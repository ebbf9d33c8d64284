// The web UI's HTTP face on the real engine host: sign-in with a one-time code, the session
// cookie's flags, who is refused, the API and its event stream, and the static renderer files.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src-main/engine/index.js';
import { mountAppApi, type MountedAppApi } from '../../src-main/host/app-api-mount.js';
import { startHost, type Host } from '../../src-main/host/host.js';
import { readRuntimeFile } from '../../src-main/host/runtime-file.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-ui-'));
const renderer = path.join(tmp, 'renderer');
const notes = path.join(tmp, 'notes');
let engine: Engine;
let host: Host;
let mounted: MountedAppApi;

interface Res {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function request(pathname: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Res> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: host.port, path: pathname, method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts).toString() }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const codeOf = (url: string) => new URL(url).searchParams.get('code')!;
let cookie = '';
const post = (method: string, params: unknown, headers: Record<string, string> = { cookie }) =>
  request(`/api/${method}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(params) });

beforeAll(async () => {
  fs.mkdirSync(path.join(renderer, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(renderer, 'index.html'), '<!doctype html><title>Trove</title><div id="root"></div>');
  fs.writeFileSync(path.join(renderer, 'assets', 'app-123.js'), 'console.log("hi")');
  fs.writeFileSync(path.join(tmp, 'secret.txt'), 'outside the renderer');
  fs.mkdirSync(notes);
  fs.writeFileSync(path.join(notes, 'a.md'), '# Alpha\n\nLighthouse keepers log the weather.\n');
  engine = await Engine.open({ profileDir: path.join(tmp, 'profile') });
  host = await startHost({ engine, port: 0 });
  mounted = mountAppApi(host, { ui: true, rendererDir: renderer });
});

afterAll(async () => {
  await mounted.close();
  await host.close();
  await engine.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('web UI routes', () => {
  it('publishes a one-time sign-in link in runtime.json', () => {
    const url = mounted.signInUrl()!;
    expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${host.port}/signin\\?code=[\\w-]{20,}$`));
    expect(readRuntimeFile(host.engine.profileDir)?.uiUrl).toBe(url);
  });

  it('refuses the API without a session', async () => {
    const r = await post('collections.list', {}, {});
    expect(r.status).toBe(401);
    expect(JSON.parse(r.body)).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED', message: expect.stringContaining('sign-in link') } });
    expect((await request('/api/events')).status).toBe(401);
  });

  it('refuses a wrong code', async () => {
    const r = await request('/signin?code=not-a-real-code');
    expect(r.status).toBe(403);
    expect(r.headers['set-cookie']).toBeUndefined();
    expect(r.body).toContain('not valid');
  });

  it('trades the code for an HttpOnly, SameSite=Strict session cookie, once, and publishes a fresh link', async () => {
    const first = mounted.signInUrl()!;
    const r = await request(`/signin?code=${codeOf(first)}`);
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe('/');
    const setCookie = r.headers['set-cookie']![0]!;
    expect(setCookie).toMatch(/^trove_session=[\w-]+; HttpOnly; SameSite=Strict; Path=\/$/);
    cookie = setCookie.split(';')[0]!;
    expect((await request(`/signin?code=${codeOf(first)}`)).status).toBe(403); // spent
    const fresh = mounted.signInUrl()!;
    expect(fresh).not.toBe(first);
    expect(readRuntimeFile(host.engine.profileDir)?.uiUrl).toBe(fresh);
  });

  it('answers API calls for the session, engine errors included', async () => {
    const list = await post('collections.list', {});
    expect(list.status).toBe(200);
    expect(JSON.parse(list.body)).toEqual({ ok: true, result: [] });
    // answered calls are 200 with the engine's error code in the body (JSON-RPC style)
    const missing = await post('collections.remove', { name: 'ghost' });
    expect(missing.status).toBe(200);
    expect(JSON.parse(missing.body)).toMatchObject({ ok: false, error: { code: 'NOT_FOUND', message: 'no collection named "ghost"' } });
    const bad = await post('search', { query: '' });
    expect(JSON.parse(bad.body)).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    const notJson = await request('/api/status', { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: '{nope' });
    expect(notJson.status).toBe(400);
    expect(JSON.parse(notJson.body).error.message).toContain('not valid JSON');
    expect((await request('/api/status', { headers: { cookie } })).status).toBe(405);
  });

  it('accepts the host token as a bearer instead of a session, and nothing else', async () => {
    expect((await post('status', {}, { authorization: `Bearer ${host.token}` })).status).toBe(200);
    expect((await post('status', {}, { authorization: 'Bearer trove_wrong' })).status).toBe(401);
    expect((await post('status', {}, { cookie: 'trove_session=forged' })).status).toBe(401);
  });

  it('refuses cross-site and rebinding requests even with a session', async () => {
    expect((await post('status', {}, { cookie, origin: 'https://evil.example' })).status).toBe(403);
    expect((await post('status', {}, { cookie, host: `evil.example:${host.port}` })).status).toBe(403);
    expect((await post('status', {}, { cookie, origin: `http://127.0.0.1:${host.port}` })).status).toBe(200);
  });

  it('streams index activity as server-sent events', async () => {
    const seen: string[] = [];
    const done = new Promise<void>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: host.port, path: '/api/events', headers: { cookie } }, (res) => {
        expect(res.headers['content-type']).toBe('text/event-stream');
        res.setEncoding('utf8');
        let buf = '';
        res.on('data', (chunk: string) => {
          buf += chunk;
          for (let i = buf.indexOf('\n\n'); i !== -1; i = buf.indexOf('\n\n')) {
            const frame = buf.slice(0, i);
            buf = buf.slice(i + 2);
            if (frame.startsWith('data: ')) seen.push(frame.slice(6));
            if (seen.some((s) => s.includes('"state":"done"'))) {
              req.destroy();
              resolve();
            }
          }
        });
        void post('collections.add', { root: notes, name: 'notes' }).then((r) => expect(r.status).toBe(200), reject);
      });
      req.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(e)));
    });
    await done;
    const events = seen.map((s) => JSON.parse(s) as { type: string });
    expect(events.some((e) => e.type === 'collections.changed')).toBe(true);
    expect(events.filter((e) => e.type === 'index.activity').length).toBeGreaterThanOrEqual(2);
    const search = JSON.parse((await post('search', { query: 'lighthouse' })).body);
    expect(search.result.results[0].path).toBe('a.md');
  });

  it('serves the built renderer with security headers, and nothing outside it', async () => {
    const index = await request('/');
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(index.headers['content-security-policy']).toContain("default-src 'self'");
    expect(index.headers['x-frame-options']).toBe('DENY');
    const asset = await request('/assets/app-123.js');
    expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(asset.headers['cache-control']).toContain('immutable');
    for (const p of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/%2e%2e/%2e%2e/secret.txt', '/%E0%A4%A']) {
      const r = await request(p);
      expect(r.status, p).toBe(404);
      expect(r.body).not.toContain('outside the renderer');
    }
  });
});
