// The engine host exactly as the desktop app ships it: electron-vite's out/main/host.js, run in a
// child process with Electron's parentPort stood in by Node's IPC channel. Unlike the sources,
// the bundle must find the model manifest and start its embedding workers from out/main/.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent } from '../../src-main/api/results.js';
import { modelsDir } from '../embed/models-dir.js';
import { supervisedHost, until } from '../helpers/supervised-host.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const hostBundle = path.join(ROOT, 'out/main/host.js');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-bundled-host-'));
const notes = path.join(tmp, 'notes');
fs.mkdirSync(notes);
fs.writeFileSync(path.join(notes, 'resilience.md'), '# Resilience settings\n\nFailed requests are sent again up to three times, waiting longer after each failure.\n');
fs.writeFileSync(path.join(notes, 'cooking.md'), '# Sourdough\n\nFeed the starter with flour and water the evening before baking bread.\n');

const host = supervisedHost(hostBundle, {
  execArgv: ['--import', path.join(import.meta.dirname, 'fixtures/parent-port.mjs')],
  env: { ...process.env, TROVE_HOME: path.join(tmp, 'profile'), TROVE_MODELS_DIR: modelsDir, TROVE_PORT: '0' },
  stdout: 'ignore',
  stopTimeoutMs: 10_000,
});
const { sup } = host;

beforeAll(() => {
  // `npm test` builds first; a lone run of this file builds what is missing
  if (fs.existsSync(hostBundle)) return;
  const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`electron-vite build failed:\n${r.stdout}\n${r.stderr}`);
}, 120_000);

afterAll(async () => {
  await host.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('the bundled engine host (out/main/host.js)', () => {
  it('reads the model manifest, embeds in its bundled workers and answers a vector search', async () => {
    const events: ApiEvent[] = [];
    sup.onEvent((e) => events.push(e));
    sup.start();
    const models = await sup.call('models.list', {});
    expect(models.ok, JSON.stringify(models)).toBe(true);
    expect((models as { result: { id: string; ready: boolean }[] }).result).toContainEqual(expect.objectContaining({ id: 'all-MiniLM-L6-v2', ready: true }));

    expect(await sup.call('collections.add', { root: notes, name: 'notes' })).toMatchObject({ ok: true });
    await until(async () => {
      const r = await sup.call('collections.list', {});
      return r.ok && (r.result as { documents: number }[])[0]?.documents === 2;
    }, 'the first index run', 30_000);

    expect(await sup.call('collections.embed', { name: 'notes' })).toMatchObject({ ok: true });
    await until(() => events.some((e) => e.type === 'embedding.finished'), 'embedding to finish', 60_000);
    expect(events.find((e) => e.type === 'embedding.finished')).toMatchObject({ error: null });

    const found = await sup.call('search', { query: 'how many times is a failed request retried', mode: 'vector' });
    expect(found.ok, JSON.stringify(found)).toBe(true);
    expect((found as { result: { results: { path: string }[] } }).result.results[0]?.path).toBe('resilience.md');
  }, 120_000);

  it('parses documents in its bundled parse workers (out/main/parse-worker.js) and locates hits to the page', async () => {
    const papers = path.join(tmp, 'papers');
    fs.mkdirSync(papers);
    fs.copyFileSync(path.join(ROOT, 'test/fixtures/formats/good/report.pdf'), path.join(papers, 'report.pdf'));
    fs.copyFileSync(path.join(ROOT, 'test/fixtures/formats/good/deck.pptx'), path.join(papers, 'deck.pptx'));
    expect(await sup.call('collections.add', { root: papers, name: 'papers' })).toMatchObject({ ok: true });
    await until(async () => {
      const r = await sup.call('collections.list', {});
      return r.ok && (r.result as { name: string; documents: number }[]).find((c) => c.name === 'papers')?.documents === 2;
    }, 'the documents to be parsed', 60_000);
    const found = await sup.call('search', { query: 'moraine', collections: ['papers'] });
    expect(found.ok, JSON.stringify(found)).toBe(true);
    expect((found as { result: { results: { path: string; page: number | null }[] } }).result.results[0]).toMatchObject({ path: 'report.pdf', page: 2 });
  }, 90_000);

  it('shuts down cleanly in the middle of embedding: workers finish their run, the process exits 0', async () => {
    for (let i = 0; i < 150; i++) {
      fs.writeFileSync(path.join(notes, `note-${i}.md`), `# Note ${i}\n\n${'Paragraph about retries, backoff and timeouts. '.repeat(20)}\n`);
    }
    const events: ApiEvent[] = [];
    sup.onEvent((e) => events.push(e));
    expect(await sup.call('collections.reindex', { name: 'notes' })).toMatchObject({ ok: true });
    await until(async () => {
      const r = await sup.call('collections.list', {});
      return r.ok && (r.result as { documents: number }[])[0]?.documents === 152;
    }, 'the notes to be indexed', 30_000);
    expect(await sup.call('collections.embed', { name: 'notes' })).toMatchObject({ ok: true });
    await until(() => events.some((e) => e.type === 'embedding.progress' && e.progress.done > 0 && e.progress.done < e.progress.total), 'embedding to be under way', 60_000);
    const child = host.children.at(-1)!;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    await sup.stop();
    // terminating a worker inside session.run aborts the whole process (SIGABRT); the supervisor's
    // kill after its patience runs out would be SIGKILL: a clean stop is code 0, no signal
    expect(await exited).toEqual({ code: 0, signal: null });
  }, 120_000);
});
