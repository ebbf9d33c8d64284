// `trove migrate --to postgresql://…`: copies a profile's SQLite index into a PostgreSQL database,
// table by table in the order their keys need, in batches that each commit with a progress row
// (migrate_progress), so an interrupted run continues where it stopped. Ids are kept (docids,
// chunk ids and vectors stay linked) and identity sequences are moved past them; embeddings are
// copied, never recomputed; keyword rows are made again from the stored text (FTS5 keeps none:
// the caller's `rebuildKeywordRows`, ingest/keyword-rebuild.ts). At the end every table's rows are counted on both sides, and keyword rows
// and vectors per index and space; any difference fails the migration and says where. The SQLite
// file is only read (in one read transaction: a consistent snapshot even while a host writes).
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import * as sqliteVec from 'sqlite-vec';
import pgvector from 'pgvector';
import { TroveError } from '../../errors.js';
import type { CollectionKind } from '../collections.js';
import { registerBlockFunctions, wholeTextSql } from '../content-blocks.js';
import { keywordIndexOf, KEYWORD_INDEXES } from '../keyword-index.js';
import { databasePath } from '../../profile.js';
import { PostgresDatabase, redactPostgresUrl, validatePostgresUrl } from '../postgres/connection.js';
import { PostgresKeywordIndex } from '../postgres/keyword-index.js';
import { createSpaceIndex, createSpaceTable, table as spaceTable } from '../postgres/vectors.js';
import type { FtsRow } from '../chunks.js';

export interface MigrationProgress {
  table: string;
  copied: number;
  total: number;
}

export interface MigrationCount {
  what: string;
  sqlite: number;
  postgres: number;
}

export interface MigrationReport {
  target: string;
  /** Rows copied by this run (a resumed run copies only what was left). */
  copied: Record<string, number>;
  counts: MigrationCount[];
  /** Documents whose keyword rows were made from the stored title, headings and text rather than the indexer's own preparation. */
  approximateKeywordDocuments: number;
  /**
   * The copy had finished in an earlier run: nothing was copied, and the counts are only shown —
   * hosts may have used the database since, and the profile may have changed (copying its new rows
   * into a database in use could clash with the ids hosts gave theirs).
   */
  finishedEarlier: boolean;
}

interface Column {
  name: string;
  /** SQLite value → PostgreSQL value */
  map?: (v: unknown) => unknown;
}

interface TableCopy {
  name: string;
  /** A column holding a unique, increasing key in SQLite (rowid for tables keyed otherwise). */
  key: string;
  columns: Column[];
  batch: number;
  /** The key is not unique (a table keyed by two columns): a batch takes every row of its next `batch` keys. */
  grouped?: boolean;
  /** Where SQLite has the rows when they are not a table of that name (a subquery in parentheses). */
  from?: string;
}

/** A document's whole text from its compressed blocks (trove_inflate is registered on the source). */
const WHOLE_TEXT = wholeTextSql;
const HAS_TEXT = (doc: string) => `EXISTS (SELECT 1 FROM content_blocks b WHERE b.document_id = ${doc})`;

const bool = (v: unknown) => v === 1 || v === true;
const json = (v: unknown) => (v === null || v === undefined ? null : String(v));

