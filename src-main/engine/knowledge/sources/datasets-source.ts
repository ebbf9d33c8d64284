// The datasets source: registered datasets (Engine.datasets, engine/datasets) as knowledge
// sources — each ready dataset searched on its own and its hits calibrated like the documents':
// a FAISS dataset's by the cosine it reports (`similarity`), a folder dataset's by the raw BM25
// and cosine its legs had (`evidence`). A dataset that is not ready is listed with the reason and
// left out of a search unless asked for by name (then a notice says why it was skipped).
import picomatch from 'picomatch';
import { notFound, TroveError } from '../../errors.js';
import { parseDateFilter } from '../../search/request.js';
import type { DatasetHit, DatasetInfo, DatasetSearchResult, DatasetsApi } from '../../types/datasets.js';
import type { KnowledgeItem, KnowledgeMode, KnowledgeScope } from '../../types/knowledge.js';
import { calibrate, evidenceOf, roundScore, scoreTypeOf, semanticEvidence, type LegsRun } from '../calibrate.js';
import type { ItemChunk } from '../retrieval.js';
import { matcherFor } from '../anchor.js';
import { spansIn } from '../snippets.js';
import { datasetItemUri, type ItemRef } from '../uri.js';
import type { Candidate, KnowledgeSource, SourceItem, SourceQuery, SourceResult, SourceTarget } from './source.js';

/** Engine.datasets' search takes at most this many results a call: deeper merges page through it. */
const PAGE = 100;

export class DatasetsSource implements KnowledgeSource {
  readonly kind = 'datasets' as const;

  constructor(private readonly datasets: DatasetsApi) {}

  async targets(scope: KnowledgeScope): Promise<SourceTarget[]> {
    return this.targetsOf(await this.datasets.list(), scope);
  }

  private targetsOf(list: readonly DatasetInfo[], scope: KnowledgeScope): SourceTarget[] {
    const allow = scope.datasets ? new Set(scope.datasets) : null;
    const byId = new Map<string, DatasetInfo>();
    for (const d of list) {
      if (allow && !allow.has(d.id)) continue;
      const seen = byId.get(d.id);
      if (!seen || (seen.state !== 'ready' && d.state === 'ready')) byId.set(d.id, d); // a taken id's second manifest is the invalid one
    }
    return [...byId.values()]
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((d) => ({
        source: `datasets:${d.id}`,
        kind: 'datasets',
        name: d.id,
        key: d.id,
        items: d.documents,
        defaultMode: d.kind === 'faiss' ? 'semantic' : 'hybrid',
        modes: d.kind === 'faiss' ? ['semantic'] : ['keyword', 'semantic', 'hybrid'],
        unavailable: d.state === 'ready' ? null : `dataset "${d.id}" is ${d.state}${d.reason ? `: ${d.reason}` : ''}`,
        defaultLimit: d.defaultTopK,
      }));
  }

  search(targets: readonly SourceTarget[], q: SourceQuery): Promise<SourceResult[]> {
    return Promise.all(targets.map((t) => this.searchOne(t, q)));
  }

