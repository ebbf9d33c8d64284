// get and multi_get can never reach a path outside a collection root: '..', absolute paths,
// URL-encoded separators and dots, backslashes, NUL, and symlinks pointing out are all refused.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src-main/engine/index.js';
import { describeBackends } from '../helpers/backends.js';
import { troveErrorAsync } from '../helpers/engine.js';
import { tempDir, writeTree } from '../helpers/tmp.js';

describeBackends('path traversal', (b) => {
  let engine: Engine;
  let outside: string;
  const SECRET = 'TOP-SECRET-OUTSIDE-THE-ROOT';

  beforeAll(async () => {
    const parent = tempDir();
    outside = path.join(parent, 'outside');
    const root = path.join(parent, 'root');
    writeTree(outside, { 'secret.md': SECRET, 'dir/inner.md': SECRET });
    writeTree(root, { 'inside.md': 'inside the root', 'sub/page.md': 'a page' });
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(root, 'link-out.md'));
    fs.symlinkSync(path.join(outside, 'dir'), path.join(root, 'dir-out'));
    fs.symlinkSync(path.join(root, 'inside.md'), path.join(root, 'alias.md')); // inside: allowed
    engine = await b.open();
    await engine.addCollection({ root, name: 'root' });
    const [report] = await engine.index();
    expect(report!.notices.map((n) => n.path).sort()).toEqual(['dir-out', 'link-out.md']);
    for (const n of report!.notices) expect(n.reason).toMatch(/outside the collection/);
  });

  const refusedLocators = [
    '../outside/secret.md',
    'root/../outside/secret.md',
    'sub/../../outside/secret.md',
    '..\\outside\\secret.md',
    'sub\\..\\..\\outside\\secret.md',
    '%2e%2e/outside/secret.md',
    '%2E%2E%2Foutside%2Fsecret.md',
    'sub%2f..%2f..%2foutside%2fsecret.md',
    'trove://root/../outside/secret.md',
    'trove://root/%2e%2e/outside/secret.md',
    'trove://root/..%2foutside%2fsecret.md',
    'trove://root/%252e%252e/outside/secret.md',
    'trove://root/%2Ftmp%2Fsecret.md',
    'file:///etc/passwd',
    'inside.md\0../../etc/passwd',
  ];

  describe('path traversal through get', () => {
    for (const locator of refusedLocators) {
      it(`refuses ${JSON.stringify(locator)}`, async () => {
        const err = await troveErrorAsync(() => engine.get(locator));
        expect(err.code).toBe('INVALID_INPUT');
        expect(err.message).not.toContain(SECRET);
      });
    }

    it('refuses absolute paths, even to a file inside the root', async () => {
      const abs = path.join((await engine.listCollections())[0]!.root, 'inside.md');
      expect((await troveErrorAsync(() => engine.get(abs))).code).toBe('INVALID_INPUT');
      expect((await troveErrorAsync(() => engine.get(path.join(outside, 'secret.md')))).code).toBe('INVALID_INPUT');
    });

    it('does not serve symlinks that point out of the root (they were never indexed)', async () => {
      for (const locator of ['link-out.md', 'root/link-out.md', 'dir-out/inner.md', 'trove://root/dir-out/inner.md']) {
        const err = await troveErrorAsync(() => engine.get(locator));
        expect(err.code, locator).toBe('NOT_FOUND');
      }
    });

    it('serves a symlink that stays inside the root', async () => {
      expect((await engine.get('alias.md')).text).toBe('inside the root');
    });
  });

  describe('path traversal through multi_get', () => {
    it('refuses traversal in a comma list', async () => {
      for (const locator of refusedLocators) {
        if (locator.includes(',')) continue;
        expect((await troveErrorAsync(() => engine.multiGet(`inside.md,${locator}`))).code, locator).toBe('INVALID_INPUT');
      }
    });

    it('refuses globs that climb out or are absolute', async () => {
      for (const pattern of ['../**', '../outside/*.md', 'sub/../../*', '/etc/*', '..\\*', `${outside}/*.md`]) {
        expect((await troveErrorAsync(() => engine.multiGet(pattern))).code, pattern).toBe('INVALID_INPUT');
      }
    });

    it('a glob only ever sees indexed documents of the root', async () => {
      const all = await engine.multiGet('**', { maxBytes: 1_000_000 });
      expect(all.documents.map((d) => d.path).sort()).toEqual(['alias.md', 'inside.md', 'sub/page.md']);
      for (const d of all.documents) expect(d.text).not.toContain(SECRET);
      expect((await engine.multiGet('**/*secret*')).documents).toEqual([]);
      expect((await engine.search({ query: 'TOP SECRET OUTSIDE' })).results).toEqual([]);
    });
  });
});
