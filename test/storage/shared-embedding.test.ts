// Embedding on PostgreSQL (engine/shared/shared-embedder.ts) against the engine's on SQLite: a
// folder indexed and embedded by `trove index --database` holds, for every chunk, the vector
// SQLite's stage makes (all-MiniLM-L6-v2, cosines equal to 3 decimals), and vector and hybrid
// search answer as on SQLite without `trove migrate`. Two hosts embedding one collection at once
// share it through claims: every chunk embedded once, none left. `trove embed --database` and
// `trove models use --database` do on PostgreSQL what they do on SQLite.
import pg from 'pg';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, openSharedIndex, openSharedIndexer, type SearchRequest, type SearchResponse, type SharedIndex } from '../../src-main/engine/index.js';
import { databasePath } from '../../src-main/engine/profile.js';
import { modelsDir } from '../embed/models-dir.js';
import { ensureBuilt, oneJson, runTrove } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';

const FILES: Record<string, string> = {
  'docs/resilience.md': '# Resilience\n\n## Retries\n\nThe HTTP client retries failed requests three times with exponential backoff.\n\n## Timeouts\n\nA request times out after thirty seconds.\n',
  'docs/client.md': '# HTTP client\n\nThe client sends requests over keep-alive connections. Failed requests are logged.\n',
  'notes/cells.md': '# Biology\n\nThe mitochondria is the powerhouse of the cell and makes ATP. Cells divide by mitosis.\n',
  'notes/ocean.md': '# Oceans\n\nSalt water covers most of the planet; tides follow the moon.\n',
  'src/retry.ts': '// retry with exponential backoff\nexport async function retry(fn: () => Promise<void>, attempts = 3) {\n  for (let i = 0; i < attempts; i++) await fn();\n}\n',
};
const embeddings = { modelsDir, defaultModel: 'all-MiniLM-L6-v2', workers: 1 };

let root: string;
let profile: string;
let url: string;
let engine: Engine;
let shared: SharedIndex;
let client: pg.Client;

beforeAll(async () => {
  ensureBuilt();
  root = tempDir('trove-pgembed-root-');
  writeTree(root, FILES);
  profile = tempDir('trove-pgembed-profile-');
  engine = await Engine.open({ profileDir: profile, embeddings });
  await engine.addCollection({ root, name: 'notes' });
  await engine.index();
  await engine.embed();
  url = await freshDatabase('pgembed');
  client = new pg.Client({ connectionString: url });
  await client.connect();
});

afterAll(async () => {
  await client?.end();
  await shared?.close();
  await engine?.close();
  removeTempDirs();
});

/** Each chunk's vector by "path#ordinal". */
function sqliteVectors(): Map<string, Float32Array> {
  const db = new Database(databasePath(profile), { readonly: true });
  sqliteVec.load(db);
  try {
    const space = db.prepare('SELECT active_space_id AS id FROM collection_vectors').get() as { id: number };
    const rows = db
      .prepare(`SELECT d.path || '#' || c.ordinal AS k, v.embedding AS e FROM vec_space_${space.id} v JOIN chunks c ON c.id = v.chunk_id JOIN documents d ON d.id = c.document_id`)
      .all() as { k: string; e: Buffer }[];
    return new Map(rows.map((r) => [r.k, new Float32Array(r.e.buffer.slice(r.e.byteOffset, r.e.byteOffset + r.e.byteLength))]));
  } finally {
    db.close();
  }
}

async function postgresVectors(collection: string): Promise<Map<string, Float32Array>> {
  const { rows: spaces } = await client.query<{ id: number }>('SELECT v.active_space_id AS id FROM collection_vectors v JOIN collections k ON k.id = v.collection_id WHERE k.name = $1', [collection]);
  const rows = (
    await client.query<{ k: string; e: string }>(
      `SELECT d.path || '#' || c.ordinal AS k, v.embedding::text AS e FROM vec_space_${spaces[0]!.id} v JOIN chunks c ON c.id = v.chunk_id JOIN documents d ON d.id = c.document_id JOIN collections k ON k.id = d.collection_id WHERE k.name = $1`,
      [collection],
    )
  ).rows;
  return new Map(rows.map((r) => [r.k, Float32Array.from(JSON.parse(r.e) as number[])]));
}

const cosine = (a: Float32Array, b: Float32Array): number => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! ** 2;
    nb += b[i]! ** 2;
  }
  return dot / Math.sqrt(na * nb);
};

const answers = (r: SearchResponse) => r.results.map((h) => ({ path: h.path, score: h.score.toFixed(3) }));

