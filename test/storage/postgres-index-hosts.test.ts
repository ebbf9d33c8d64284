// Two Trove hosts indexing one folder into one PostgreSQL at once: two real `trove index
// --database` processes started together on a folder of a few hundred files share the work through
// the job queue's claims, and every document is indexed exactly once — each file added by one host
// only, no document or chunk twice, every chunk with its keyword rows once, nothing lost — and the
// index equals the folder indexed by one host.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, type IndexReport } from '../../src-main/engine/index.js';
import { ensureBuilt, oneJson, runTrove } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';

const FILES = 300;

function folder(): string {
  const root = tempDir('trove-hosts-root-');
  const files: Record<string, string> = {};
  for (let i = 0; i < FILES; i++) {
    const topic = ['retries', 'caching', 'parsing', 'scheduling', 'logging'][i % 5]!;
    files[`part-${i % 7}/note-${i}.md`] = `# Note ${i} on ${topic}\n\n${`Paragraph ${i} about ${topic} and item${i}. `.repeat(1 + (i % 40))}\n\n## More\n\nDetails ${i}.\n`;
  }
  writeTree(root, files);
  return root;
}

let url: string;
let client: pg.Client;
let indexer: Engine;

beforeAll(async () => {
  ensureBuilt();
  url = await freshDatabase('hosts');
  client = new pg.Client({ connectionString: url });
  await client.connect();
  indexer = await Engine.open({ profileDir: tempDir('trove-hosts-profile-'), database: url });
});

afterAll(async () => {
  await indexer?.close();
  await client?.end();
  removeTempDirs();
});

async function counts(collection: string) {
  const q = async (sql: string) => (await client.query<{ n: number }>(sql, [collection])).rows[0]!.n;
  const inCollection = 'JOIN documents d ON d.id = c.document_id JOIN collections k ON k.id = d.collection_id WHERE k.name = $1';
  return {
    documents: await q('SELECT count(*)::int AS n FROM documents d JOIN collections k ON k.id = d.collection_id WHERE k.name = $1'),
    distinctPaths: await q('SELECT count(DISTINCT d.path)::int AS n FROM documents d JOIN collections k ON k.id = d.collection_id WHERE k.name = $1'),
    chunks: await q(`SELECT count(*)::int AS n FROM chunks c ${inCollection}`),
    distinctOrdinals: await q(`SELECT count(DISTINCT (c.document_id, c.ordinal))::int AS n FROM chunks c ${inCollection}`),
    keywordRows: await q(`SELECT count(*)::int AS n FROM chunks_fts f JOIN chunks c ON c.id = f.chunk_id ${inCollection}`),
    jobs: await q('SELECT count(*)::int AS n FROM jobs j JOIN collections k ON k.id = j.collection_id WHERE k.name = $1'),
  };
}

describe('several hosts indexing one folder into PostgreSQL', () => {
  it('two `trove index --database` processes started together index every file exactly once', async () => {
    const root = folder();
    await indexer.addCollection({ root, name: 'shared' });
    const run = () => runTrove(['index', '--collection', 'shared', '--json', '--database', url], { home: tempDir('trove-host-') });
    const results = await Promise.all([run(), run()]);
    const reports = results.map((r) => {
      expect(r.code, r.stderr).toBe(0);
      return oneJson<{ reports: IndexReport[] }>(r).reports[0]!;
    });
    // each file was added by exactly one of the hosts; neither failed anything
    expect(reports.reduce((n, r) => n + r.added, 0)).toBe(FILES);
    expect(reports.flatMap((r) => [...r.failed, ...r.skipped])).toEqual([]);
    const together = await counts('shared');
    expect(together).toMatchObject({ documents: FILES, distinctPaths: FILES, jobs: 0 });
    expect(together.distinctOrdinals).toBe(together.chunks);
    expect(together.keywordRows).toBe(together.chunks);
    expect(reports.reduce((n, r) => n + r.chunks, 0)).toBe(together.chunks);

    // the same folder indexed by one host gives the same index
    await indexer.addCollection({ root, name: 'single' });
    const [alone] = await indexer.index({ collection: 'single' });
    expect(alone).toMatchObject({ added: FILES, scanned: FILES });
    expect(await counts('single')).toEqual(together);
    const chunksOf = async (name: string) =>
      (
        await client.query<{ path: string; n: number }>(
          'SELECT d.path, count(c.id)::int AS n FROM documents d JOIN collections k ON k.id = d.collection_id LEFT JOIN chunks c ON c.document_id = d.id WHERE k.name = $1 GROUP BY d.path ORDER BY d.path',
          [name],
        )
      ).rows;
    expect(await chunksOf('shared')).toEqual(await chunksOf('single'));
  });
});