/** Plain tables, in the order foreign keys need. */
const TABLES: TableCopy[] = [
  { name: 'collections', key: 'id', batch: 1000, columns: [...cols('id name kind root include_globs exclude_globs context created_at updated_at last_indexed_at'), { name: 'redact_secrets', map: (v) => (v === null || v === undefined ? null : bool(v)) }, { name: 'ocr_languages', map: json }] },
  {
    name: 'documents', key: 'id', batch: 1000,
    columns: cols('id collection_id path docid title kind size mtime_ms hash indexed_at status error warning tags metadata parent_id'),
  },
  // PostgreSQL keeps the text whole (TOAST compresses it); SQLite's blocks are joined back
  { name: 'contents', key: 'document_id', batch: 200, columns: cols('document_id text'), from: `(SELECT d.id AS document_id, ${WHOLE_TEXT('d.id')} AS text FROM documents d WHERE ${HAS_TEXT('d.id')})` },
  { name: 'chunks', key: 'id', batch: 2000, columns: cols('id document_id ordinal char_start char_end line_start line_end heading_path page tokens text_hash') },
  {
    name: 'ocr_documents', key: 'document_id', batch: 1000,
    columns: cols('document_id collection_id hash source pages pages_total pages_done pages_failed pages_left failed languages attempts next_at last_error claimed_until queued_at'),
  },
  { name: 'jobs', key: 'id', batch: 2000, columns: [...cols('id collection_id kind path priority changed_at'), { name: 'gone', map: bool }, ...cols('version attempts next_run_at last_error created_at')] },
  { name: 'job_pauses', key: 'collection_id', batch: 1000, columns: cols('collection_id') },
  { name: 'access_tokens', key: 'id', batch: 1000, columns: [...cols('id name hash hint'), { name: 'scoped', map: bool }, { name: 'tools', map: json }, ...cols('memory profile created_at last_used_at expires_at')] },
  { name: 'access_token_collections', key: 'rowid', batch: 1000, columns: cols('token_id collection_id') },
  { name: 'vector_spaces', key: 'id', batch: 100, columns: cols('id model_id weights_sha256 dims created_at') },
  { name: 'collection_vectors', key: 'collection_id', batch: 1000, columns: cols('collection_id model_choice active_space_id building_space_id') },
  { name: 'dataset_folders', key: 'rowid', batch: 1000, columns: cols('path added_at') },
  { name: 'dataset_checks', key: 'rowid', batch: 1000, columns: cols('key best_cosine checked_at') },
  { name: 'memory_entries', key: 'id', batch: 1000, columns: cols('id document_id thread_id source content_type created_at updated_at') },
  { name: 'memory_tags', key: 'entry_id', grouped: true, batch: 1000, columns: cols('entry_id tag') },
  { name: 'memory_images', key: 'id', batch: 50, columns: cols('id entry_id position mime_type bytes data') },
  { name: 'memory_search_metrics', key: 'id', batch: 2000, columns: cols('id query_type query_text result_count execution_time_ms created_at') },
];

const IDENTITY_TABLES = ['collections', 'documents', 'chunks', 'jobs', 'access_tokens', 'vector_spaces', 'memory_entries', 'memory_images', 'memory_search_metrics'];

function cols(names: string): Column[] {
  return names.split(' ').map((name) => ({ name }));
}

/** A chunk as SQLite stores it (its keyword rows are made again from these and the document's text). */
export interface StoredChunk {
  id: number;
  ordinal: number;
  charStart: number;
  charEnd: number;
  headingPath: string[];
}

/** A document's keyword rows made again; `exact` when they are the rows indexing would write. */
export type KeywordRebuild = (doc: { path: string; title: string; kind: string }, text: string, chunks: readonly StoredChunk[]) => { rows: FtsRow[]; exact: boolean };

export interface MigrateProfileOptions {
  profileDir: string;
  url: string;
  onProgress?: (p: MigrationProgress) => void;
}

/** A profile's index (its index.sqlite) into the database at `url`. */
export function migrateProfile(opts: MigrateProfileOptions, rebuildKeywordRows: KeywordRebuild): Promise<MigrationReport> {
  return migrateToPostgres({ sqliteFile: databasePath(path.resolve(opts.profileDir)), url: opts.url, onProgress: opts.onProgress, rebuildKeywordRows });
}

