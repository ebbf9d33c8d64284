// Background embedding as a host runs it (EmbeddingOptions.auto): on by default and off by the
// saved setting without a restart, paused and resumed with indexing, explicit runs still allowed
// while paused, and semantic searches (and the MCP vsearch, query and status tools) saying how much
// of the index they can see yet. Real files, the real ONNX model, on SQLite and on PostgreSQL (the
// pauses, the coverage counts and the pending chunks are the storage's); the same numbers over MCP
// through a real client, on one backend (the face only reads them).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine, type EmbeddingProgress, type StatusReport } from '../../src-main/engine/index.js';
import { startHost } from '../../src-main/host/host.js';
import { describeBackends } from '../helpers/backends.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';
import { modelsDir } from './models-dir.js';

const engines: Engine[] = [];
afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
  removeTempDirs();
});

// catchUpChunks 0: a search here embeds nothing by itself, so what is embedded is the background
// stage's doing (a search's own catch-up: engine-vectors.test.ts, memory-engine.test.ts)
const hostOptions = (extra: { auto?: boolean }) => ({ embeddings: { modelsDir, workers: 2, auto: true, catchUpChunks: 0, ...extra } });

function folder(files: number, topic = 'retries'): string {
  const dir = tempDir('trove-root-');
  const tree: Record<string, string> = {};
  for (let i = 0; i < files; i++) tree[`n${i}.md`] = `# Note ${i} on ${topic}\n\nFailed requests are retried with backoff, attempt ${i}.\n`;
  writeTree(dir, tree);
  return dir;
}

/** Resolves with the first progress event that matches. */
function progressWhere(e: Engine, pred: (p: EmbeddingProgress) => boolean): Promise<EmbeddingProgress> {
  return new Promise((resolve) => {
    const off = e.onEmbeddingProgress((p) => {
      if (!pred(p)) return;
      off();
      resolve(p);
    });
  });
}

async function until(e: Engine, pred: (s: StatusReport) => boolean): Promise<StatusReport> {
  for (let i = 0; i < 600; i++) {
    const s = await e.status();
    if (pred(s)) return s;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`condition not met: ${JSON.stringify((await e.status()).embeddings)}`);
}

