// The Connect screen's "Write to … config" buttons, through the app API on a real engine, with
// HOME pointed at a temp dir: a new file, a merge that keeps everything else (with a backup), and
// a broken file that is refused and left as it was.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WrittenConfig } from '../../src-main/api/results.js';
import { Engine } from '../../src-main/engine/index.js';
import { createAppApi, type AppApi } from '../../src-main/host/app-api.js';
import { ok } from '../helpers/app-api.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-connect-config-'));
const home = path.join(tmp, 'home');
const savedHome = process.env.HOME;
const ENDPOINT = 'http://127.0.0.1:7077/mcp';
const TOKEN = 'trove_config_writer_token';
let engine: Engine;
let api: AppApi;

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, Record<string, Record<string, unknown>>>;

beforeAll(async () => {
  fs.mkdirSync(home, { recursive: true });
  process.env.HOME = home;
  // never write into the real home: stop here if HOME is not what os.homedir() answers
  if (os.homedir() !== home) throw new Error(`os.homedir() is ${os.homedir()}, not the temp HOME`);
  engine = await Engine.open({ profileDir: path.join(tmp, 'profile') });
  api = createAppApi({ engine, connect: () => ({ endpoint: ENDPOINT, token: TOKEN }) });
});

afterAll(async () => {
  await api.close();
  await engine.close();
  process.env.HOME = savedHome;
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('connect.writeConfig', () => {
  it('creates a missing config file and its folders, with no backup', async () => {
    const r = ok<WrittenConfig>(await api.call('connect.writeConfig', { client: 'Claude Desktop' }));
    expect(r).toEqual({ client: 'Claude Desktop', file: path.join(home, '.config', 'Claude', 'claude_desktop_config.json'), backup: null });
    expect(readJson(r.file)).toEqual({ mcpServers: { trove: { command: 'trove', args: ['mcp'] } } });
    expect(fs.statSync(r.file).mode & 0o777).toBe(0o600);
  });

  it('merges into an existing file, keeps every other key and server, and backs the old file up', async () => {
    const file = path.join(home, '.cursor', 'mcp.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const before = `${JSON.stringify({ mcpServers: { github: { command: 'gh-mcp' }, trove: { url: 'http://old' } }, theme: 'dark' }, null, 2)}\n`;
    fs.writeFileSync(file, before);
    const r = ok<WrittenConfig>(await api.call('connect.writeConfig', { client: 'Cursor' }));
    expect(r.file).toBe(file);
    expect(r.backup).toMatch(new RegExp(`^${file.replace(/[.]/g, '\\.')}\\.trove-backup-\\d{4}-\\d\\d-\\d\\dT`));
    expect(fs.readFileSync(r.backup!, 'utf8')).toBe(before);
    expect(readJson(file)).toEqual({
      mcpServers: { github: { command: 'gh-mcp' }, trove: { url: ENDPOINT, headers: { Authorization: `Bearer ${TOKEN}` } } },
      theme: 'dark',
    });
  });

  it('writes VS Code’s user-level mcp.json under "servers"', async () => {
    const file = path.join(home, '.config', 'Code', 'User', 'mcp.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ servers: { other: { type: 'stdio', command: 'x' } }, inputs: [] }));
    const r = ok<WrittenConfig>(await api.call('connect.writeConfig', { client: 'VS Code' }));
    expect(r.file).toBe(file);
    expect(r.backup).not.toBeNull();
    expect(readJson(file)).toEqual({
      servers: { other: { type: 'stdio', command: 'x' }, trove: { type: 'http', url: ENDPOINT, headers: { Authorization: `Bearer ${TOKEN}` } } },
      inputs: [],
    });
    const info = ok<{ configs: { client: string; file: string }[] }>(await api.call('connect.info', {}));
    expect(info.configs.find((c) => c.client === 'VS Code')?.file).toBe(file);
  });

  it('refuses a file that is not valid JSON and leaves it untouched, without a backup', async () => {
    const file = path.join(home, '.config', 'Claude', 'claude_desktop_config.json');
    fs.writeFileSync(file, '{ "mcpServers": { oops ');
    const filesBefore = fs.readdirSync(path.dirname(file)).sort();
    const r = await api.call('connect.writeConfig', { client: 'Claude Desktop' });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('INVALID_INPUT');
      expect(r.error.message).toContain(`${file} is not valid JSON`);
      expect(r.error.message).toContain('it was not changed');
    }
    expect(fs.readFileSync(file, 'utf8')).toBe('{ "mcpServers": { oops ');
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(filesBefore);
  });

  it('rejects an unknown client with a clear message', async () => {
    const r = await api.call('connect.writeConfig', { client: 'Notepad' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/^connect\.writeConfig: client: /);
  });

  it('says why nothing can be written for an HTTP client when the host serves no endpoint', async () => {
    const offline = createAppApi({ engine });
    const r = await offline.call('connect.writeConfig', { client: 'Cursor' });
    await offline.close();
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ code: 'UNAVAILABLE', message: expect.stringContaining('not serving HTTP') });
  });
});
