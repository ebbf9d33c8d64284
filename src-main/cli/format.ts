// Human-readable output of the CLI (the --json output is the engine's objects as they are).
import {
  describeActivity,
  pageUnit,
  type CollectionEmbeddingStatus,
  type CollectionInfo,
  type DatasetDocument,
  type DatasetInfo,
  type DatasetSearchResult,
  type IndexReport,
  type MultiGetResult,
  type SearchResponse,
  type StatusReport,
} from '../engine/index.js';

export function formatCollections(list: CollectionInfo[]): string {
  if (!list.length) return 'No collections yet. Add one: trove collection add <folder> --name <name>';
  return list
    .map((c) => {
      const when = c.lastIndexedAt ? `indexed ${c.lastIndexedAt}` : 'never indexed';
      const problems = c.skipped + c.failed ? `, ${c.skipped} skipped, ${c.failed} failed` : '';
      const note = c.context ? `\n  context: ${c.context}` : '';
      return `${c.name}  ${c.root}\n  ${c.documents} documents, ${c.chunks} chunks${problems}; ${when}${note}`;
    })
    .join('\n');
}

/** A collection's embedding after a command computed it, or why it could not (its keyword index is done). */
export type EmbeddingOutcome = CollectionEmbeddingStatus | { collection: string; error: string };

export function formatEmbedding(e: EmbeddingOutcome): string {
  if ('error' in e) return `${e.collection}: not embedded (${e.error})`;
  return `${e.collection}: ${e.model ?? 'no model'}, ${e.vectors} vectors, ${e.needsEmbedding} waiting`;
}

export function formatIndexReport(r: IndexReport): string {
  const secs = r.durationMs / 1000;
  const lines = [
    `${r.collection}: ${r.scanned} files scanned in ${secs.toFixed(1)} s — ${r.added} added, ${r.updated} updated, ` +
      `${r.renamed} renamed, ${r.removed} removed, ${r.unchanged} unchanged; ${r.chunks} chunks written`,
  ];
  for (const p of r.failed) lines.push(`  failed  ${p.path}: ${p.reason}`);
  for (const p of r.skipped) lines.push(`  skipped ${p.path}: ${p.reason}`);
  for (const p of r.notices) lines.push(`  note    ${p.path}: ${p.reason}`);
  return lines.join('\n');
}

const MARK = '\x1b[1;33m';
const UNMARK = '\x1b[0m';

/** The text with the engine's highlight spans drawn in bold yellow (a terminal's way of <mark>). */
export function markSpans(text: string, spans: readonly (readonly [number, number])[]): string {
  let out = '';
  let last = 0;
  for (const [start, end] of [...spans].sort((a, b) => a[0] - b[0])) {
    if (start < last) continue;
    out += `${text.slice(last, start)}${MARK}${text.slice(start, end)}${UNMARK}`;
    last = end;
  }
  return out + text.slice(last);
}

/** `color`: mark the query's words in snippets (the spans the engine chose: the same ones the app and MCP get). */
export function formatSearch(r: SearchResponse, opts: { color?: boolean } = {}): string {
  if (!r.results.length) return `No results for "${r.query}".`;
  const out = r.results.map((h, i) => {
    const where = h.page !== null ? `  ${pageUnit(h.kind)} ${h.page}${h.ocr ? ` (OCR, ${h.ocr.confidence}% confidence)` : ''}` : '';
    const head = `${r.offset + i + 1}. ${h.collection}/${h.path}${where}  #${h.docid}  score ${h.score.toFixed(2)}`;
    const title = h.title ? `\n   ${h.title}` : '';
    const text = opts.color ? markSpans(h.snippet, h.highlights) : h.snippet;
    const snippet = text.split('\n').map((l) => `   ${l}`).join('\n');
    const explain = h.explain ? `\n   explain: ${JSON.stringify(h.explain)}` : '';
    return `${head}${title}\n${snippet}${explain}`;
  });
  if (r.has_more) out.push(`… more results: --offset ${r.next_offset}`);
  return out.join('\n\n');
}

export function formatMultiGet(r: MultiGetResult): string {
  const parts = r.documents.map((d) => {
    const head = `==> ${d.collection}/${d.path} (#${d.docid}) <==`;
    return d.skipped ? `${head}\n[skipped: ${d.skipped}]` : `${head}\n${d.text}`;
  });
  for (const nf of r.notFound) parts.push(`==> ${nf.locator} <==\n[not found: ${nf.reason}]`);
  return parts.join('\n\n');
}

