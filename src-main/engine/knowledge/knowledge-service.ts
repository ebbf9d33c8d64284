// The knowledge room: fans a search out to the sources a caller may see (collections, datasets,
// memory), merges their calibrated results into one ranked list and pages through it; and reads
// one item back in a retrieval mode under a token budget. Sessions, request config and client
// shapes are protocol concerns and live in mcp/; this room only takes what they resolved.
import { isTroveError, invalidInput, notFound, TroveError } from '../errors.js';
import type {
  KnowledgeGetRequest,
  KnowledgeGetResponse,
  KnowledgeMode,
  KnowledgeScope,
  KnowledgeSearchRequest,
  KnowledgeSearchResponse,
  KnowledgeSourceInfo,
  KnowledgeSourceKind,
} from '../types/knowledge.js';
import { chunkOnTheFly, findAnchor, matcherFor } from './anchor.js';
import { cutPage, mergeRuns, type Merged } from './merge.js';
import { knob } from './options.js';
import { spansIn } from './snippets.js';
import { validateKnowledgeGet, validateKnowledgeSearch, type ValidGet, type ValidSearch } from './request.js';
import { retrieve, type ItemChunk, type ResolvedRetrieval } from './retrieval.js';
import type { KnowledgeSource, SourceResult, SourceTarget } from './sources/source.js';
import { parseItemId, parseItemUri, type ItemRef } from './uri.js';

/** Deepest a merge looks per source to fill a page past excluded results. */
const MAX_DEPTH = 1000;
/** order_by recent orders the best matches by date: this many per source at least. */
const RECENT_POOL = 100;

export class KnowledgeService {
  private readonly byKind: Map<KnowledgeSourceKind, KnowledgeSource>;

  constructor(sources: readonly KnowledgeSource[]) {
    this.byKind = new Map(sources.map((s) => [s.kind, s]));
  }

  async sources(scope: KnowledgeScope = {}): Promise<KnowledgeSourceInfo[]> {
    const lists = await Promise.all([...this.byKind.values()].map(async (s) => s.targets(scope, { detail: true })));
    return lists.flat().map(({ key: _key, ...info }) => info);
  }

  async search(request: KnowledgeSearchRequest, scope: KnowledgeScope = {}): Promise<KnowledgeSearchResponse> {
    const started = performance.now();
    const req = validateKnowledgeSearch(request);
    const chosen = await this.choose(req.sources, scope);
    const notices = chosen.notices;
    // each source says whether more ranks below what it returned, so the page needs no extra row
    let depth = Math.min(MAX_DEPTH, req.offset + req.limit + Math.min(req.exclude.size, req.limit * 4));
    if (req.orderBy === 'recent') depth = Math.max(depth, Math.min(MAX_DEPTH, RECENT_POOL));
    for (;;) {
      const runs = await this.fanOut(chosen.groups, req, depth);
      const merged = mergeRuns(runs, req.orderBy);
      const page = cutPage(merged, req.offset, req.limit, req.exclude);
      const deeper = runs.some((r) => !r.exhausted);
      if (page.items.length < req.limit && deeper && depth < MAX_DEPTH) {
        depth = Math.min(MAX_DEPTH, depth * 4);
        continue;
      }
      return this.response(req, runs, page.items, { ...page, more: page.more || deeper }, merged, [...notices, ...runs.flatMap((r) => r.notices.map((n) => `${r.source}: ${n}`))], started);
    }
  }

  private response(
    req: ValidSearch,
    runs: SourceResult[],
    items: Merged[],
    page: { next: number; skipped: number; more: boolean },
    merged: Merged[],
    notices: string[],
    started: number,
  ): KnowledgeSearchResponse {
    const modes = new Set(runs.map((r) => r.mode).filter((m): m is KnowledgeMode => m !== null));
    const totals = runs.map((r) => r.total);
    return {
      query: req.query,
      results: items.map((m) => m.item),
      has_more: page.more,
      next_offset: page.more ? page.next : null,
      total_estimated: totals.some((t) => t === null) ? null : Math.max(merged.length, totals.reduce<number>((s, t) => s + (t ?? 0), 0)),
      offset: req.offset,
      limit: req.limit,
      order_by: req.orderBy,
      mode: modes.size === 1 ? [...modes][0]! : modes.size ? 'mixed' : null,
      sources: runs.map((r) => ({ source: r.source, kind: r.kind, mode: r.mode, results: r.candidates.length, took_ms: r.tookMs, notices: r.notices })),
      skipped: page.skipped,
      notices,
      took_ms: Math.round((performance.now() - started) * 100) / 100,
    };
  }

  /** Runs every chosen source; one that fails says why in notices, unless all fail (then the first failure is the answer). */
  private async fanOut(groups: Map<KnowledgeSource, SourceTarget[]>, req: ValidSearch, depth: number): Promise<SourceResult[]> {
    const query = { query: req.query, depth, snippetLength: req.snippetLength, mode: req.mode, filters: req.filters };
    const settled = await Promise.allSettled([...groups].map(([source, targets]) => source.search(targets, query)));
    const runs: SourceResult[] = [];
    const failures: unknown[] = [];
    [...groups.keys()].forEach((source, i) => {
      const s = settled[i]!;
      if (s.status === 'fulfilled') runs.push(...s.value);
      else {
        if (!isTroveError(s.reason)) throw s.reason;
        failures.push(s.reason);
        runs.push({ source: source.kind, kind: source.kind, mode: null, candidates: [], exhausted: true, total: 0, notices: [s.reason.message], tookMs: 0 });
      }
    });
    if (failures.length && failures.length === groups.size) throw failures[0];
    return runs;
  }

