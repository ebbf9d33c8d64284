// The hostile corpus, small: a good corpus beside every row of the bad-file table (binary files
// with text names, empty and 3 GB sparse files, invalid UTF-8, NUL bytes, a long single line, deep
// nesting, symlink loops and escapes, a FIFO, secrets, unreadable files and folders, odd names,
// corrupt/encrypted PDFs and a zip bomb) while files change and vanish. Indexing finishes, every
// bad file is reported with a reason, indexed safely or left alone as its row says, every good
// file is searchable, and the churned files end as they are on disk. The full run:
// `npm run reliability:hostile` (hundreds of bad files, an 8 GB sparse file, a 50 MB line).
import { afterAll, describe, expect, it } from 'vitest';
import { runHostileCorpus } from './lib/hostile-run.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

afterAll(removeTempDirs);

describe('hostile corpus (small)', () => {
  it('indexes without crashing; every row as its table says; every good file searchable', async () => {
    const out = await runHostileCorpus({ dir: tempDir('trove-hostile-'), scale: 'small', goodFiles: 60 });
    expect(out.rows.filter((r) => r.problems.length)).toEqual([]);
    expect(out.goodMissing).toEqual([]);
    expect(out.churn).toEqual([]);
    expect(out.badFiles).toBeGreaterThan(50);
    expect(out.rows.every((r) => r.files > 0)).toBe(true);
  });
});
