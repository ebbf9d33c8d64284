// The knowledge room: fans a search out to the sources a caller may see (collections, datasets,
// memory), merges their calibrated results into one ranked list and pages through it; and reads
// one item back in a retrieval mode under a token budget. The spec's own source names and
// per-source filters are translated by spec-sources.ts into runs of these sources. Sessions,
// request config and client shapes are protocol concerns and live in mcp/; this room only takes
// what they resolved.
import { isTroveError, invalidInput, notFound, TroveError } from '../errors.js';
import type {
  KnowledgeGetRequest,
  KnowledgeGetResponse,
  KnowledgeMode,
  KnowledgeScope,
  KnowledgeSearchRequest,
  KnowledgeSearchResponse,
  KnowledgeFilters,
  KnowledgeSourceInfo,
  KnowledgeSourceKind,
  KnowledgeSpecSource,
} from '../types/knowledge.js';
import { chunkOnTheFly, findAnchor, matcherFor } from './anchor.js';
import { cutPage, mergeRuns, uniqueByUri, type Merged } from './merge.js';
import { knob } from './options.js';
import { spansIn } from './snippets.js';
import { validateKnowledgeGet, validateKnowledgeSearch, type ValidGet, type ValidSearch } from './request.js';
import { retrieve, type ItemChunk, type ResolvedRetrieval } from './retrieval.js';
import type { KnowledgeSource, SourceResult, SourceTarget } from './sources/source.js';
import { documentLabel, isSpecSource, planSources, specItem, troveSourceOf, type SourceAsk, type SourcePlan } from './spec-sources.js';
import { parseItemId, parseItemUri, type ItemRef } from './uri.js';

/** Deepest a merge looks per source to fill a page past excluded results. */
const MAX_DEPTH = 1000;
/** order_by recent orders the best matches by date: this many per source at least. */
const RECENT_POOL = 100;