describe('embedding on PostgreSQL', () => {
  it('`trove index --database` embeds as SQLite does: the same vectors, the same vector and hybrid answers', async () => {
    const home = tempDir('trove-pgembed-cli-');
    const added = await runTrove(['collection', 'add', root, '--name', 'notes', '--no-index', '--database', url], { home });
    expect(added.code, added.stderr).toBe(0);
    const run = await runTrove(['index', '--json', '--database', url], { home, env: { TROVE_MODELS_DIR: modelsDir } });
    expect(run.code, run.stderr).toBe(0);
    const out = oneJson<{ embeddings: { collection: string; model: string; embedded: number; pending: number }[] }>(run);
    const local = sqliteVectors();
    expect(out.embeddings).toEqual([{ collection: 'notes', model: 'all-MiniLM-L6-v2', embedded: local.size, pending: 0 }]);
    const remote = await postgresVectors('notes');
    expect([...remote.keys()].sort()).toEqual([...local.keys()].sort());
    for (const [k, v] of local) expect(cosine(v, remote.get(k)!), k).toBeCloseTo(1, 3);

    shared = await openSharedIndex(url, { profileDir: profile, embeddings });
    const queries: SearchRequest[] = [
      { query: 'how does the powerhouse of the cell work', mode: 'vector' },
      { query: 'waiting longer between attempts', mode: 'vector', limit: 3 },
      { query: 'retry failed requests', mode: 'hybrid' },
    ];
    for (const q of queries) {
      const r = await shared.search(q);
      expect(r.notices ?? [], q.query).toEqual((await engine.search(q)).notices ?? []);
      expect(answers(r), q.query).toEqual(answers(await engine.search(q)));
    }
  });

  it('`trove embed --database` fills what `index --no-embed` left; `trove models use --database` re-embeds with another model; an unknown model changes nothing', async () => {
    const home = tempDir('trove-pgembed-cmd-');
    const folder = tempDir('trove-pgembed-later-');
    writeTree(folder, { 'a.md': '# Tides\n\nThe moon pulls the oceans into tides twice a day.\n', 'b.md': '# Ferns\n\nFerns spread by spores rather than seeds.\n' });
    const env = { TROVE_MODELS_DIR: modelsDir };
    expect((await runTrove(['collection', 'add', folder, '--name', 'later', '--no-index', '--database', url], { home })).code).toBe(0);
    const indexed = await runTrove(['index', '--collection', 'later', '--no-embed', '--json', '--database', url], { home, env });
    expect(indexed.code, indexed.stderr).toBe(0);
    const chunks = (await client.query<{ n: number }>("SELECT count(*)::int AS n FROM chunks c JOIN documents d ON d.id = c.document_id JOIN collections k ON k.id = d.collection_id WHERE k.name = 'later'")).rows[0]!.n;
    expect(chunks).toBeGreaterThan(0);
    expect((await postgresVectors('notes')).size).toBeGreaterThan(0); // another collection, untouched below

    type Embedded = { embeddings: { collection: string; model: string; embedded: number; pending: number }[] };
    const embedded = await runTrove(['embed', '--collection', 'later', '--json', '--database', url], { home, env });
    expect(embedded.code, embedded.stderr).toBe(0);
    expect(oneJson<Embedded>(embedded).embeddings).toEqual([{ collection: 'later', model: 'all-MiniLM-L6-v2', embedded: chunks, pending: 0 }]);
    const again = await runTrove(['embed', '--collection', 'later', '--json', '--database', url], { home, env });
    expect(oneJson<Embedded>(again).embeddings).toEqual([{ collection: 'later', model: 'all-MiniLM-L6-v2', embedded: 0, pending: 0 }]);

    const switched = await runTrove(['models', 'use', 'test-tiny-embedder', '--collection', 'later', '--json', '--database', url], { home, env });
    expect(switched.code, switched.stderr).toBe(0);
    expect(oneJson<Embedded>(switched).embeddings).toEqual([{ collection: 'later', model: 'test-tiny-embedder', embedded: chunks, pending: 0 }]);
    const activeModel = async () =>
      (await client.query<{ model: string; choice: string | null }>("SELECT s.model_id AS model, v.model_choice AS choice FROM collection_vectors v JOIN vector_spaces s ON s.id = v.active_space_id JOIN collections k ON k.id = v.collection_id WHERE k.name = 'later'")).rows[0];
    expect(await activeModel()).toEqual({ model: 'test-tiny-embedder', choice: 'test-tiny-embedder' });
    expect((await postgresVectors('later')).size).toBe(chunks);

    const unknown = await runTrove(['models', 'use', 'no-such-model', '--collection', 'later', '--database', url], { home, env });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('no-such-model');
    expect(await activeModel()).toEqual({ model: 'test-tiny-embedder', choice: 'test-tiny-embedder' });
  });

  it('two hosts embedding one collection at once share it: every chunk embedded once, none left', async () => {
    const again = tempDir('trove-pgembed-root2-');
    writeTree(again, Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`n${i}.md`, `# Note ${i}\n\n${'Sentence about topic number ' + i + '. '.repeat(3)}\n`])));
    const hostA = await openSharedIndexer(url, { profileDir: profile, embeddings });
    const hostB = await openSharedIndexer(url, { profileDir: profile, embeddings });
    try {
      await hostA.addCollection({ root: again, name: 'pair' });
      await hostA.index({ collection: 'pair' });
      const [a, b] = await Promise.all([hostA.embed({ collection: 'pair' }), hostB.embed({ collection: 'pair' })]);
      const chunks = (await client.query<{ n: number }>("SELECT count(*)::int AS n FROM chunks c JOIN documents d ON d.id = c.document_id JOIN collections k ON k.id = d.collection_id WHERE k.name = 'pair'")).rows[0]!.n;
      expect(a![0]!.embedded + b![0]!.embedded).toBe(chunks);
      expect([a![0]!.pending, b![0]!.pending]).toEqual([0, 0]);
      expect((await postgresVectors('pair')).size).toBe(chunks);
      expect((await client.query<{ n: number }>('SELECT count(*)::int AS n FROM embedding_claims')).rows[0]!.n).toBe(0);
    } finally {
      await Promise.all([hostA.close(), hostB.close()]);
    }
  });
});
