// bench:watch-cost [--files 500] [--writes 100]: what one live folder's change costs the watcher.
// One file is rewritten every 20 ms beside `files` notes in its folder; prints the changes heard and
// the process's CPU ms over the writes. Run it under `strace -f -c -e trace=statx,getdents64` to
// count the file-system calls an event costs (the figure that grows with the folder).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_EXCLUDE, DEFAULT_INCLUDE } from '../src-main/engine/ingest/defaults.js';
import { PathFilter } from '../src-main/engine/ingest/path-filter.js';
import { FolderWatcher } from '../src-main/engine/indexing/folder-watcher.js';
import { DEFAULT_LIVE } from '../src-main/engine/indexing/live-folders.js';

const { values } = parseArgs({ options: { files: { type: 'string', default: '500' }, writes: { type: 'string', default: '100' } } });
const files = Number(values.files);
const writes = Number(values.writes);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-bench-watch-'));
fs.mkdirSync(path.join(root, 'notes'));
for (let i = 0; i < files; i++) fs.writeFileSync(path.join(root, 'notes', `n${i}.md`), `note ${i}`);
let heard = 0;
/** When the last write began: its change, handed over, ends the run. */
let lastWriteAt = Infinity;
let flushed!: () => void;
const done = new Promise<void>((resolve) => (flushed = resolve));
const watcher = new FolderWatcher(new PathFilter(root, DEFAULT_INCLUDE, DEFAULT_EXCLUDE), {
  changes: (batch) => {
    heard += batch.length;
    if (batch.some((c) => c.path === 'notes/live.md' && c.at >= lastWriteAt)) flushed();
  },
  rescan: () => {},
  error: (message) => console.error(message),
}, { ...DEFAULT_LIVE });
await watcher.start();
const cpu0 = process.cpuUsage();
for (let i = 0; i < writes; i++) {
  if (i === writes - 1) lastWriteAt = Date.now();
  fs.writeFileSync(path.join(root, 'notes', 'live.md'), `live ${i}`);
  await new Promise((r) => setTimeout(r, 20));
}
await done;
const cpu = process.cpuUsage(cpu0);
await watcher.close();
fs.rmSync(root, { recursive: true });
console.log(JSON.stringify({ bench: 'watch-cost', files, writes, changesHeard: heard, cpuMs: Math.round((cpu.user + cpu.system) / 1000) }));