describeBackends('background embedding', (b) => {
  const hostEngine = (extra: { auto?: boolean } = {}) => b.open(hostOptions(extra));

  it('is on in a host engine: keyword search at once, vectors follow, status says it all', async () => {
    const e = await hostEngine();
    await e.addCollection({ root: folder(3), name: 'notes' });
    await e.index();
    expect((await e.search({ query: 'retried' })).results).toHaveLength(3); // keyword-searchable before any vector
    const s = await until(e, (st) => st.embeddings.coverage.percent === 100 && st.embeddings.background.state === 'idle');
    expect(s.embeddings.background).toEqual({ enabled: true, source: 'default', state: 'idle' });
    expect(s.embeddings.coverage).toMatchObject({ embedded: 3, chunks: 3, percent: 100, etaSeconds: null });
    const r = await e.search({ query: 'retry policy', mode: 'vector' });
    expect(r.results[0]?.path).toMatch(/^n\d\.md$/);
    expect(r.notices).toBeUndefined(); // everything is embedded: nothing to say
    // memory written later is embedded by the same stage
    const { id } = await e.memory.store({ threadId: 'bg', source: 'agent', text: 'Pack an umbrella: showers are expected all afternoon.' });
    await until(e, (st) => st.memory?.needsEmbedding === 0);
    expect((await e.memory.search({ query: 'will it rain later today?', mode: 'vector', limit: 1 })).hits.map((h) => h.entry.id)).toEqual([id]);
  });

  it('is off in an engine opened without it (a one-shot command), and says where to get vectors', async () => {
    const e = await hostEngine({ auto: false });
    await e.addCollection({ root: folder(2), name: 'notes' });
    await e.index();
    const s = await e.status();
    expect(s.embeddings.background).toEqual({ enabled: false, source: 'option', state: 'off' });
    await expect(e.search({ query: 'retry policy', mode: 'vector' })).rejects.toThrow(/no vectors yet for notes: .*`trove embed`/);
  });

  it('follows the saved setting without a restart: off stops it, on brings the vectors', async () => {
    const e = await hostEngine();
    e.settings.update({ backgroundEmbedding: false });
    expect((await e.status()).embeddings.background).toEqual({ enabled: false, source: 'saved', state: 'off' });
    await e.addCollection({ root: folder(4), name: 'notes' });
    await e.index();
    expect(await e.status()).toMatchObject({ needsEmbedding: 4, hasVectorIndex: false });
    await expect(e.search({ query: 'retry policy', mode: 'vector' })).rejects.toThrow(/switched off in Settings/);
    e.settings.update({ backgroundEmbedding: true });
    const s = await until(e, (st) => st.needsEmbedding === 0 && st.hasVectorIndex);
    expect(s.embeddings.background).toMatchObject({ enabled: true, source: 'saved' });
  });

  it('pauses with indexing and resumes with it; an explicit embed still runs while paused', async () => {
    const e = await hostEngine();
    await e.pause(); // everything, before there is any work
    await e.addCollection({ root: folder(40), name: 'big' });
    await e.addCollection({ root: folder(2, 'bread'), name: 'small' });
    await e.index(); // an explicit index run works while paused: keyword search at once
    expect((await e.search({ query: 'retried', collections: ['big'] })).total_estimated).toBe(40);
    let s = await e.status();
    expect(s.embeddings.background.state).toBe('paused');
    expect(s.needsEmbedding).toBe(42);

    // an explicit request is not held by the pause
    const [small] = await e.embed({ collection: 'small' });
    expect(small).toMatchObject({ collection: 'small', vectors: 2, needsEmbedding: 0 });

    // resume: the stage starts on 'big'; pause 'big' the moment it says so (before its first batch)
    const off = e.onEmbeddingProgress((p) => {
      if (p.collection === 'big' && p.phase === 'filling') {
        off();
        void e.pause('big'); // its body runs now, in the listener, before the stage's first batch
      }
    });
    const paused = progressWhere(e, (p) => p.collection === 'big' && p.phase === 'paused');
    await e.resume();
    const stoppedAt = await paused;
    expect(stoppedAt).toMatchObject({ done: 0, total: 40 });
    s = await e.status();
    expect(s.embeddings.background.state).toBe('paused'); // work is left, and it is paused
    expect(s.embeddings.collections.find((c) => c.collection === 'big')!.needsEmbedding).toBeGreaterThan(0);

    // semantic search says how much it can see, and that the rest is paused
    const r = await e.search({ query: 'retry policy', mode: 'hybrid' });
    const notice = r.notices?.find((n) => n.startsWith('semantic search sees part of the index so far'));
    expect(notice).toMatch(/^semantic search sees part of the index so far: 2 of 42 chunks embedded \(4\.7%\); background embedding is paused with indexing/);

    await e.resume('big');
    s = await until(e, (st) => st.needsEmbedding === 0);
    expect(s.embeddings.coverage).toMatchObject({ embedded: 42, chunks: 42, percent: 100 });
    expect((await e.search({ query: 'retry policy', mode: 'hybrid' })).notices).toBeUndefined();
  });
});

describe('how much is embedded, over MCP', () => {
  it('vsearch and query carry the notice; status gives the numbers and what the stage is doing', async () => {
    const e = await Engine.open({ profileDir: tempDir('trove-profile-'), ...hostOptions({}) });
    engines.push(e);
    await e.addCollection({ root: folder(3, 'bread'), name: 'done' });
    await e.index();
    await until(e, (st) => st.needsEmbedding === 0);
    await e.addCollection({ root: folder(5), name: 'later' });
    await e.pause('later'); // paused before its first index run (which still runs: it is explicit): its chunks wait
    await e.index();
    const host = await startHost({ engine: e, port: 0, writeRuntimeFile: false, token: 'background-test-token-0123456789' });
    const client = new Client({ name: 'background-test', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(host.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${host.token}` } } }));
      for (const name of ['vsearch', 'query']) {
        const r = await client.callTool({ name, arguments: { query: 'retry policy' } });
        expect(r.isError, name).toBeFalsy();
        const notices = (r.structuredContent as { notices?: string[] }).notices ?? [];
        expect(notices, name).toContain('no vectors yet for later: their documents come from keyword search only');
        expect(notices.find((n) => n.startsWith('semantic search sees part of the index so far'))).toMatch(/3 of 8 chunks embedded \(37\.5%\); background embedding is paused with indexing/);
        const text = (r.content as { type: string; text: string }[])[0]!.text;
        expect(text).toMatch(/\nNote: semantic search sees part of the index so far: 3 of 8 chunks embedded/);
      }
      const status = await client.callTool({ name: 'status', arguments: {} });
      expect((status.structuredContent as { embedding: unknown }).embedding).toMatchObject({ embedded: 3, chunks: 8, percent: 37.5, background: 'paused' });
      const text = (status.content as { text: string }[])[0]!.text;
      expect(text).toMatch(/Embeddings: 3 of 8 chunks embedded \(37\.5%\); background embedding is paused with indexing/);
      expect(text).toMatch(/- later: .*embeddings: 0 of 5 chunks embedded \(0%\)/);
    } finally {
      await client.close();
      await host.close();
    }
  });
});
