// Two hosts embedding one collection at once on one PostgreSQL database (two engines opened with
// `database`) share the work through embedding claims: every chunk is embedded once — a trigger on
// the space's table records each vector written, so a chunk embedded twice (an update) is seen —
// and none is left, claimed or not. PostgreSQL only: one SQLite file has one embedding process.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src-main/engine/index.js';
import { modelsDir } from '../embed/models-dir.js';
import { freshDatabase } from '../helpers/postgres.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';

// small batches: the two hosts take turns claiming, instead of the first taking everything at once
const embeddings = { modelsDir, defaultModel: 'all-MiniLM-L6-v2', workers: 1, batchChunks: 3 };
let url: string;
let db: pg.Client;
const engines: Engine[] = [];

async function host(): Promise<Engine> {
  const e = await Engine.open({ profileDir: tempDir('trove-pg-embed-'), database: url, embeddings });
  engines.push(e);
  return e;
}

beforeAll(async () => {
  url = await freshDatabase('embedding_hosts', { migrated: true });
  db = new pg.Client({ connectionString: url });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
  await Promise.all(engines.map((e) => e.close()));
  removeTempDirs();
});

const count = async (sql: string, params: unknown[] = []) => Number((await db.query<{ n: string }>(sql, params)).rows[0]!.n);

/** A one-note collection embedded on a host: its model loaded and the model's space made. */
async function seeded(e: Engine, name: string): Promise<void> {
  const seed = tempDir('trove-pg-embed-seed-');
  writeTree(seed, { 'seed.md': `# Seed\n\nA note that makes ${name}'s model ready.\n` });
  await e.addCollection({ root: seed, name });
  await e.index({ collection: name });
  await e.embed({ collection: name });
}

describe('two hosts embedding one collection at once', () => {
  it('embed every chunk once between them, and leave none pending or claimed', async () => {
    const [a, b] = [await host(), await host()];
    // the model's space made first (a note for each host, whose model is then loaded), so its table can be watched
    await seeded(a, 'seed-a');
    await seeded(b, 'seed-b');
    const space = await count("SELECT v.active_space_id AS n FROM collection_vectors v JOIN collections c ON c.id = v.collection_id WHERE c.name = 'seed-a'");
    await db.query(`
      CREATE TABLE written (chunk_id bigint NOT NULL, op text NOT NULL);
      CREATE FUNCTION note_written() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO written VALUES (NEW.chunk_id, TG_OP); RETURN NEW; END $$;
      CREATE TRIGGER note_written AFTER INSERT OR UPDATE ON vec_space_${space} FOR EACH ROW EXECUTE FUNCTION note_written();`);

    const root = tempDir('trove-pg-embed-pair-');
    writeTree(root, Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`n${i}.md`, `# Note ${i}\n\n${`Sentence about topic number ${i}. `.repeat(3)}\n`])));
    await a.addCollection({ root, name: 'pair' });
    await a.index({ collection: 'pair' });
    const chunks = await count("SELECT count(*) AS n FROM chunks c JOIN documents d ON d.id = c.document_id JOIN collections k ON k.id = d.collection_id WHERE k.name = 'pair'");
    expect(chunks).toBe(24);
    const [[onA], [onB]] = await Promise.all([a.embed({ collection: 'pair' }), b.embed({ collection: 'pair' })]);
    for (const s of [onA, onB]) expect(s).toMatchObject({ collection: 'pair', model: 'all-MiniLM-L6-v2', vectors: chunks, needsEmbedding: 0 });
    expect(await count("SELECT count(*) AS n FROM written WHERE op = 'INSERT'")).toBe(chunks);
    expect(await count("SELECT count(*) AS n FROM written WHERE op = 'UPDATE'")).toBe(0); // nobody embedded a chunk the other had
    expect(await count('SELECT count(DISTINCT chunk_id) AS n FROM written')).toBe(chunks);
    expect(await count('SELECT count(*) AS n FROM embedding_claims')).toBe(0);
    // and both hosts search the vectors the two of them wrote
    for (const e of [a, b]) expect((await e.search({ query: 'topic number 7', mode: 'vector', collections: ['pair'], limit: 1 })).results[0]?.path).toBe('n7.md');
  });

  it('take the chunk behind a run\'s cursor that another host held, once that claim runs out', async () => {
    const a = await host();
    await seeded(a, 'seed-behind');
    const root = tempDir('trove-pg-embed-behind-');
    writeTree(root, Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`b${i}.md`, `# Behind ${i}\n\nA note about lighthouse number ${i}.\n`])));
    await a.addCollection({ root, name: 'behind' });
    await a.index({ collection: 'behind' });
    const space = await count("SELECT id AS n FROM vector_spaces WHERE model_id = 'all-MiniLM-L6-v2'");
    const first = await count("SELECT min(c.id) AS n FROM chunks c JOIN documents d ON d.id = c.document_id JOIN collections k ON k.id = d.collection_id WHERE k.name = 'behind'");
    // a host that has since gone holds the first chunk for a second more: the run passes it, then must come back for it
    await db.query('INSERT INTO embedding_claims (space_id, chunk_id, until) VALUES ($1, $2, $3)', [space, first, Date.now() + 1000]);
    const [status] = await a.embed({ collection: 'behind' });
    expect(status).toMatchObject({ collection: 'behind', vectors: 8, needsEmbedding: 0 });
    expect(await count(`SELECT count(*) AS n FROM vec_space_${space} WHERE chunk_id = $1`, [first])).toBe(1);
    expect(await count('SELECT count(*) AS n FROM embedding_claims')).toBe(0);
  });
});