export async function migrateToPostgres(opts: {
  sqliteFile: string;
  url: string;
  onProgress?: (p: MigrationProgress) => void;
  rebuildKeywordRows: KeywordRebuild;
}): Promise<MigrationReport> {
  validatePostgresUrl(opts.url, 'the target');
  if (!fs.existsSync(opts.sqliteFile)) throw new TroveError('NOT_FOUND', `there is no index to migrate at ${opts.sqliteFile}`);
  const source = new Database(opts.sqliteFile, { readonly: true, fileMustExist: true });
  sqliteVec.load(source);
  registerBlockFunctions(source);
  const target = await PostgresDatabase.open(opts.url);
  try {
    await claimTarget(target, opts.sqliteFile);
    source.exec('BEGIN'); // one snapshot for the whole copy
    if (await finishedEarlier(target, opts.sqliteFile)) {
      return { target: redactPostgresUrl(opts.url), copied: {}, counts: await compareCounts(source, target), approximateKeywordDocuments: 0, finishedEarlier: true };
    }
    const copied: Record<string, number> = {};
    for (const t of TABLES) {
      copied[t.name] = await copyTable(source, target, t, opts.onProgress);
      if (t.name === 'chunks') {
        const k = await copyKeywordRows(source, target, opts.rebuildKeywordRows, opts.onProgress);
        copied.keyword = k.rows;
        copied.approximate = k.approximate;
      }
      if (t.name === 'vector_spaces') await createSpaceTables(source, target);
    }
    copied.vectors = await copyVectors(source, target, opts.onProgress);
    await moveSequences(target);
    const counts = await compareCounts(source, target);
    const off = counts.filter((c) => c.sqlite !== c.postgres);
    if (off.length) {
      throw new TroveError('INTERNAL', `the copy differs from the profile: ${off.map((c) => `${c.what} ${c.sqlite} in SQLite, ${c.postgres} in PostgreSQL`).join('; ')}`);
    }
    await target.query(`UPDATE migrate_progress SET done = true WHERE source = $1`, [opts.sqliteFile]);
    // a bulk load leaves the visibility map unset and the statistics empty: keyword ranking's
    // index-only scans would fetch every posting from the table until autovacuum came round
    await target.query('VACUUM (ANALYZE)');
    return { target: redactPostgresUrl(opts.url), copied, counts, approximateKeywordDocuments: copied.approximate ?? 0, finishedEarlier: false };
  } finally {
    if (source.inTransaction) source.exec('ROLLBACK');
    source.close();
    await target.close();
  }
}

/** The target is empty, or holds an earlier run of this same migration (which is then resumed). */
async function claimTarget(db: PostgresDatabase, sqliteFile: string): Promise<void> {
  await db.query(`CREATE TABLE IF NOT EXISTS migrate_progress (
    source text NOT NULL, table_name text NOT NULL, last_key bigint NOT NULL, done boolean NOT NULL DEFAULT false,
    PRIMARY KEY (source, table_name))`);
  const sources = await db.query<{ source: string }>('SELECT DISTINCT source FROM migrate_progress');
  const other = sources.find((s) => s.source !== sqliteFile);
  if (other) throw new TroveError('CONFLICT', `the database already holds a migration of another profile (${other.source}); use an empty database`);
  if (!sources.length) {
    const has = await db.one<{ n: number }>('SELECT (SELECT count(*) FROM collections) + (SELECT count(*) FROM access_tokens) AS n');
    if (has && has.n > 0) throw new TroveError('CONFLICT', 'the database already holds an index; migrate into an empty database');
  }
}

/** An earlier run of this migration got to the end (every table marked done with the counts checked). */
async function finishedEarlier(db: PostgresDatabase, sqliteFile: string): Promise<boolean> {
  const r = await db.one<{ n: number; open: number }>('SELECT count(*)::int AS n, count(*) FILTER (WHERE NOT done)::int AS open FROM migrate_progress WHERE source = $1', [sqliteFile]);
  return !!r && r.n > 0 && r.open === 0;
}

/** Where an earlier run of this migration stopped in a table (-Infinity: nothing copied yet). */
async function lastKey(db: PostgresDatabase, source: string, table: string): Promise<number> {
  const r = await db.one<{ last_key: number }>('SELECT last_key FROM migrate_progress WHERE source = $1 AND table_name = $2', [source, table]);
  return r?.last_key ?? -Infinity;
}

/** The profile file: what migrate_progress rows belong to. */
function sourceName(db: Database.Database): string {
  return db.name;
}

async function copyTable(source: Database.Database, target: PostgresDatabase, t: TableCopy, onProgress?: (p: MigrationProgress) => void): Promise<number> {
  const src = sourceName(source);
  const from = t.from ?? t.name;
  const total = (source.prepare(`SELECT count(*) AS n FROM ${from}`).get() as { n: number }).n;
  const names = t.columns.map((c) => c.name);
  const page = source.prepare(
    t.grouped
      ? `SELECT ${t.key} AS _key, ${names.join(', ')} FROM ${from} WHERE ${t.key} IN (SELECT DISTINCT ${t.key} FROM ${from} WHERE ${t.key} > ? ORDER BY ${t.key} LIMIT ?) ORDER BY ${t.key}`
      : `SELECT ${t.key} AS _key, ${names.join(', ')} FROM ${from} WHERE ${t.key} > ? ORDER BY ${t.key} LIMIT ?`,
  );
  let after = await lastKey(target, src, t.name);
  let copied = 0;
  let done = (source.prepare(`SELECT count(*) AS n FROM ${from} WHERE ${t.key} <= ?`).get(after === -Infinity ? -1 : after) as { n: number }).n;
  for (;;) {
    const rows = page.all(after === -Infinity ? -1 : after, t.batch) as Record<string, unknown>[];
    if (!rows.length) break;
    const params: unknown[] = [];
    const values = rows.map((r) => `(${t.columns.map((c) => (params.push(c.map ? c.map(r[c.name]) : r[c.name]), `$${params.length}`)).join(', ')})`);
    after = Number(rows.at(-1)!._key);
    await target.transaction(async (client) => {
      await client.query(`INSERT INTO ${t.name} (${names.join(', ')}) VALUES ${values.join(', ')} ON CONFLICT DO NOTHING`, params);
      await saveProgress(client, src, t.name, after);
    });
    copied += rows.length;
    done += rows.length;
    onProgress?.({ table: t.name, copied: done, total });
  }
  return copied;
}