/** One run of a source: its targets, searched together with one set of filters (and the spec's name for it, when asked by one). */
interface Group {
  source: KnowledgeSource;
  targets: SourceTarget[];
  label: KnowledgeSpecSource | null;
  filters: KnowledgeFilters;
  sender?: 'user' | 'agent';
}

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
    const plan = planSources(req.sources, req.filters, req.specFilters);
    const chosen = await this.choose(plan, req, scope);
    const notices = [...plan.notices, ...chosen.notices];
    // asked only by the spec's names, none of which has anything here: an empty answer that says why
    if (!chosen.groups.length) return this.response(req, [], [], { next: req.offset, skipped: 0, more: false }, [], notices, started);
    // each source says whether more ranks below what it returned, so the page needs no extra row
    let depth = Math.min(MAX_DEPTH, req.offset + req.limit + Math.min(req.exclude.size, req.limit * 4));
    if (req.orderBy === 'recent') depth = Math.max(depth, Math.min(MAX_DEPTH, RECENT_POOL));
    for (;;) {
      const runs = await this.fanOut(chosen.groups, req, depth);
      const merged = uniqueByUri(mergeRuns(runs, req.orderBy)); // the spec's notes and media may both hold a document
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

  /** Runs every chosen group; one that fails says why in notices, unless all fail (then the first failure is the answer). */
  private async fanOut(groups: readonly Group[], req: ValidSearch, depth: number): Promise<SourceResult[]> {
    const settled = await Promise.allSettled(
      groups.map((g) => g.source.search(g.targets, { query: req.query, depth, snippetLength: req.snippetLength, mode: req.mode, filters: g.filters, sender: g.sender })),
    );
    const runs: SourceResult[] = [];
    const failures: unknown[] = [];
    groups.forEach((g, i) => {
      const s = settled[i]!;
      if (s.status === 'fulfilled') runs.push(...s.value.map((r) => (g.label ? labelled(r, g.label) : r)));
      else {
        if (!isTroveError(s.reason)) throw s.reason;
        failures.push(s.reason);
        runs.push({ source: g.label ?? g.source.kind, kind: g.source.kind, mode: null, candidates: [], exhausted: true, total: 0, notices: [s.reason.message], tookMs: 0 });
      }
    });
    if (failures.length && failures.length === groups.length) throw failures[0];
    return runs;
  }

  /**
   * The runs a search makes: the targets each ask names (default: everything in scope), one group
   * per source kind — and per spec name, since the spec's notes and media are documents searched
   * with different filters.
   */
  private async choose(plan: SourcePlan, req: ValidSearch, scope: KnowledgeScope): Promise<{ groups: Group[]; notices: string[] }> {
    const groups: Group[] = [];
    const notices: string[] = [];
    const add = (source: KnowledgeSource, t: SourceTarget, ask: Pick<SourceAsk, 'label' | 'filters' | 'sender'>) => {
      let g = groups.find((x) => x.source === source && x.label === ask.label);
      if (!g) groups.push((g = { source, targets: [], label: ask.label, filters: ask.filters, ...(ask.sender ? { sender: ask.sender } : {}) }));
      if (!g.targets.some((x) => x.source === t.source)) g.targets.push(t);
    };
    if (!plan.asks && !req.sources) {
      for (const source of this.byKind.values()) for (const t of await source.targets(scope)) if (!t.unavailable) add(source, t, { label: null, filters: req.filters });
      if (!groups.length) throw new TroveError('NOT_FOUND', 'there is nothing to search yet: add a collection (or a dataset) first');
      return { groups, notices };
    }
    const asks: SourceAsk[] = plan.asks ?? req.sources!.map((selector) => ({ selector, label: null, filters: req.filters, implicit: false }));
    for (const ask of asks) {
      const { selector } = ask;
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
      if (ask.label && !ask.implicit && !picked.length) notices.push(`${ask.label}: nothing to search here`);
      for (const t of picked) {
        if (!t.unavailable) add(source, t, ask);
        else if (!ask.implicit) notices.push(`${ask.label ?? t.source} skipped: ${t.unavailable}`);
      }
    }
    if (!groups.length && !plan.spec) throw new TroveError('UNAVAILABLE', notices.length ? notices.join('; ') : 'none of the chosen sources has anything to search');
    return { groups, notices };
  }

  private selectorHelp(): string {
    const names: Record<KnowledgeSourceKind, string> = { documents: 'documents, documents:<collection>', datasets: 'datasets, datasets:<id>', memory: 'memory' };
    return `${[...this.byKind.keys()].map((k) => names[k]).join(', ')} (or the spec's notes, media, chats, characters, prompts)`;
  }

  async get(request: KnowledgeGetRequest, scope: KnowledgeScope = {}): Promise<KnowledgeGetResponse> {
    const req = validateKnowledgeGet(request);
    const label = req.source && isSpecSource(req.source) ? req.source : null;
    const kind = label ? troveSourceOf(label) : (req.source as KnowledgeSourceKind | undefined);
    if (label && !kind) throw notFound(`Trove has no ${label}: nothing of the kind is indexed (its sources are documents, datasets and memory; the spec's notes, media and chats)`);
    const ref = refOf(req, kind ?? undefined);
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
    const meta = label ? specItem(item.meta, ref.source === 'memory' ? 'chats' : documentLabel(item.meta.kind), item.extra) : item.meta;
    return {
      meta: {
        ...meta,
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

/** What the request names; `source` is Trove's kind (the spec's names already translated). */
function refOf(req: ValidGet, source: KnowledgeSourceKind | undefined): ItemRef {
  if (req.uri !== undefined) {
    const ref = parseItemUri(req.uri);
    if (source && source !== ref.source) throw invalidInput(`"${req.uri}" is a ${ref.source} URI, not one of ${req.source}`);
    return ref;
  }
  return source ? parseItemId(source, req.id!) : parseItemUri(req.id!);
}

/** A run asked for by the spec's name: its results carry that name and the spec's per-source fields. */
function labelled(r: SourceResult, label: KnowledgeSpecSource): SourceResult {
  return { ...r, source: label, candidates: r.candidates.map((c) => ({ ...c, item: specItem(c.item, label, c.extra) })) };
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
