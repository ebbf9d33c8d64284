// bench:contents-migration [--documents 100000] [--dir /tmp/…]: the migration of a profile written
// with the texts whole (`contents`) to compressed blocks (store/content-blocks.ts), timed on a
// profile of the scale corpus's text files (lib/scale-corpus.ts's cache; run bench:scale once to
// write it). The old schema is made from the migrations before the change; then the storage opens
// it (which migrates) and every text is compared with what was written.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { migrations } from '../src-main/engine/store/migrations.js';
import { SqliteStorage } from '../src-main/engine/store/sqlite/sqlite-storage.js';

const { values } = parseArgs({ options: { documents: { type: 'string', default: '100000' }, dir: { type: 'string' } } });
const want = Number(values.documents);
const corpus = path.join(os.homedir(), '.cache', 'trove-bench', `scale-${want}-seed29`, 'corpus');
const dir = values.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'trove-contents-migration-'));
const file = path.join(dir, 'index.sqlite');
fs.rmSync(file, { force: true });

const texts: string[] = [];
for (const e of fs.readdirSync(corpus, { withFileTypes: true, recursive: true })) {
  if (texts.length >= want) break;
  if (e.isFile() && /\.(md|txt|cpp|h|cs|ps1)$/.test(e.name)) texts.push(fs.readFileSync(path.join(e.parentPath, e.name), 'utf8'));
}
const before = migrations.findIndex((m) => m.includes('CREATE TABLE content_blocks'));
const db = new Database(file);
db.pragma('journal_mode = WAL');
for (const sql of migrations.slice(0, before)) db.exec(sql);
db.pragma(`user_version = ${before}`);
const collection = Number(db.prepare("INSERT INTO collections (name, root, include_globs, exclude_globs, created_at, updated_at) VALUES ('scale', ?, '[]', '[]', 0, 0)").run(corpus).lastInsertRowid);
const doc = db.prepare("INSERT INTO documents (collection_id, path, docid, title, kind, size, mtime_ms, indexed_at, status, tags, metadata) VALUES (?, ?, ?, '', 'text', 1, 1, 1, 'indexed', '[]', '{}')");
const put = db.prepare('INSERT INTO contents (document_id, text) VALUES (?, ?)');
db.transaction(() => texts.forEach((t, i) => put.run(Number(doc.run(collection, `f${i}`, `d${i}`).lastInsertRowid), t)))();
db.pragma('wal_checkpoint(TRUNCATE)');
db.close();
const bytesBefore = fs.statSync(file).size;
const textBytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
console.error(`old layout: ${texts.length} texts, ${(textBytes / 1e6).toFixed(1)} MB of text, file ${(bytesBefore / 1e6).toFixed(1)} MB`);

const cpu0 = process.cpuUsage();
const t0 = performance.now();
const storage = SqliteStorage.open(file); // migrates
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
let same = 0;
for (let id = 1; id <= texts.length; id++) if ((await storage.documents.content(id)) === texts[id - 1]) same++;
await storage.close();
const out = {
  documents: texts.length,
  text_bytes: textBytes,
  migrate_seconds: +seconds.toFixed(1),
  migrate_cpu_seconds: +((cpu.user + cpu.system) / 1e6).toFixed(1),
  texts_identical: same,
  file_bytes_before: bytesBefore,
  file_bytes_after: fs.statSync(file).size + (fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0),
};
console.log(JSON.stringify(out));
if (!values.dir) fs.rmSync(dir, { recursive: true, force: true });
