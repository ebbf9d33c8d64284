// Locators: every way to name a document, and every way to climb out of a collection refused.
import { describe, expect, it } from 'vitest';
import { TroveError } from '../../src-main/engine/errors.js';
import { parseLocator, safePath } from '../../src-main/engine/retrieve/locator.js';
import { closestPaths, editDistance } from '../../src-main/engine/retrieve/suggest.js';

describe('parseLocator: the accepted forms', () => {
  const table: [string, ReturnType<typeof parseLocator>][] = [
    ['notes/retry.md', { kind: 'path', path: 'notes/retry.md', line: undefined }],
    ['./notes//retry.md', { kind: 'path', path: 'notes/retry.md', line: undefined }],
    ['notes/retry.md:12', { kind: 'path', path: 'notes/retry.md', line: 12 }],
    ['work/notes/retry.md', { kind: 'path', path: 'work/notes/retry.md', line: undefined }],
    ['#a1b2c3', { kind: 'docid', docid: 'a1b2c3', line: undefined, explicit: true }],
    ['#A1B2C3:7', { kind: 'docid', docid: 'a1b2c3', line: 7, explicit: true }],
    ['a1b2c3', { kind: 'docid', docid: 'a1b2c3', line: undefined, explicit: false }],
    ['trove://work/notes/retry.md', { kind: 'path', collection: 'work', path: 'notes/retry.md', line: undefined }],
    ['trove://work/notes/my%20file.md:3', { kind: 'path', collection: 'work', path: 'notes/my file.md', line: 3 }],
    ['TROVE://my%20work/a.md', { kind: 'path', collection: 'my work', path: 'a.md', line: undefined }],
    ['notes\\win\\path.md', { kind: 'path', path: 'notes/win/path.md', line: undefined }],
    ['  spaced.md  ', { kind: 'path', path: 'spaced.md', line: undefined }],
  ];
  for (const [input, want] of table) {
    it(JSON.stringify(input), () => expect(parseLocator(input)).toEqual(want));
  }
});

describe('parseLocator: refusals', () => {
  const refused: [string, RegExp][] = [
    ['', /empty locator/],
    ['../secret.md', /may not leave/],
    ['notes/../../etc/passwd', /may not leave/],
    ['notes/..', /may not leave/],
    ['/etc/passwd', /absolute/],
    ['C:\\Windows\\win.ini', /absolute/],
    ['c:/x.md', /absolute/],
    ['~/notes.md', /absolute/],
    ['..\\..\\secret.md', /may not leave/],
    ['notes\\..\\..\\secret.md', /may not leave/],
    ['%2e%2e/secret.md', /may not leave/],
    ['%2E%2E%2Fsecret.md', /may not leave/],
    ['notes%2f..%2f..%2fsecret.md', /may not leave/],
    ['notes%5c..%5csecret.md', /may not leave/],
    ['trove://work/../secret.md', /may not leave/],
    ['trove://work/%2e%2e/%2e%2e/etc/passwd', /may not leave/],
    ['trove://work/..%2f..%2fetc%2fpasswd', /may not leave/],
    ['trove://work/%252e%252e/secret.md', /may not leave/], // double-encoded
    ['trove://work/%2Fetc%2Fpasswd', /absolute/],
    ['trove://work/%00.md', /NUL/],
    ['trove://work/%E0%A4%A', /percent-encoding/],
    ['trove://work', /not a trove:\/\/ URI/],
    ['trove:///etc/passwd', /not a trove:\/\/ URI/],
    ['file:///etc/passwd', /unsupported URI scheme/],
    ['http://example.com/a.md', /unsupported URI scheme/],
    ['notes/a\0.md', /NUL/],
    ['#xyz', /not a docid/],
    ['.', /does not name a file/],
  ];
  for (const [input, message] of refused) {
    it(JSON.stringify(input), () => {
      let err: unknown;
      try {
        parseLocator(input);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(TroveError);
      expect((err as TroveError).code).toBe('INVALID_INPUT');
      expect((err as TroveError).message).toMatch(message);
    });
  }

  it('safePath normalises separators and dots', () => {
    expect(safePath('a/./b//c.md')).toBe('a/b/c.md');
    expect(() => safePath('a/b/../../..')).toThrow(/may not leave/);
  });
});

describe('did you mean', () => {
  it('edit distance', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
  });

  it('suggests up to 3 close paths, closest first, and nothing for unrelated names', () => {
    const paths = ['notes/retry.md', 'notes/retries.md', 'notes/entry.md', 'deep/other/retry.md', 'zzz/unrelated.txt'];
    const s = closestPaths('notes/rety.md', paths);
    expect(s.length).toBeLessThanOrEqual(3);
    expect(s[0]).toBe('notes/retry.md');
    expect(closestPaths('completely-different-name.pdf', paths)).toEqual([]);
  });
});