async function saveProgress(client: pg.PoolClient, source: string, table: string, key: number): Promise<void> {
  await client.query(
    `INSERT INTO migrate_progress (source, table_name, last_key) VALUES ($1, $2, $3) ON CONFLICT (source, table_name) DO UPDATE SET last_key = excluded.last_key`,
    [source, table, key],
  );
}

/** Keyword rows of every chunk, document by document, into its collection kind's index. */
async function copyKeywordRows(source: Database.Database, target: PostgresDatabase, rebuild: KeywordRebuild, onProgress?: (p: MigrationProgress) => void): Promise<{ rows: number; approximate: number }> {
  const src = sourceName(source);
  const indexes = new Map(KEYWORD_INDEXES.map((i) => [i, new PostgresKeywordIndex(target, i)]));
  const total = (source.prepare('SELECT count(*) AS n FROM documents').get() as { n: number }).n;
  const docs = source.prepare(
    `SELECT d.id, d.path, d.title, d.kind, c.kind AS collection_kind, ${WHOLE_TEXT('d.id')} AS text FROM documents d JOIN collections c ON c.id = d.collection_id
       WHERE d.id > ? ORDER BY d.id LIMIT 200`,
  );
  const chunksOf = source.prepare('SELECT id, ordinal, char_start, char_end, heading_path FROM chunks WHERE document_id = ? ORDER BY ordinal');
  let after = await lastKey(target, src, 'keyword');
  let done = (source.prepare('SELECT count(*) AS n FROM documents WHERE id <= ?').get(after === -Infinity ? -1 : after) as { n: number }).n;
  let rowsWritten = 0;
  let approximate = 0;
  for (;;) {
    const batch = docs.all(after === -Infinity ? -1 : after) as { id: number; path: string; title: string; kind: string; collection_kind: CollectionKind; text: string | null }[];
    if (!batch.length) break;
    const byIndex = new Map<string, FtsRow[]>();
    for (const d of batch) {
      const chunks = (chunksOf.all(d.id) as { id: number; ordinal: number; char_start: number; char_end: number; heading_path: string }[]).map(
        (c): StoredChunk => ({ id: c.id, ordinal: c.ordinal, charStart: c.char_start, charEnd: c.char_end, headingPath: c.heading_path ? (JSON.parse(c.heading_path) as string[]) : [] }),
      );
      if (!chunks.length || d.text === null) continue;
      const rebuilt = rebuild(d, d.text, chunks);
      if (!rebuilt.exact) approximate++;
      const index = keywordIndexOf(d.collection_kind);
      byIndex.set(index, [...(byIndex.get(index) ?? []), ...rebuilt.rows]);
    }
    after = batch.at(-1)!.id;
    await target.transaction(async (client) => {
      for (const [index, rows] of byIndex) {
        const ids = rows.map((r) => r.id);
        await client.query(`DELETE FROM ${index} WHERE chunk_id = ANY($1::bigint[])`, [ids]); // a resumed batch is written again whole (postings go with their rows)
        await indexes.get(index as (typeof KEYWORD_INDEXES)[number])!.write(rows, client);
        rowsWritten += rows.length;
      }
      await saveProgress(client, src, 'keyword', after);
    });
    done += batch.length;
    onProgress?.({ table: 'keyword index', copied: done, total });
  }
  return { rows: rowsWritten, approximate };
}

