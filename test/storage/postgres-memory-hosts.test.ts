// Agent memory shared by several hosts on one PostgreSQL database (two engines opened with
// `database`). PostgreSQL only: one SQLite file has one writing process, so neither a delete racing
// a batch update nor another host's change notice can happen there. A batch update that loses an
// entry to another host's delete fails that item (or the whole atomic batch) as not found; memory
// another host writes is embedded here in the background, woken by its change notice alone.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, type TroveError } from '../../src-main/engine/index.js';
import { modelsDir } from '../embed/models-dir.js';
import { freshDatabase } from '../helpers/postgres.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

const engines: Engine[] = [];
let url: string;
let host: Engine;

async function open(opts: { auto?: boolean } = {}): Promise<Engine> {
  // catchUpChunks 0: a search embeds nothing by itself, so the vectors found are the background stage's
  const e = await Engine.open({ profileDir: tempDir('trove-pg-memory-'), database: url, embeddings: { modelsDir, defaultModel: 'all-MiniLM-L6-v2', workers: 1, auto: opts.auto ?? false, catchUpChunks: 0 } });
  engines.push(e);
  return e;
}

beforeAll(async () => {
  url = await freshDatabase('memory_hosts', { migrated: true });
  host = await open();
});

afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
  removeTempDirs();
});

describe('another host deleting an entry while a batch updates it', () => {
  /** Runs `update` while another connection's uncommitted delete of `victim` holds its row, then commits the delete. */
  async function racedDelete<T>(victim: number, update: () => Promise<T>): Promise<T> {
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('DELETE FROM documents WHERE id = (SELECT document_id FROM memory_entries WHERE id = $1)', [victim]);
      const running = update();
      // the batch has read the entry (the delete is not committed) and now waits for its row lock
      const waiting = "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'";
      await expect.poll(async () => Number((await other.query<{ n: string }>(waiting)).rows[0]!.n), { timeout: 10_000, interval: 20 }).toBeGreaterThan(0);
      await other.query('COMMIT');
      return await running;
    } finally {
      await other.end();
    }
  }
  const race = async () => {
    const stored = await host.memory.storeBatch([
      { threadId: 'race', source: 'agent', text: 'kept entry' },
      { threadId: 'race', source: 'agent', text: 'deleted by another host' },
    ]);
    return stored.results.map((r) => r.id!);
  };

  it('per item: that update fails as not found, the others are written', async () => {
    const [kept, victim] = await race();
    const result = await racedDelete(victim!, () => host.memory.updateBatch([{ id: victim!, text: 'too late' }, { id: kept!, text: 'kept entry, edited' }], { atomic: false }));
    expect(result.results).toEqual([
      { index: 0, success: false, id: victim, error: `updates[0]: context entry ${victim} not found` },
      { index: 1, success: true, id: kept, error: null, updatedFields: ['text_content'] },
    ]);
    expect((await host.memory.get([kept!, victim!])).map((e) => e.text)).toEqual(['kept entry, edited']);
    await host.memory.delete({ threadIds: ['race'] });
  });

  it('atomic: the batch fails whole as not found and writes nothing', async () => {
    const [kept, victim] = await race();
    const failed = await racedDelete(victim!, () => host.memory.updateBatch([{ id: kept!, text: 'kept entry, edited' }, { id: victim!, text: 'too late' }]).then(() => null, (err: TroveError) => err));
    expect(failed).toMatchObject({ code: 'NOT_FOUND', message: `nothing was updated (the batch is atomic): updates[1]: context entry ${victim} not found` });
    expect((await host.memory.get([kept!])).map((e) => e.text)).toEqual(['kept entry']);
    await host.memory.delete({ threadIds: ['race'] });
  });
});

describe("another host's memory", () => {
  it('is searchable here at once, and embedded here in the background, woken by its change notice', async () => {
    const embedder = await open({ auto: true }); // no other write reaches it: only the notice can wake its stage
    const writer = host; // background embedding off
    await expect.poll(() => embedder.busy(), { timeout: 10_000, interval: 20 }).toBe(false); // its look at open is over: nothing to embed
    expect((await embedder.memory.summary()).needsEmbedding).toBe(0);
    const { id } = await writer.memory.store({ threadId: 'notice', source: 'agent', text: 'Stored on another host: the umbrella is in the hall.' });
    expect((await embedder.memory.search({ query: 'umbrella' })).hits.map((h) => h.entry.id)).toEqual([id]);
    await expect.poll(async () => (await embedder.memory.summary()).needsEmbedding, { timeout: 30_000, interval: 100 }).toBe(0);
    const semantic = await writer.memory.search({ query: 'where did I leave the rain gear?', mode: 'vector', limit: 1 });
    expect(semantic.hits.map((h) => h.entry.id)).toEqual([id]);
  });
});
