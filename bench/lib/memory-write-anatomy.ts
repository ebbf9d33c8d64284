// Where a memory batch write's time goes, piece by piece (bench:memory-engine --anatomy). The
// engine's own stores write the bench:memory workload in batches of 100, each batch one
// transaction in the order the SQLite memory repository writes it (store/sqlite/memory.ts) (documents row, contents, chunk, entry,
// tags per entry; then the FTS rows; then the commit), timing each piece. Variants, each on a fresh
// database and run alternately, take one piece away to show its whole cost (its rows, index
// entries and pages at commit): the checkpoint (wal_autocheckpoint 0), the FTS rows, the tags, and
// the documents + chunks rows a leaner layout would not write (foreign keys off; the text still
// goes to contents, standing in for a text column on memory_entries). CPU per entry is the minimum
// over the rounds: on a shared machine it moves least. WAL pages per batch: what a commit writes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_CHUNKING } from '../../src-main/engine/ingest/chunker.js';
import { entryChunks, titleOf } from '../../src-main/engine/memory/entry-text.js';
import { EntryStore } from '../../src-main/engine/store/sqlite/memory-entries.js';
import { ChunkStore, type FtsRow } from '../../src-main/engine/store/chunks.js';
import { CollectionStore } from '../../src-main/engine/store/collections.js';
import { openDatabase } from '../../src-main/engine/store/database.js';
import { DocumentStore } from '../../src-main/engine/store/documents.js';

export interface AnatomyEntry {
  threadId: string;
  source: string;
  text: string;
  tags: string[];
  metadata: Record<string, unknown>;
}

type Piece = 'documents' | 'contents' | 'chunks' | 'entries' | 'tags' | 'fts' | 'commit';
const PIECES: Piece[] = ['documents', 'contents', 'chunks', 'entries', 'tags', 'fts', 'commit'];

const VARIANTS = {
  'as written': {},
  'no checkpoint': { noCheckpoint: true },
  'no FTS rows': { skip: ['fts'] },
  'no tags': { skip: ['tags'] },
  'lean (no documents, chunks rows)': { skip: ['documents', 'chunks'] },
} as const satisfies Record<string, { noCheckpoint?: boolean; skip?: readonly Piece[] }>;

export interface AnatomyRow {
  variant: string;
  cpu_us_per_entry: number;
  wall_us_per_entry: number;
  /** Pages each commit appends to the WAL (measured where nothing checkpoints it away). */
  wal_pages_per_batch: number | null;
  us: Record<Piece, number>;
}

function once(entries: readonly AnatomyEntry[], opts: { noCheckpoint?: boolean; skip?: readonly Piece[] }): AnatomyRow {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-anatomy-'));
  const db = openDatabase(path.join(dir, 'trove.db'));
  try {
    const skip = new Set<Piece>(opts.skip ?? []);
    if (skip.has('documents')) db.pragma('foreign_keys = OFF');
    if (opts.noCheckpoint) db.pragma('wal_autocheckpoint = 0'); // the WAL only grows: its length / batches = pages a commit writes
    const documents = new DocumentStore(db);
    const chunks = new ChunkStore(db).forIndex('memory_fts');
    const store = new EntryStore(db);
    const collectionId = new CollectionStore(db).insert({ name: '~memory', kind: 'memory', root: '', include: [], exclude: [], context: '' }).id;
    const us = Object.fromEntries(PIECES.map((p) => [p, 0])) as Record<Piece, number>;
    const begin = db.prepare('BEGIN');
    const commit = db.prepare('COMMIT');
    let id = 1;
    const walFile = path.join(dir, 'trove.db-wal');
    const walStart = fs.statSync(walFile).size; // the schema's pages
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    for (let b = 0; b < entries.length; b += 100) {
      begin.run();
      const fts: FtsRow[] = [];
      const now = Date.now();
      for (const e of entries.slice(b, b + 100)) {
        let t = performance.now();
        const lap = (p: Piece) => {
          const n = performance.now();
          us[p] += n - t;
          t = n;
        };
        const title = titleOf(e.metadata);
        const documentId = skip.has('documents')
          ? id
          : documents.insertNew({ collectionId, path: String(id), docid: `m${id}`, title, kind: 'memory', size: Buffer.byteLength(e.text), mtimeMs: now, tags: JSON.stringify(e.tags), metadata: JSON.stringify(e.metadata) });
        lap('documents');
        documents.putContent(documentId, e.text, { whole: true, isNew: true });
        lap('contents');
        const written = entryChunks(e.text, title, DEFAULT_CHUNKING);
        if (skip.has('chunks')) written.forEach((c, i) => fts.push({ id: id * 64 + i, title: c.ftsTitle, headings: c.ftsHeadings, body: c.ftsBody }));
        else fts.push(...chunks.replaceFor(documentId, written, true));
        lap('chunks');
        store.insert({ id, documentId, threadId: e.threadId, source: e.source, contentType: 'text', createdAt: now, updatedAt: now });
        lap('entries');
        if (!skip.has('tags') && e.tags.length) store.setTags(id, e.tags, false);
        lap('tags');
        id++;
      }
      let t = performance.now();
      if (!skip.has('fts')) chunks.indexText(fts);
      us.fts += performance.now() - t;
      t = performance.now();
      commit.run();
      us.commit += performance.now() - t;
    }
    const wall = performance.now() - t0;
    const used = process.cpuUsage(cpu);
    const n = entries.length;
    const walBytes = fs.statSync(walFile).size - walStart; // frames: a 24-byte header and a page each
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    return {
      variant: '',
      cpu_us_per_entry: +((used.user + used.system) / n).toFixed(1),
      wall_us_per_entry: +((wall * 1000) / n).toFixed(1),
      wal_pages_per_batch: opts.noCheckpoint ? +(walBytes / (pageSize + 24) / Math.ceil(n / 100)).toFixed(1) : null,
      us: Object.fromEntries(PIECES.map((p) => [p, +((us[p] * 1000) / n).toFixed(1)])) as Record<Piece, number>,
    };
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Every variant `rounds` times, alternately; each variant's round with the least CPU. */
export function writeAnatomy(entries: readonly AnatomyEntry[], rounds: number): AnatomyRow[] {
  const best = new Map<string, AnatomyRow>();
  for (let r = 0; r < rounds; r++) {
    for (const [variant, opts] of Object.entries(VARIANTS)) {
      const row = { ...once(entries, opts), variant };
      const prev = best.get(variant);
      if (!prev || row.cpu_us_per_entry < prev.cpu_us_per_entry) best.set(variant, row);
    }
  }
  return [...best.values()];
}
