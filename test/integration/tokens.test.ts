// Named access tokens through the engine, on SQLite and on PostgreSQL (every host on a shared
// database honours the same rows): the secret is given once and only its hash kept; scope, tools,
// memory grant (by default write for every collection, none for a scoped token), profile and expiry
// are kept and read back; a scope follows its collections by id (a renamed one keeps its token, a
// removed one narrows the scope, never widens it); names are unique whatever their case; a secret
// verifies until it is revoked or expires, and its use is recorded; bad input names what is wrong.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src-main/engine/index.js';
import type { Storage } from '../../src-main/engine/store/storage.js';
import { describeBackends } from '../helpers/backends.js';
import { troveErrorAsync } from '../helpers/engine.js';
import { tempDir, writeTree } from '../helpers/tmp.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describeBackends('access tokens', (b) => {
  let engine: Engine;
  let rows: Storage;

  beforeAll(async () => {
    ({ engine } = await b.indexedFolder({ 'a.md': '# A\n\nNotes.\n' }, 'notes'));
    const mirror = tempDir('trove-root-');
    writeTree(mirror, { 'b.md': '# B\n\nMore notes.\n' });
    await engine.addCollection({ root: mirror, name: 'mirror' });
    rows = await b.peek(engine);
  });

  describe('creating and listing', () => {
    it('gives the secret once and keeps its hash; defaults: every collection and tool, memory write, standard, never expires', async () => {
      const { token, info } = await engine.createToken({ name: 'laptop' });
      expect(token).toMatch(/^trove_[A-Za-z0-9_-]{20,}$/);
      expect(info).toEqual({ name: 'laptop', hint: token.slice(0, info.hint.length), collections: null, tools: null, memory: 'write', profile: 'standard', createdAt: expect.stringMatching(ISO), lastUsedAt: null, expiresAt: null });
      expect(info.hint.length).toBeLessThan(token.length);
      expect((await rows.tokens.byName('laptop'))!).not.toHaveProperty('secret');
      expect(JSON.stringify(await rows.tokens.list())).not.toContain(token);
      expect((await engine.listTokens()).find((t) => t.name === 'laptop')).toEqual(info);
    });

    it('keeps a scope, tools, a memory grant, a profile and an expiry; a scoped token sees no memory unless granted', async () => {
      const scoped = await engine.createToken({ name: 'Reader', collections: ['NOTES', 'notes'], tools: ['search', 'get', 'search'] });
      expect(scoped.info).toMatchObject({ collections: ['notes'], tools: ['search', 'get'], memory: 'none', profile: 'standard', expiresAt: null });
      const granted = await engine.createToken({ name: 'researcher', collections: ['mirror'], memory: 'read', profile: 'deep-research', expiresInDays: 30 });
      expect(granted.info).toMatchObject({ collections: ['mirror'], tools: null, memory: 'read', profile: 'deep-research' });
      const days = (Date.parse(granted.info.expiresAt!) - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(29.9);
      expect(days).toBeLessThanOrEqual(30);
      expect((await engine.listTokens()).map((t) => [t.name, t.collections, t.memory])).toEqual([
        ['laptop', null, 'write'],
        ['Reader', ['notes'], 'none'],
        ['researcher', ['mirror'], 'read'],
      ]);
    });

    it('refuses a name taken in any case, an unknown collection, and bad fields, writing nothing', async () => {
      expect(await troveErrorAsync(() => engine.createToken({ name: 'reader' }))).toMatchObject({ code: 'CONFLICT', message: 'a token named "reader" already exists' });
      expect((await troveErrorAsync(() => engine.createToken({ name: 'x', collections: ['nope'] }))).code).toBe('NOT_FOUND');
      expect((await troveErrorAsync(() => engine.createToken({ name: 'y', memory: 'all' as 'read' }))).message).toBe('memory must be none, read or write (got "all")');
      expect((await troveErrorAsync(() => engine.createToken({ name: 'y', tools: [] }))).code).toBe('INVALID_INPUT');
      expect((await troveErrorAsync(() => engine.createToken({ name: 'y', expiresInDays: 0 }))).message).toBe('a token expires after 0 to 3650 days');
      expect((await engine.listTokens()).map((t) => t.name)).toEqual(['laptop', 'Reader', 'researcher']);
    });
  });

  describe('verifying', () => {
    it('a secret verifies to its token and its use is recorded; a wrong or malformed one is null', async () => {
      const { token } = await engine.createToken({ name: 'phone', collections: ['notes'] });
      const info = await engine.verifyToken(token);
      expect(info).toMatchObject({ name: 'phone', collections: ['notes'], memory: 'none' });
      expect((await engine.listTokens()).find((t) => t.name === 'phone')!.lastUsedAt).toMatch(ISO);
      expect(await engine.verifyToken(`${token.slice(0, -1)}${token.endsWith('a') ? 'b' : 'a'}`)).toBeNull();
      expect(await engine.verifyToken('not-a-token')).toBeNull();
    });

    it('an expired token is refused', async () => {
      const secret = 'trove_expiredsecret0123456789abcdefgh';
      await rows.tokens.insert({ name: 'old', secret, collectionIds: null, tools: null, memory: 'none', expiresAt: Date.now() - 1000 });
      expect((await engine.listTokens()).find((t) => t.name === 'old')!.expiresAt).toMatch(ISO);
      expect(await engine.verifyToken(secret)).toBeNull();
    });

    it('a revoked token no longer verifies; revoking an unknown name is NOT_FOUND', async () => {
      const { token } = await engine.createToken({ name: 'tablet' });
      await engine.revokeToken('tablet');
      expect(await engine.verifyToken(token)).toBeNull();
      expect((await engine.listTokens()).map((t) => t.name)).not.toContain('tablet');
      expect(await troveErrorAsync(() => engine.revokeToken('tablet'))).toMatchObject({ code: 'NOT_FOUND', message: 'no token named "tablet"' });
    });
  });

  describe('a scope follows its collections', () => {
    it('a renamed collection keeps its tokens; a removed one narrows their scope, never widens it', async () => {
      const { token } = await engine.createToken({ name: 'mirror-only', collections: ['mirror'] });
      await engine.renameCollection('mirror', 'copy');
      expect((await engine.verifyToken(token))!.collections).toEqual(['copy']);
      await engine.removeCollection('copy');
      expect((await engine.verifyToken(token))!.collections).toEqual([]); // sees nothing, not everything
      expect((await engine.listTokens()).find((t) => t.name === 'researcher')!.collections).toEqual([]);
    });
  });
});