  private async searchOne(target: SourceTarget, q: SourceQuery): Promise<SourceResult> {
    const started = performance.now();
    const id = target.key as string;
    const notices: string[] = [];
    const done = (mode: KnowledgeMode | null, candidates: Candidate[], exhausted: boolean, total: number | null): SourceResult => ({
      source: target.source,
      kind: 'datasets',
      mode,
      candidates,
      exhausted,
      total,
      notices,
      tookMs: Math.round((performance.now() - started) * 100) / 100,
    });
    if (q.filters.kinds?.length || q.filters.tags?.length) {
      notices.push('skipped: its items have no kinds or tags to filter on');
      return done(null, [], true, 0);
    }
    // datasets take no filters: path and dates are checked on the hits
    const pathMatch = q.filters.path ? picomatch(q.filters.path, { dot: true, nocase: true }) : null;
    const from = parseDateFilter(q.filters.date_from, 'filters.date_from');
    const to = parseDateFilter(q.filters.date_to, 'filters.date_to');
    const keep = (h: DatasetHit) => {
      if (pathMatch && !(pathMatch(h.path) || pathMatch(h.path.split('/').pop() ?? h.path))) return false;
      if (from === undefined && to === undefined) return true;
      const t = h.modified ? Date.parse(h.modified) : NaN;
      return Number.isFinite(t) && (from === undefined || t >= from) && (to === undefined || t <= to);
    };
    const hits: DatasetHit[] = [];
    let last: DatasetSearchResult | null = null;
    for (let offset = 0; offset < q.depth; ) {
      const topK = Math.min(PAGE, q.depth - offset);
      last = await this.datasets.search(id, q.query, { topK, offset, mode: q.mode ?? undefined, snippetLength: q.snippetLength });
      hits.push(...last.results.filter(keep));
      if (!last.hasMore) break;
      offset += topK;
    }
    notices.push(...(last?.notices ?? []));
    const mode = last?.mode ?? null;
    const run: LegsRun = { keyword: mode === 'keyword' || mode === 'hybrid', vector: mode === 'semantic' || mode === 'hybrid', bm25Scale: null };
    const scores = calibrate(hits.map((h) => evidenceOfHit(h, run)));
    const scoreType = scoreTypeOf(run);
    const matcher = matcherFor(q.query);
    const candidates = hits.map((h, rank) => ({
      item: {
        ...itemOf(h),
        snippet: h.snippet || null,
        highlights: spansIn(h.snippet || null, matcher),
        score: roundScore(scores[rank]!),
        score_type: scoreType,
        loc: h.chunk ? { chunk_index: h.chunk.ordinal, line_start: h.chunk.lineStart, line_end: h.chunk.lineEnd } : null,
      },
      score: scores[rank]!,
      modifiedMs: h.modified ? Date.parse(h.modified) : null,
      rank,
    }));
    return done(mode, candidates, !last?.hasMore, last ? last.datasetSize : null);
  }

  async open(ref: ItemRef, scope: KnowledgeScope): Promise<SourceItem> {
    if (ref.source !== 'datasets') throw new TroveError('INTERNAL', `datasets cannot open a ${ref.source} item`);
    if (scope.datasets && !scope.datasets.includes(ref.dataset)) throw notFound(`no dataset "${ref.dataset}"`); // as if it did not exist
    const doc = await this.datasets.document(ref.dataset, ref.ref);
    const chunks: ItemChunk[] | null = doc.chunks
      ? doc.chunks.map((c) => ({ index: c.ordinal, charStart: c.charStart, charEnd: c.charEnd, lineStart: c.lineStart, lineEnd: c.lineEnd }))
      : null;
    return {
      meta: { ...itemOf({ ...doc, modified: doc.modified }), snippet: null, highlights: [], score: null, score_type: null, loc: null },
      text: doc.text,
      chunks,
      version: `${doc.modified ?? ''}:${doc.text.length}:${fingerprint(doc.text)}`,
      attachments: Object.keys(doc.metadata).length ? [{ type: 'metadata', metadata: doc.metadata }] : null,
    };
  }
}

/** A dataset hit's evidence: a folder dataset's raw BM25 and cosine, else the cosine FAISS reports. */
function evidenceOfHit(h: DatasetHit, run: LegsRun): number | null {
  if (h.evidence) return evidenceOf({ bm25: h.evidence.bm25 ?? undefined, cosine: h.evidence.cosine ?? undefined }, { ...run, bm25Scale: h.evidence.bm25Scale });
  if (h.similarity !== null) return semanticEvidence(h.similarity);
  return null; // positional decay (calibrate.ts)
}

function itemOf(d: { dataset: string; ref: string; title: string; path: string; modified: string | null }) {
  return {
    id: `${d.dataset}:${d.ref}`,
    source: 'datasets',
    dataset: d.dataset,
    title: d.title,
    uri: datasetItemUri(d.dataset, d.ref),
    path: d.path,
    created_at: null,
    last_modified: d.modified,
    version: null,
    tags: null,
    kind: null,
  } satisfies Omit<KnowledgeItem, 'snippet' | 'highlights' | 'score' | 'score_type' | 'loc'>;
}

/** FNV-1a over the text: a full-mode cursor from another version of the item is refused. */
function fingerprint(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36);
}