  /** The targets `sources` names (default: everything in scope), grouped by source kind. */
  private async choose(selectors: string[] | null, scope: KnowledgeScope): Promise<{ groups: Map<KnowledgeSource, SourceTarget[]>; notices: string[] }> {
    const groups = new Map<KnowledgeSource, SourceTarget[]>();
    const notices: string[] = [];
    const add = (source: KnowledgeSource, t: SourceTarget) => {
      const list = groups.get(source) ?? [];
      if (!list.includes(t)) list.push(t);
      groups.set(source, list);
    };
    if (!selectors) {
      for (const source of this.byKind.values()) for (const t of await source.targets(scope)) if (!t.unavailable) add(source, t);
      if (!groups.size) throw new TroveError('NOT_FOUND', 'there is nothing to search yet: add a collection (or a dataset) first');
      return { groups, notices };
    }
    for (const selector of selectors) {
      const colon = selector.indexOf(':');
      const kind = (colon < 0 ? selector : selector.slice(0, colon)) as KnowledgeSourceKind;
      const name = colon < 0 ? null : selector.slice(colon + 1);
      const source = this.byKind.get(kind);
      if (!source) throw invalidInput(`unknown source "${selector}"; sources are ${this.selectorHelp()}`);
      const targets = await source.targets(scope);
      const picked = name === null ? targets : targets.filter((t) => t.name === name);
      if (name !== null && !picked.length) {
        const known = targets.map((t) => t.source);
        throw notFound(`no source named "${selector}"${known.length ? ` (sources: ${known.join(', ')})` : ''}`);
      }
      for (const t of picked) {
        if (t.unavailable) notices.push(`${t.source} skipped: ${t.unavailable}`);
        else add(source, t);
      }
    }
    if (!groups.size) throw new TroveError('UNAVAILABLE', notices.length ? notices.join('; ') : 'none of the chosen sources has anything to search');
    return { groups, notices };
  }

  private selectorHelp(): string {
    const names: Record<KnowledgeSourceKind, string> = { documents: 'documents, documents:<collection>', datasets: 'datasets, datasets:<id>', memory: 'memory' };
    return [...this.byKind.keys()].map((k) => names[k]).join(', ');
  }

  async get(request: KnowledgeGetRequest, scope: KnowledgeScope = {}): Promise<KnowledgeGetResponse> {
    const req = validateKnowledgeGet(request);
    const ref = refOf(req);
    const source = this.byKind.get(ref.source);
    if (!source) throw invalidInput(`${ref.source} is not a source this Trove has; sources are ${this.selectorHelp()}`);
    const item = await source.open(ref, scope);
    const options = resolveRetrieval(req);
    const sizeChars = Math.round(knob('chunk_size_tokens', req.retrieval?.chunk_size_tokens) * options.charsPerToken);
    const overlapChars = Math.min(Math.floor(sizeChars / 2), Math.round(knob('chunk_overlap_tokens', req.retrieval?.chunk_overlap_tokens) * options.charsPerToken));
    const prechunked = req.retrieval?.prefer_prechunked !== false && !!item.chunks?.length;
    const chunks: ItemChunk[] = prechunked ? item.chunks! : chunkOnTheFly(item.text, sizeChars, overlapChars);
    const named = !!req.loc && Object.values(req.loc).some((v) => v !== undefined);
    let loc = named ? req.loc : (item.defaultLoc ?? req.loc);
    if (!prechunked && loc?.chunk_index !== undefined && item.chunks?.length) {
      // the result's loc counts the item's own chunks: anchor at where that chunk starts
      const own = item.chunks.find((c) => c.index === loc!.chunk_index);
      if (own) loc = { approx_offset: own.charStart };
    }
    const matcher = matcherFor(req.query);
    const anchor = findAnchor(item.text, chunks, loc, matcher);
    const { content, info } = retrieve({
      text: item.text,
      chunks,
      chunking: prechunked ? 'prechunked' : 'on_the_fly',
      anchor: anchor.position,
      anchoredBy: anchor.by,
      matcher,
      options,
      cursor: req.cursor,
      version: item.version,
    });
    const a = anchor.position === null ? null : chunks[anchor.position]!;
    return {
      meta: {
        ...item.meta,
        loc: a && {
          chunk_index: a.index,
          line_start: a.lineStart,
          line_end: a.lineEnd,
          ...(a.page !== undefined ? { page: a.page } : {}),
          ...(a.headingPath?.length ? { heading_path: a.headingPath } : {}),
        },
      },
      content,
      highlights: spansIn(content, matcher),
      attachments: item.attachments,
      retrieval: info,
    };
  }
}

function refOf(req: ValidGet): ItemRef {
  if (req.uri !== undefined) {
    const ref = parseItemUri(req.uri);
    if (req.source && req.source !== ref.source) throw invalidInput(`"${req.uri}" is a ${ref.source} URI, not one of ${req.source}`);
    return ref;
  }
  return req.source ? parseItemId(req.source, req.id!) : parseItemUri(req.id!);
}

/** Retrieval options clamped, `auto` resolved: chunk_with_siblings when someone set max_tokens, else snippet. */
export function resolveRetrieval(req: ValidGet): ResolvedRetrieval {
  const r = req.retrieval ?? {};
  const explicit = req.max_tokens_explicit ?? r.max_tokens !== undefined;
  const mode = r.mode ?? 'snippet';
  return {
    mode: mode === 'auto' ? (explicit ? 'chunk_with_siblings' : 'snippet') : mode,
    snippetLength: knob('snippet_length', r.snippet_length),
    maxTokens: knob('max_tokens', r.max_tokens),
    charsPerToken: knob('chars_per_token', r.chars_per_token),
    siblingWindow: knob('sibling_window', r.sibling_window),
  };
}
