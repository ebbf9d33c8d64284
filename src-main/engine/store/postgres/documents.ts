// The documents, contents and chunks tables on PostgreSQL, read side (store/documents.ts and
// store/chunks.ts's rows). Writes come in whole batches: postgres/index-writer.ts.
import type { TextRange, TextWindow } from '../content-blocks.js';
import type { ChunkRow } from '../chunks.js';
import type { DocumentFingerprint, DocumentRow, DocumentStatus, HitDocument, RawHitDocument } from '../documents.js';
import type { ChunkRepository, DocumentRepository } from '../storage.js';
import type { PostgresDatabase } from './connection.js';

interface RawDocument {
  id: number;
  collection_id: number;
  path: string;
  docid: string;
  title: string;
  kind: string;
  size: number;
  mtime_ms: number;
  hash: string | null;
  indexed_at: number;
  status: DocumentStatus;
  error: string | null;
  warning: string | null;
  tags: string[];
  metadata: Record<string, unknown>;
  parent_id: number | null;
}

const fromRaw = (r: RawDocument): DocumentRow => ({
  id: r.id,
  collectionId: r.collection_id,
  path: r.path,
  docid: r.docid,
  title: r.title,
  kind: r.kind,
  size: r.size,
  mtimeMs: r.mtime_ms,
  hash: r.hash,
  indexedAt: r.indexed_at,
  status: r.status,
  error: r.error,
  warning: r.warning,
  tags: r.tags,
  metadata: r.metadata,
  parentId: r.parent_id ?? null,
});

const FINGERPRINT = 'id, path, size, mtime_ms, hash, status';

export class PostgresDocuments implements DocumentRepository {
  constructor(private readonly db: PostgresDatabase) {}

  fingerprints(collectionId: number): Promise<DocumentFingerprint[]> {
    return this.db.query<DocumentFingerprint>(`SELECT ${FINGERPRINT} FROM documents WHERE collection_id = $1 AND parent_id IS NULL`, [collectionId]);
  }

  async byPath(collectionId: number, path: string): Promise<DocumentRow | undefined> {
    const r = await this.db.one<RawDocument>('SELECT * FROM documents WHERE collection_id = $1 AND path = $2', [collectionId, path]);
    return r && fromRaw(r);
  }

  async byPaths(collectionId: number, paths: readonly string[]): Promise<Map<string, DocumentRow>> {
    if (!paths.length) return new Map();
    const rows = await this.db.query<RawDocument>('SELECT * FROM documents WHERE collection_id = $1 AND path = ANY($2::text[])', [collectionId, paths]);
    return new Map(rows.map((r) => [r.path, fromRaw(r)]));
  }

  async byHashes(collectionId: number, hashes: readonly string[]): Promise<Map<string, DocumentFingerprint[]>> {
    const out = new Map<string, DocumentFingerprint[]>();
    if (!hashes.length) return out;
    const rows = await this.db.query<DocumentFingerprint>(
      `SELECT ${FINGERPRINT} FROM documents WHERE collection_id = $1 AND hash = ANY($2::text[]) AND status = 'indexed' AND parent_id IS NULL ORDER BY id`,
      [collectionId, hashes],
    );
    for (const r of rows) out.set(r.hash!, [...(out.get(r.hash!) ?? []), r]);
    return out;
  }

  async byDocid(docid: string): Promise<DocumentRow | undefined> {
    const r = await this.db.one<RawDocument>('SELECT * FROM documents WHERE docid = $1', [docid]);
    return r && fromRaw(r);
  }

  async byId(id: number): Promise<DocumentRow | undefined> {
    const r = await this.db.one<RawDocument>('SELECT * FROM documents WHERE id = $1', [id]);
    return r && fromRaw(r);
  }

  async forHits(ids: readonly number[]): Promise<Map<number, HitDocument>> {
    if (!ids.length) return new Map();
    const rows = await this.db.query<Omit<RawHitDocument, 'tags' | 'ocr_confidence'> & { tags: string[]; ocr_confidence: Record<string, number> | null }>(
      `SELECT id, collection_id, path, docid, title, kind, mtime_ms, tags, metadata->'ocr'->'confidence' AS ocr_confidence
         FROM documents WHERE id = ANY($1::bigint[])`,
      [[...new Set(ids)]],
    );
    return new Map(
      rows.map((r) => [
        r.id,
        { id: r.id, collectionId: r.collection_id, path: r.path, docid: r.docid, title: r.title, kind: r.kind, mtimeMs: r.mtime_ms, tags: r.tags, ocrConfidence: r.ocr_confidence },
      ]),
    );
  }

  async indexedCount(collectionId: number): Promise<number> {
    return (await this.db.one<{ n: number }>("SELECT count(*) AS n FROM documents WHERE collection_id = $1 AND status = 'indexed'", [collectionId]))?.n ?? 0;
  }

  async indexedPaths(collectionId: number, folder?: string): Promise<string[]> {
    const rows = folder === undefined
      ? await this.db.query<{ path: string }>(
          `SELECT path FROM documents WHERE collection_id = $1 AND status = 'indexed' ORDER BY path COLLATE "C"`,
          [collectionId],
        )
      : await this.db.query<{ path: string }>(
          `SELECT path FROM documents WHERE collection_id = $1 AND status = 'indexed' AND (path = $2 OR starts_with(path, $2 || '/'))
            ORDER BY path COLLATE "C"`,
          [collectionId, folder],
        );
    return rows.map((r) => r.path);
  }

