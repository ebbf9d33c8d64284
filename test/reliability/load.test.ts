// Load, small: 8 clients at once — v1 and v2 SDKs, over HTTP and through `trove mcp` on stdio —
// calling search, query, get and multi_get while a collection of 300 notes is indexed and a
// watched folder keeps changing. Zero errors, every client kind and tool exercised. The full run
// (32 clients for 5 minutes, p50/p99 per tool, the host's RSS over time): `npm run reliability:load`.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src-main/engine/index.js';
import { startHost } from '../../src-main/host/host.js';
import { ensureBuilt } from '../helpers/cli.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { writeNotes } from './lib/generated-corpus.js';
import { runLoad } from './lib/load.js';

afterAll(removeTempDirs);

describe('load (small)', () => {
  it('8 mixed clients get answers to every call while indexing runs and files change', { timeout: 300_000 }, async () => {
    ensureBuilt(); // the stdio clients run the built CLI
    const dir = tempDir('trove-load-');
    const stable = path.join(dir, 'stable');
    const paths = writeNotes(stable, 40).map((p) => `stable/${p}`);
    const big = path.join(dir, 'big');
    writeNotes(big, 300, 2);
    const live = path.join(dir, 'live');
    fs.mkdirSync(live);
    const engine = await Engine.open({ profileDir: path.join(dir, 'profile') });
    await engine.addCollection({ root: stable, name: 'stable' });
    await engine.index();
    await engine.addCollection({ root: live, name: 'live' });
    const host = await startHost({ engine, port: 0, token: 'load-test-full-access-token-0123456789' });
    await engine.startWatching();
    await engine.addCollection({ root: big, name: 'big' });
    const indexing = engine.index({ collection: 'big' }); // the large collection indexes under load
    let n = 0;
    const churn = setInterval(() => fs.writeFileSync(path.join(live, `file-${n++ % 20}.md`), `# Live ${n}\n\nkeeper lantern ${n}\n`), 20);
    try {
      const out = await runLoad({
        mcpUrl: host.mcpUrl,
        token: host.token,
        profileDir: engine.profileDir,
        clients: { 'v1-http': 3, 'v2-http': 3, 'v1-stdio': 1, 'v2-stdio': 1 },
        callsPerClient: 40,
        paths,
        glob: 'stable/notes-0/note-000*.md',
        queries: ['keeper wind swell', 'retries jitter herd', 'lantern harbour', 'gannets puffins cliff', 'compass glacier summit'],
      });
      expect(out.errors).toEqual([]);
      expect(out.calls).toBe(8 * 40);
      expect(Object.keys(out.perTool).sort()).toEqual(['get', 'multi_get', 'query', 'search']);
      expect(Object.keys(out.perKind).sort()).toEqual(['v1-http', 'v1-stdio', 'v2-http', 'v2-stdio']);
      await indexing;
      expect((await engine.listCollections()).find((c) => c.name === 'big')?.documents).toBe(300); // the indexing under load completed
    } finally {
      clearInterval(churn);
      await indexing.catch(() => undefined);
      await engine.stopWatching();
      await host.close();
      await engine.close();
    }
  });
});