async function createSpaceTables(source: Database.Database, target: PostgresDatabase): Promise<void> {
  for (const s of source.prepare('SELECT id, dims FROM vector_spaces').all() as { id: number; dims: number }[]) {
    const exists = await target.one(`SELECT 1 FROM pg_tables WHERE tablename = $1`, [spaceTable(s.id)]);
    if (!exists) await createSpaceTable(target.pool, s.id, s.dims, false);
  }
}

async function copyVectors(source: Database.Database, target: PostgresDatabase, onProgress?: (p: MigrationProgress) => void): Promise<number> {
  const src = sourceName(source);
  let copied = 0;
  for (const s of source.prepare('SELECT id FROM vector_spaces ORDER BY id').all() as { id: number }[]) {
    const t = spaceTable(s.id);
    const total = (source.prepare(`SELECT count(*) AS n FROM ${t}_rowids`).get() as { n: number }).n;
    const keys = source.prepare(`SELECT rowid AS id FROM ${t}_rowids WHERE rowid > ? ORDER BY rowid LIMIT 500`);
    const one = source.prepare(`SELECT collection_id, embedding FROM ${t} WHERE chunk_id = ?`);
    let after = await lastKey(target, src, t);
    let done = (source.prepare(`SELECT count(*) AS n FROM ${t}_rowids WHERE rowid <= ?`).get(after === -Infinity ? -1 : after) as { n: number }).n;
    for (;;) {
      const ids = (keys.all(after === -Infinity ? -1 : after) as { id: number }[]).map((r) => r.id);
      if (!ids.length) break;
      const rows = ids.map((id) => {
        const r = one.get(BigInt(id)) as { collection_id: number; embedding: Buffer };
        const v = new Float32Array(r.embedding.buffer.slice(r.embedding.byteOffset, r.embedding.byteOffset + r.embedding.byteLength));
        return { id, collection: Number(r.collection_id), vector: pgvector.toSql(Array.from(v))! };
      });
      after = ids.at(-1)!;
      await target.transaction(async (client) => {
        await client.query(
          `INSERT INTO ${t} (chunk_id, collection_id, embedding) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[]::vector[]) ON CONFLICT DO NOTHING`,
          [rows.map((r) => r.id), rows.map((r) => r.collection), rows.map((r) => r.vector)],
        );
        await saveProgress(client, src, t, after);
      });
      copied += rows.length;
      done += rows.length;
      onProgress?.({ table: `vectors (space ${s.id})`, copied: done, total });
    }
    await createSpaceIndex(target.pool, s.id); // built once, after the bulk copy
  }
  return copied;
}

/** New rows get ids after the copied ones. */
async function moveSequences(target: PostgresDatabase): Promise<void> {
  for (const t of IDENTITY_TABLES) {
    await target.query(`SELECT setval(pg_get_serial_sequence('${t}', 'id'), (SELECT coalesce(max(id), 0) + 1 FROM ${t}), false)`);
  }
}

async function compareCounts(source: Database.Database, target: PostgresDatabase): Promise<MigrationCount[]> {
  const out: MigrationCount[] = [];
  const both = async (what: string, sqliteSql: string, pgSql: string) => {
    out.push({ what, sqlite: (source.prepare(sqliteSql).get() as { n: number }).n, postgres: (await target.one<{ n: number }>(pgSql))?.n ?? 0 });
  };
  for (const t of TABLES) await both(t.name, `SELECT count(*) AS n FROM ${t.from ?? t.name}`, `SELECT count(*) AS n FROM ${t.name}`);
  for (const index of KEYWORD_INDEXES) {
    const kinds = (['folder', 'dataset', 'memory'] as CollectionKind[]).filter((k) => keywordIndexOf(k) === index).map((k) => `'${k}'`).join(',');
    await both(
      `${index} rows`,
      `SELECT count(*) AS n FROM chunks c JOIN documents d ON d.id = c.document_id JOIN collections k ON k.id = d.collection_id WHERE ${HAS_TEXT('d.id')} AND k.kind IN (${kinds})`,
      `SELECT count(*) AS n FROM ${index}`,
    );
  }
  for (const s of source.prepare('SELECT id FROM vector_spaces ORDER BY id').all() as { id: number }[]) {
    const t = spaceTable(s.id);
    await both(`vectors in space ${s.id}`, `SELECT count(*) AS n FROM ${t}_rowids`, `SELECT count(*) AS n FROM ${t}`);
  }
  return out;
}