  async indexedDocuments(collectionId: number): Promise<DocumentRow[]> {
    const rows = await this.db.query<RawDocument>(
      `SELECT * FROM documents WHERE collection_id = $1 AND status = 'indexed' ORDER BY path COLLATE "C"`,
      [collectionId],
    );
    return rows.map(fromRaw);
  }

  async docidsTaken(candidates: readonly string[]): Promise<Set<string>> {
    if (!candidates.length) return new Set();
    const rows = await this.db.query<{ docid: string }>('SELECT docid FROM documents WHERE docid = ANY($1::text[])', [candidates]);
    return new Set(rows.map((r) => r.docid));
  }

  async content(id: number): Promise<string | undefined> {
    return (await this.db.one<{ text: string }>('SELECT text FROM contents WHERE document_id = $1', [id]))?.text;
  }

  async contents(ids: readonly number[]): Promise<Map<number, string>> {
    if (!ids.length) return new Map();
    const rows = await this.db.query<{ document_id: number; text: string }>('SELECT document_id, text FROM contents WHERE document_id = ANY($1::bigint[])', [[...new Set(ids)]]);
    return new Map(rows.map((r) => [r.document_id, r.text]));
  }

  async windows(ranges: readonly TextRange[]): Promise<(TextWindow | undefined)[]> {
    if (!ranges.length) return [];
    // substr counts code points, the ranges UTF-16 code units (never fewer): the first `to` code
    // points hold at least the first `to` units. TOAST inflates a value whole anyway, so the
    // prefix only saves what crosses the wire.
    const rows = await this.db.query<{ i: number; text: string }>(
      'SELECT r.i, substr(t.text, 1, r.n) AS text FROM unnest($1::int[], $2::bigint[], $3::int[]) AS r(i, id, n) JOIN contents t ON t.document_id = r.id',
      [ranges.map((_, i) => i), ranges.map((r) => r.id), ranges.map((r) => Math.max(0, r.to))],
    );
    const out: (TextWindow | undefined)[] = new Array(ranges.length).fill(undefined);
    for (const r of rows) {
      const from = Math.min(Math.max(0, ranges[r.i]!.from), r.text.length);
      out[r.i] = { start: from, text: r.text.slice(from) };
    }
    return out;
  }

  async chunkWindows(chunkIds: readonly number[]): Promise<Map<number, TextWindow>> {
    if (!chunkIds.length) return new Map();
    // a prefix, as windows(): the code points up to the chunk's end and one more hold its units
    const rows = await this.db.query<{ id: number; char_start: number; text: string }>(
      'SELECT c.id, c.char_start, substr(t.text, 1, c.char_end + 1) AS text FROM chunks c JOIN contents t ON t.document_id = c.document_id WHERE c.id = ANY($1::bigint[])',
      [[...new Set(chunkIds)]],
    );
    return new Map(
      rows.map((r) => {
        const from = Math.min(Math.max(0, r.char_start - 1), r.text.length);
        return [Number(r.id), { start: from, text: r.text.slice(from) }];
      }),
    );
  }

  async languageSample(collectionId: number, sample: { documents: number; chars: number }): Promise<string[]> {
    const rows = await this.db.query<{ t: string }>(
      'SELECT substr(t.text, 1, $1) AS t FROM contents t JOIN documents d ON d.id = t.document_id WHERE d.collection_id = $2 ORDER BY d.id LIMIT $3',
      [sample.chars, collectionId, sample.documents],
    );
    return rows.map((r) => r.t);
  }
}

interface RawChunk {
  id: number;
  document_id: number;
  ordinal: number;
  char_start: number;
  char_end: number;
  line_start: number;
  line_end: number;
  heading_path: string;
  page: number | null;
}

const chunkFromRaw = (r: RawChunk): ChunkRow => ({
  id: r.id,
  documentId: r.document_id,
  ordinal: r.ordinal,
  charStart: r.char_start,
  charEnd: r.char_end,
  lineStart: r.line_start,
  lineEnd: r.line_end,
  headingPath: r.heading_path ? (JSON.parse(r.heading_path) as string[]) : [],
  page: r.page,
});

export class PostgresChunks implements ChunkRepository {
  constructor(private readonly db: PostgresDatabase) {}

  async byId(id: number): Promise<ChunkRow | undefined> {
    const r = await this.db.one<RawChunk>('SELECT * FROM chunks WHERE id = $1', [id]);
    return r && chunkFromRaw(r);
  }

  async byIds(ids: readonly number[]): Promise<Map<number, ChunkRow>> {
    if (!ids.length) return new Map();
    const rows = await this.db.query<RawChunk>('SELECT * FROM chunks WHERE id = ANY($1::bigint[])', [[...new Set(ids)]]);
    return new Map(rows.map((r) => [r.id, chunkFromRaw(r)]));
  }

  async forDocument(documentId: number): Promise<ChunkRow[]> {
    return (await this.db.query<RawChunk>('SELECT * FROM chunks WHERE document_id = $1 ORDER BY ordinal', [documentId])).map(chunkFromRaw);
  }
}
