// One file taken out of a .tar.gz: how model files published inside npm package tarballs (the
// OCR language data, `@tesseract.js-data/<lang>`) are fetched. The tarball is downloaded like any
// model file (resumable, into a .part) and only the named member is written out; the caller
// checks that member's size and sha256 as it would a file served on its own.
import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Parser, type ReadEntry } from 'tar';
import { TroveError } from '../errors.js';

/** Writes `member` of the .tar.gz at `archive` to `out`; IO error when the archive is damaged or lacks it. */
export async function extractTarGzMember(archive: string, member: string, out: string): Promise<void> {
  let found = false;
  let writing: Promise<void> = Promise.resolve();
  const parser = new Parser({
    strict: true,
    filter: (p) => p === member,
    onReadEntry: (entry: ReadEntry) => {
      if (entry.type !== 'File' && entry.type !== 'OldFile') return entry.resume();
      found = true;
      writing = pipeline(entry, fs.createWriteStream(out));
    },
  });
  try {
    await pipeline(fs.createReadStream(archive), parser);
    await writing;
  } catch (err) {
    fs.rmSync(out, { force: true });
    throw new TroveError('IO', `cannot read ${member} from the archive ${archive}: ${(err as Error).message}`);
  }
  if (!found) throw new TroveError('IO', `the archive ${archive} has no ${member}`);
}
