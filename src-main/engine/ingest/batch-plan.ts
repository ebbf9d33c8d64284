// One batch of read files turned into the storage interface's writes (store/storage.ts
// IndexWrite): what the batch needs from the index is read up front in one query each (its rows by
// path, rename candidates by hash, free docids), every file is decided by indexer.ts's decideFile,
// and the writes go to the claim's transaction. A move or removal is conditional there (another
// host may have got there first), so its job is retired only if it applied. Files that are present
// go first, so a rename seen as "new path + vanished path" in one batch moves the document.
import fs from 'node:fs';
import path from 'node:path';
import type { FileRead } from './file-read.js';
import { attachmentDocument, decideFile, indexedDocument, randomHex, unindexedDocument, type FileOutcome, type IndexerOptions, type ParsedDocuments } from './indexer.js';
import type { CollectionRow } from '../store/collections.js';
import type { DocumentFingerprint, DocumentRow } from '../store/documents.js';
import type { OcrWrite } from '../store/ocr.js';
import type { AttachmentWrite, DocumentRepository, IndexWrite } from '../store/storage.js';
import type { Prepared } from './prepare.js';
import { timeSlice } from '../time-slice.js';

/** How long planning (parsing and chunking text files) keeps the thread before it lets other work in. */
const PLAN_SLICE_MS = 4;

export interface PlannedBatch {
  writes: IndexWrite[];
  /** What each path came to (children of a file included), and the write it needs (if any). */
  outcomes: Map<string, FileOutcome>;
  writeOf: Map<string, number>;
}

/** Decides a batch's writes; `known`: the batch's rows by path (read before the files, for readFiles' stat fast path). */
export async function planBatch(
  documents: DocumentRepository,
  collection: CollectionRow,
  reads: readonly FileRead[],
  known: ReadonlyMap<string, DocumentRow>,
  opts: IndexerOptions,
  parsed: ParsedDocuments,
): Promise<PlannedBatch> {
  const newHashes = reads.flatMap((r) => (r.kind === 'bytes' && !known.has(r.path) ? [r.hash] : []));
  const [candidates, docids] = await Promise.all([documents.byHashes(collection.id, newHashes), freeDocids(documents, reads.length * 2)]);
  const moved = new Set<number>();
  const movedAway = new Set<string>(); // a rename's old path: no longer a row of its own once the move is written
  const renameFrom = (hash: string): DocumentFingerprint | undefined =>
    (candidates.get(hash) ?? []).find((c) => !moved.has(c.id) && !fs.existsSync(path.join(collection.root, ...c.path.split('/'))));
  const nextDocid = (): string => docids.pop() ?? randomHex(5);
  const plan: PlannedBatch = { writes: [], outcomes: new Map(), writeOf: new Map() };
  const write = (p: string, w: IndexWrite): void => {
    plan.writeOf.set(p, plan.writes.push(w) - 1);
  };
  // files that are present go first, so a rename seen as "new path + vanished path" moves the document
  const absent = (r: FileRead): boolean => r.kind === 'missing' || r.kind === 'excluded';
  const ordered = [...reads].sort((a, b) => Number(absent(a)) - Number(absent(b)));
  // the batch before may be being written meanwhile (indexing/batch-worker.ts series): its next statement goes between files
  const pause = timeSlice(PLAN_SLICE_MS);
  for (const item of ordered) {
    await pause();
    const fp = movedAway.has(item.path) ? undefined : known.get(item.path);
    const d = decideFile(item, fp, opts, parsed, renameFrom);
    plan.outcomes.set(item.path, d.outcome);
    switch (d.action) {
      case 'keep':
        break;
      case 'drop':
        write(item.path, { op: 'remove', documentId: d.fp.id, path: d.fp.path });
        break;
      case 'unindexed':
        write(item.path, {
          op: 'unindexed',
          document: unindexedDocument(collection.id, item.path, d.stat, d.hash, d.status, d.reason, d.kind, fp ? '' : nextDocid()),
          existingId: fp?.id,
        });
        break;
      case 'touch':
        write(item.path, { op: 'touch', documentId: d.fp.id, size: d.stat.size, mtimeMs: d.stat.mtimeMs });
        break;
      case 'rename':
        moved.add(d.from.id);
        movedAway.add(d.from.path);
        write(item.path, { op: 'move', documentId: d.from.id, from: d.from.path, to: item.path, size: d.stat.size, mtimeMs: d.stat.mtimeMs });
        break;
      case 'index': {
        const { prepared } = d;
        const attachments: AttachmentWrite[] | undefined =
          fp || prepared.attachments?.length
            ? (prepared.attachments ?? []).map((att) => ({
                document: attachmentDocument(collection.id, item.path, d.stat, att, nextDocid(), null),
                text: att.prepared.ok ? att.prepared.text : null,
                chunks: att.prepared.ok ? att.prepared.chunks : [],
              }))
            : undefined;
        write(item.path, {
          op: 'index',
          document: indexedDocument(collection.id, item.path, d.stat, d.hash, prepared, fp ? '' : nextDocid()),
          existingId: fp?.id,
          text: prepared.text,
          chunks: prepared.chunks,
          attachments,
          ...ocrPending(prepared, d.hash),
        });
        for (const [i, att] of (prepared.attachments ?? []).entries()) {
          const p = att.prepared;
          const childPath = attachments![i]!.document.path;
          plan.outcomes.set(childPath, p.ok ? { path: childPath, result: fp ? 'updated' : 'added', chunks: p.chunks.length, bytes: 0 } : { path: childPath, result: p.status, reason: p.reason });
        }
        break;
      }
    }
  }
  // the old path of a rename was not "deleted before it could be read": it moved
  for (const o of plan.outcomes.values()) if (o.result === 'renamed' && plan.outcomes.get(o.from)?.result === 'ignored') plan.outcomes.set(o.from, { path: o.from, result: 'ignored' });
  return plan;
}

/** A document with pages only OCR can read joins the OCR stage's queue with its write (store/ocr.ts). */
function ocrPending(prepared: Prepared & { ok: true }, hash: string): { ocr?: OcrWrite } {
  if (!prepared.ocrPages?.length || (prepared.kind !== 'pdf' && prepared.kind !== 'image')) return {};
  return { ocr: { source: prepared.kind, hash, pages: prepared.ocrPages, done: 0, failed: [], languages: null, queuedAt: Date.now() } };
}

/** Random docids nobody has yet, checked in one query (an existing row keeps its own: the upsert ignores a new one). */
async function freeDocids(documents: DocumentRepository, n: number): Promise<string[]> {
  const candidates = Array.from({ length: n }, () => randomHex(3));
  const taken = await documents.docidsTaken(candidates);
  return [...new Set(candidates.filter((c) => !taken.has(c)))];
}
