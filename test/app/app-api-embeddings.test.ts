// The app API's live-folder, embedding and memory calls on a real engine with the real ONNX
// model: pause/resume show up in status, "compute embeddings" runs in the background with
// progress events until semantic search answers, a collection switches models, and the memory
// screen's calls (threads, entries, search in every mode, an entry, statistics, delete) answer.
// On both backends.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { testModelsDir } from '../helpers/test-models.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent, MemoryEntry, MemoryPage, MemorySearchResponse, MemoryStatistics, MemoryThread, ModelEntry, StatusReport } from '../../src-main/api/results.js';
import type { Engine } from '../../src-main/engine/index.js';
import { createAppApi, type AppApi } from '../../src-main/host/app-api.js';
import { ok } from '../helpers/app-api.js';
import { describeBackends } from '../helpers/backends.js';

const MODELS = testModelsDir();

describeBackends('app API: live folders, embeddings and memory', (b) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-appapi-embed-'));
  const docs = path.join(tmp, 'kitchen');
  let engine: Engine;
  let api: AppApi;
  const events: ApiEvent[] = [];

  beforeAll(async () => {
    fs.mkdirSync(docs);
    fs.writeFileSync(path.join(docs, 'bread.md'), '# Sourdough\n\nFeed the starter the night before; the dough rises slowly in a cool kitchen.\n');
    fs.writeFileSync(path.join(docs, 'bikes.md'), '# Bicycle repair\n\nPatch the inner tube, then check the tyre for thorns.\n');
    // catchUpChunks 0: a search embeds nothing by itself, so the vectors are the background run's
    engine = await b.open({ profileDir: path.join(tmp, 'profile'), embeddings: { modelsDir: MODELS, catchUpChunks: 0 } });
    api = createAppApi({ engine });
    api.onEvent((e) => events.push(e));
    ok(await api.call('collections.add', { root: docs, name: 'kitchen' }));
    await api.idle();
  });

  afterAll(async () => {
    await api.close();
    await engine.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  describe('the calls', () => {
    it('pauses and resumes a collection, and status says so', async () => {
      expect(ok(await api.call('collections.pause', { name: 'kitchen' }))).toEqual({ paused: 'kitchen' });
      let status = ok<StatusReport>(await api.call('status', {}));
      expect(status.indexing?.collections.find((c) => c.collection === 'kitchen')?.paused).toBe(true);
      ok(await api.call('collections.resume', { name: 'kitchen' }));
      status = ok<StatusReport>(await api.call('status', {}));
      expect(status.indexing?.collections.find((c) => c.collection === 'kitchen')?.paused).toBe(false);
      expect(await api.call('collections.pause', { name: 'ghost' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    });

    it('computes embeddings in the background, reports progress, then semantic search answers', async () => {
      const before = await api.call('search', { query: 'baking bread at home', mode: 'vector' });
      expect(before).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE' } });
      expect(ok(await api.call('collections.embed', { name: 'kitchen' }))).toEqual({ started: 'kitchen' });
      await api.idle();
      const finished = events.find((e) => e.type === 'embedding.finished');
      expect(finished).toEqual({ type: 'embedding.finished', collection: 'kitchen', error: null });
      expect(events.some((e) => e.type === 'embedding.progress' && e.progress.collection === 'kitchen')).toBe(true);
      const status = ok<StatusReport>(await api.call('status', {}));
      expect(status.embeddings?.collections.find((c) => c.collection === 'kitchen')).toMatchObject({ needsEmbedding: 0, model: expect.any(String) });
      const found = ok<{ results: { path: string }[] }>(await api.call('search', { query: 'baking bread at home', mode: 'vector' }));
      expect(found.results[0]?.path).toBe('bread.md');
    });

    it('lists the model catalogue with what is here, and switches a collection to another model', async () => {
      const models = ok<ModelEntry[]>(await api.call('models.list', {}));
      expect(models.find((m) => m.id === 'all-MiniLM-L6-v2')).toMatchObject({ role: 'embed', ready: true, state: expect.stringMatching(/^ready/) });
      expect(models.find((m) => m.id === 'test-tiny-embedder')).toMatchObject({ role: 'embed', ready: true });
      const before = ok<StatusReport>(await api.call('status', {})).embeddings!.collections.find((c) => c.collection === 'kitchen')!;
      const other = before.model === 'test-tiny-embedder' ? 'all-MiniLM-L6-v2' : 'test-tiny-embedder';

      const switched = ok<{ model: string | null }>(await api.call('collections.setModel', { name: 'kitchen', model: other }));
      expect(switched).toMatchObject({ model: before.model }); // the old vectors serve until the new ones are done
      await api.idle();
      const after = ok<StatusReport>(await api.call('status', {})).embeddings!.collections.find((c) => c.collection === 'kitchen')!;
      expect(after).toMatchObject({ model: other, switchingTo: null, needsEmbedding: 0 });
      // searched in the new space (the tiny model knows words, not meaning: the query shares the note's)
      const found = ok<{ results: { path: string }[] }>(await api.call('search', { query: 'the dough rises slowly in a cool kitchen', mode: 'vector' }));
      expect(found.results[0]?.path).toBe('bread.md');

      expect(await api.call('collections.setModel', { name: 'kitchen', model: 'no-such-model' })).toMatchObject({ ok: false, error: { message: expect.stringContaining('no-such-model') } });
      expect(await api.call('collections.setModel', { name: 'ghost', model: null })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    });

    it("the memory screen: threads, a thread's entries newest first, search in every mode, an entry, statistics, delete", async () => {
      await engine.memory.store({ threadId: 'ops', source: 'agent', text: 'The deploy runs every Tuesday after the backup finishes.', tags: ['deploy'] });
      await engine.memory.store({ threadId: 'ops', source: 'user', text: 'Rotate the vault token before each deploy.' });
      await engine.memory.store({ threadId: 'ui', source: 'user', text: 'The settings screen should remember the last tab.' });
      const threads = ok<MemoryThread[]>(await api.call('memory.threads', {}));
      expect(threads.map((t) => [t.threadId, t.entries]).sort()).toEqual([['ops', 2], ['ui', 1]]);
      const page = ok<MemoryPage>(await api.call('memory.entries', { thread: 'ops' }));
      expect(page.entries.map((e) => [e.text, e.tags])).toEqual([
        ['Rotate the vault token before each deploy.', []],
        ['The deploy runs every Tuesday after the backup finishes.', ['deploy']],
      ]);
      expect(ok(await api.call('collections.embed', {}))).toEqual({ started: 'all' }); // memory's vectors come with everything's
      await api.idle();
      for (const mode of ['keyword', 'vector', 'hybrid'] as const) {
        const found = ok<MemorySearchResponse>(await api.call('memory.search', { query: 'when does the deploy run', mode }));
        expect(found.hits[0]?.entry.text, mode).toBe('The deploy runs every Tuesday after the backup finishes.');
      }
      const id = page.entries[0]!.id;
      expect(ok<MemoryEntry>(await api.call('memory.get', { id }))).toMatchObject({ id, threadId: 'ops', source: 'user' });
      expect(ok<MemoryStatistics>(await api.call('memory.statistics', {}))).toMatchObject({ entries: 3, threads: 2, semantic: { pendingChunks: 0 } });
      ok(await api.call('memory.delete', { thread: 'ui' }));
      expect(ok<MemoryThread[]>(await api.call('memory.threads', {})).map((t) => t.threadId)).toEqual(['ops']);
      expect(await api.call('memory.get', { id: 987654 })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    });

    it('refuses to embed a collection that does not exist', async () => {
      expect(await api.call('collections.embed', { name: 'ghost' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND', message: expect.stringContaining('ghost') } });
    });
  });
});
