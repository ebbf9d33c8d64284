// What gets indexed by default: text/docs/code in, tooling folders and build output pruned,
// .gitignore (nested too) respected, secrets never indexed; include/exclude globs.
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src-main/engine/index.js';
import { describeBackends } from '../helpers/backends.js';
import { tempDir, writeTree } from '../helpers/tmp.js';

describeBackends('scan rules', (b) => {
  const paths = async (engine: Engine, collection = 'notes') =>
    (await engine.multiGet(`${collection}/**`, { maxBytes: 1_000_000 })).documents.map((d) => d.path).sort();

  describe('default include/exclude', () => {
    it('indexes text, docs and code; prunes node_modules, .git, dist and other tooling folders', async () => {
      const { engine } = await b.indexedFolder({
        'README': 'readme without extension',
        'guide.md': '# Guide',
        'notes.txt': 'plain text',
        'page.html': '<p>page</p>',
        'src/app.ts': 'export const app = 1;',
        'src/util.py': 'def util(): pass',
        'config.yaml': 'key: value',
        'image.png': Buffer.from([0x89, 0x50, 0x4e, 0x47]),
        'archive.zip': Buffer.from([0x50, 0x4b, 3, 4]),
        'app.min.js': 'minified()',
        'package-lock.json': '{}',
        'node_modules/lib/index.js': 'module.exports = 1;',
        'node_modules/lib/README.md': '# lib',
        '.git/config': '[core]',
        '.git/HEAD.md': 'ref',
        'dist/bundle.js': 'bundle',
        'sub/dist/out.md': 'nested dist output',
        '__pycache__/x.py': 'cached',
        '.venv/lib.py': 'venv',
        'coverage/report.html': '<p>coverage</p>',
      });
      expect(await paths(engine)).toEqual(['README', 'config.yaml', 'guide.md', 'notes.txt', 'page.html', 'src/app.ts', 'src/util.py']);
    });

    it('never indexes secrets, whatever the include globs say', async () => {
      const secrets = {
        '.env': 'API_KEY=abc',
        '.env.local': 'API_KEY=abc',
        'prod.env': 'API_KEY=abc',
        'server.pem': '-----BEGIN PRIVATE KEY-----',
        'tls.key': 'key',
        'id_rsa': 'ssh key',
        'id_rsa.pub': 'ssh-rsa AAAA',
        'id_ed25519': 'ssh key',
        '.ssh/config': 'Host x',
        'credentials': 'aws creds',
        'credentials.json': '{"secret": 1}',
        'gcp-credentials.json': '{"secret": 1}',
        '.aws/credentials': 'creds',
        'token': 'tok',
        'token.txt': 'tok',
        'github.token': 'tok',
        'access_token.json': '{}',
        'secrets.yaml': 'a: b',
        '.npmrc': '//registry:_authToken=x',
        '.netrc': 'machine x',
        '.git-credentials': 'https://u:p@host',
      };
      const root = tempDir();
      writeTree(root, { ...secrets, 'ok.md': 'fine', 'tokenizer.md': 'a tokenizer is not a token file' });
      const engine = await b.open();
      await engine.addCollection({ root, name: 'notes', include: ['**/*', '**/.*', '**/.*/**'] });
      const [report] = await engine.index();
      expect(await paths(engine)).toEqual(['ok.md', 'tokenizer.md']);
      expect(report!.scanned).toBe(2);
      // not even a row saying they were skipped: their names are not recorded
      expect((await engine.status()).collections[0]!.problems).toEqual([]);
      expect((await engine.search({ query: 'API_KEY abc', syntax: 'match' })).results).toEqual([]);
    });

    it('respects .gitignore files, nested ones relative to their folder, and negations', async () => {
      const { engine } = await b.indexedFolder({
        '.gitignore': '*.log\nbuild/\n/private.md\n!keep.log\n',
        'app.log': 'ignored log',
        'keep.log': 'kept by negation',
        'private.md': 'root-anchored ignore',
        'docs/private.md': 'not anchored at docs: indexed',
        'build/out.md': 'ignored folder',
        'docs/.gitignore': 'drafts/\nsecret-*.md\n',
        'docs/drafts/wip.md': 'ignored by nested',
        'docs/secret-plan.md': 'ignored by nested',
        'docs/public.md': 'public',
        'other/secret-plan.md': 'nested rule does not apply here',
      });
      expect(await paths(engine)).toEqual(['docs/private.md', 'docs/public.md', 'keep.log', 'other/secret-plan.md']);
    });

    it('include replaces the defaults and exclude adds to them', async () => {
      const root = tempDir();
      writeTree(root, { 'a.md': 'a', 'b.txt': 'b', 'c.rst': 'c', 'drafts/d.md': 'd', 'x.min.js': 'x', 'keep.js': 'k', 'node_modules/m.md': 'm' });
      const engine = await b.open();
      await engine.addCollection({ root, name: 'notes', include: ['**/*.md', '**/*.js'], exclude: ['drafts/**'] });
      await engine.index();
      expect(await paths(engine)).toEqual(['a.md', 'keep.js']);
    });
  });
});
