// Checks on what a person gives when adding a collection or naming a token: names, globs and
// the folder itself, each failing with an error that says what to change.
import fs from 'node:fs';
import { invalidInput, TroveError } from './errors.js';
import { errorCode } from './ingest/scan.js';

const NAME = /^[\p{L}\p{N}][\p{L}\p{N}._-]{0,63}$/u;

export function validateName(name: string, what = 'collection'): void {
  if (!NAME.test(name)) {
    throw invalidInput(
      `"${name}" is not a valid ${what} name: use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit`,
    );
  }
}

export function validateGlobs(globs: string[], what: string): string[] {
  for (const g of globs) {
    if (typeof g !== 'string' || !g.trim()) throw invalidInput(`${what} globs must be non-empty strings`);
    if (g.split('/').includes('..') || g.startsWith('/')) throw invalidInput(`${what} glob "${g}" must be relative to the collection root`);
  }
  return globs.map((g) => g.trim());
}

export function assertFolder(root: string): void {
  let st: fs.Stats;
  try {
    st = fs.statSync(root);
  } catch (err) {
    throw new TroveError('IO', `folder ${root} does not exist or cannot be read (${errorCode(err)})`);
  }
  if (!st.isDirectory()) throw new TroveError('IO', `${root} is a file, not a folder`);
  try {
    fs.readdirSync(root);
  } catch (err) {
    throw new TroveError('IO', `folder ${root} cannot be read (${errorCode(err)})`);
  }
}