export function formatStatus(s: StatusReport, from: { hostPid?: number } = {}): string {
  const lines = [
    from.hostPid ? `Live from the running host (pid ${from.hostPid})` : 'No host is running for this profile: the index as it is on disk',
    `Profile: ${s.profileDir}`,
    `Index:   ${s.database.path} (${(s.database.bytes / 1e6).toFixed(1)} MB)`,
    `Totals:  ${s.totals.collections} collections, ${s.totals.documents} documents, ${s.totals.chunks} chunks` +
      (s.totals.skipped + s.totals.failed ? `, ${s.totals.skipped} skipped, ${s.totals.failed} failed` : ''),
  ];
  if (s.indexing.watching) lines.push(`Watching: ${s.indexing.watchers.length} folders${s.indexing.paused ? ' (all indexing paused)' : ''}`);
  if (s.totals.chunks) lines.push(`Embeddings: ${s.embeddings.summary}`);
  if (s.ocr.collections.length) lines.push(s.ocr.summary);
  if (s.memory?.entries) {
    lines.push(`Memory:  ${s.memory.entries} entries in ${s.memory.threads} threads${s.memory.needsEmbedding ? `, ${s.memory.needsEmbedding} chunks waiting for embeddings (trove embed)` : ''} (trove memory list)`);
  }
  for (const c of s.collections) {
    lines.push('', formatCollections([c]));
    const activity = s.indexing.collections.find((a) => a.collection === c.name);
    const line = activity && describeActivity(activity);
    if (line) lines.push(`  indexing: ${line}`);
    const vectors = s.embeddings.collections.find((e) => e.collection === c.name);
    if (vectors && vectors.chunks) lines.push(`  embeddings: ${vectors.summary}`);
    const ocr = s.ocr.collections.find((o) => o.collection === c.name);
    if (ocr) lines.push(`  ${ocr.summary}`);
    const kinds = Object.entries(c.kinds).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    if (kinds.length) lines.push(`  kinds: ${kinds.map(([k, n]) => `${k} ${n}`).join(', ')}`);
    for (const p of c.problems) lines.push(`  ${p.status.padEnd(7)} ${p.path}: ${p.reason}`);
  }
  if (s.datasets.length) lines.push('', `Datasets: ${s.datasets.length}`, formatDatasets(s.datasets));
  return lines.join('\n');
}

/** One block per dataset: id, state (and why), what it is, where its manifest is. */
export function formatDatasets(list: DatasetInfo[]): string {
  return list
    .map((d) => {
      const what =
        d.kind === 'faiss'
          ? `FAISS ${d.indexType ?? 'index'}, ${d.documents} vectors${d.dims ? ` of ${d.dims} dims` : ''}, model ${d.model ?? '(to be inferred)'}${d.modelInferred ? ' (inferred)' : ''}`
          : d.kind === 'folder'
            ? `folder ${d.indexPath}, ${d.documents} documents${d.model ? `, model ${d.model}` : ''}`
            : 'not validated';
      const lines = [`${d.id}  [${d.state}]  ${d.name}`, `  ${what}; top ${d.defaultTopK}`, `  manifest: ${d.manifestPath}`];
      if (d.reason) lines.push(`  ${d.state === 'invalid' ? 'invalid' : 'error'}: ${d.reason}`);
      for (const w of d.warnings) lines.push(`  warning: ${w}`);
      return lines.join('\n');
    })
    .join('\n');
}

export function formatDatasetSearch(r: DatasetSearchResult): string {
  if (!r.results.length) return `No results in dataset "${r.dataset}".`;
  const out = r.results.map((h, i) => {
    const sim = h.similarity === null ? '' : `  cosine ${h.similarity.toFixed(2)}`;
    return `${i + 1}. ${h.title}  (${h.path}; ref ${h.ref})  score ${h.score.toFixed(2)}${sim}\n   ${h.snippet}`;
  });
  if (r.nextOffset !== null) out.push(`… more results: --offset ${r.nextOffset}`);
  return out.join('\n\n');
}

export function formatDatasetDocument(d: DatasetDocument): string {
  return `==> ${d.dataset}:${d.ref} ${d.title} (${d.path}) <==\n${d.text}`;
}
