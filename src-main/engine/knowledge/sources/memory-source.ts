// The memory source: the agent memory store (Engine.memory on SQLite, SharedIndex.memory on
// PostgreSQL: answers in hand or promised) as one knowledge
// source, searched by its own keyword / vector / hybrid search and calibrated like the
// documents (the raw BM25 and cosine each hit carries, the keyword leg's BM25 scale). Filters map
// onto memory's own where they can (tags, dates: in SQL, so pages stay whole); the rest is
// checked on the hits. knowledge.get reads an entry inside its thread: the item's text is the
// thread around the entry, one chunk per message labelled by its entry id (a hit's
// loc.chunk_index is its entry id), so chunk is the message, chunk_with_siblings the messages
// beside it, full the thread around it.
import picomatch from 'picomatch';
import { invalidInput, notFound, TroveError } from '../../errors.js';
import { parseDateFilter } from '../../search/request.js';
import type { KnowledgeItem, KnowledgeMode, KnowledgeScope } from '../../types/knowledge.js';
import type { MemoryApi } from '../../types/memory.js';
import type { MemoryEntry, MemoryHit, MemorySearchResponse } from '../../types/memory.js';
import { calibrate, evidenceOf, roundScore, scoreTypeOf, type LegsRun } from '../calibrate.js';
import { matcherFor } from '../anchor.js';
import type { ItemChunk } from '../retrieval.js';
import { plainSnippet, spansIn } from '../snippets.js';
import { memoryItemUri, type ItemRef } from '../uri.js';
import type { Candidate, KnowledgeSource, SourceItem, SourceQuery, SourceResult, SourceTarget } from './source.js';

/** Engine.memory's search takes at most this many results a call: deeper merges page through it. */
const PAGE = 100;
/** Messages on each side of the entry its knowledge.get item holds (Engine.memory.context's most). */
const THREAD_WINDOW = 50;
const TITLE_CHARS = 80;

export class MemorySource implements KnowledgeSource {
  readonly kind = 'memory' as const;

  constructor(private readonly memory: MemoryApi) {}

  /** One target, `memory`, for a scope that may read memory; listed as unavailable while it is empty. */
  async targets(scope: KnowledgeScope, opts: { detail?: boolean } = {}): Promise<SourceTarget[]> {
    if (scope.memory === false) return [];
    const { entries } = await this.memory.summary();
    return this.target(entries, !!opts.detail && entries > 0 && (await this.memory.statistics()).semantic.vectors > 0);
  }

  private target(entries: number, vectors: boolean): SourceTarget[] {
    return [
      {
        source: 'memory',
        kind: 'memory',
        name: 'memory',
        key: 'memory',
        items: entries,
        defaultMode: vectors ? 'hybrid' : 'keyword',
        modes: vectors ? ['keyword', 'semantic', 'hybrid'] : ['keyword'],
        unavailable: entries ? null : 'memory is empty',
      },
    ];
  }

  async search(targets: readonly SourceTarget[], q: SourceQuery): Promise<SourceResult[]> {
    const started = performance.now();
    const notices: string[] = [];
    const done = (mode: KnowledgeMode | null, candidates: Candidate[], exhausted: boolean, total: number | null): SourceResult[] =>
      targets.length
        ? [{ source: 'memory', kind: 'memory', mode, candidates, exhausted, total, notices, tookMs: Math.round((performance.now() - started) * 100) / 100 }]
        : [];
    if (q.filters.kinds?.length && !q.filters.kinds.includes('memory')) {
      notices.push('skipped: its items are of kind memory');
      return done(null, [], true, 0);
    }
    // dates and tags go to memory's own filters (SQL); every tag must hold, memory matches any: checked on the hits
    const from = parseDateFilter(q.filters.date_from, 'filters.date_from');
    const to = parseDateFilter(q.filters.date_to, 'filters.date_to');
    const tags = q.filters.tags?.map((t) => t.trim().toLowerCase()).filter(Boolean) ?? [];
    const pathMatch = q.filters.path ? picomatch(q.filters.path, { dot: true, nocase: true }) : null;
    const keep = (h: MemoryHit) => {
      const has = new Set(h.entry.tags.map((t) => t.toLowerCase()));
      if (tags.some((t) => !has.has(t))) return false;
      const path = pathOf(h.entry);
      return !pathMatch || pathMatch(path) || pathMatch(h.entry.threadId);
    };
    const mode = q.mode === 'semantic' ? 'vector' : (q.mode ?? 'hybrid');
    const hits: MemoryHit[] = [];
    let last: MemorySearchResponse | null = null;
    for (let offset = 0; offset < q.depth; ) {
      const limit = Math.min(PAGE, q.depth - offset);
      last = await this.memory.search({
        query: q.query,
        mode,
        limit,
        offset,
        snippetChars: Math.max(40, q.snippetLength),
        ...(tags.length ? { tags } : {}),
        ...(q.sender ? { source: q.sender } : {}),
        ...(from !== undefined ? { startDate: new Date(from).toISOString() } : {}),
        ...(to !== undefined ? { endDate: new Date(to).toISOString() } : {}),
      });
      hits.push(...last.hits.filter(keep));
      if (!last.hasMore) break;
      offset += limit;
    }
    notices.push(...(last?.notices ?? []));
    const run: LegsRun = { keyword: last?.legs.keyword != null, vector: last?.legs.vector != null, bm25Scale: last?.bm25Scale ?? null };
    if (!run.keyword && !run.vector) run.keyword = true; // nothing ran (no page): say keyword
    const scores = calibrate(hits.map((h) => evidenceOf({ bm25: h.keyword?.bm25, cosine: h.vector?.cosine }, run)));
    const matcher = matcherFor(q.query);
    const candidates = hits.map((h, rank): Candidate => {
      const snippet = plainSnippet(h.snippet, q.snippetLength);
      return {
        item: {
          ...itemOf(h.entry),
          snippet,
          highlights: spansIn(snippet, matcher),
          score: roundScore(scores[rank]!),
          score_type: scoreTypeOf(run),
          loc: { chunk_index: h.entry.id, line_start: null, line_end: null },
        },
        score: scores[rank]!,
        modifiedMs: Date.parse(h.entry.updatedAt),
        rank,
        extra: { sender: h.entry.source },
      };
    });
    const ran: KnowledgeMode = run.keyword && run.vector ? 'hybrid' : run.vector ? 'semantic' : 'keyword';
    return done(ran, candidates, !last?.hasMore, last ? last.total : null);
  }

  async open(ref: ItemRef, scope: KnowledgeScope): Promise<SourceItem> {
    if (ref.source !== 'memory') throw new TroveError('INTERNAL', `memory cannot open a ${ref.source} item`);
    const missing = () => notFound(`no memory entry ${ref.entry}`);
    if (scope.memory === false) throw missing(); // as if it did not exist
    if (!/^[1-9]\d{0,15}$/.test(ref.entry)) throw invalidInput(`"${ref.entry}" is not a memory entry id (a positive whole number)`);
    let context;
    try {
      context = await this.memory.context(Number(ref.entry), { before: THREAD_WINDOW, after: THREAD_WINDOW });
    } catch (err) {
      if (err instanceof TroveError && err.code === 'NOT_FOUND') throw missing();
      throw err;
    }
    const thread = [...context.before, context.entry, ...context.after];
    let text = '';
    const chunks: ItemChunk[] = [];
    let line = 1;
    for (const e of thread) {
      if (text) {
        text += '\n\n';
        line += 2;
      }
      const message = `[${e.source} · ${e.createdAt}]\n${e.text.trim()}`;
      const lines = message.split('\n').length;
      chunks.push({ index: e.id, charStart: text.length, charEnd: text.length + message.length, lineStart: line, lineEnd: line + lines - 1 });
      text += message;
      line += lines - 1;
    }
    const e = context.entry;
    const attachments = [
      ...(Object.keys(e.metadata).length ? [{ type: 'metadata', metadata: e.metadata }] : []),
      ...(e.images.length ? [{ type: 'images', images: e.images.length, note: 'read them with get_context_by_ids (include_images)' }] : []),
    ];
    return Promise.resolve({
      meta: { ...itemOf(e), snippet: null, highlights: [], score: null, score_type: null, loc: null },
      text,
      chunks,
      version: `${thread.map((x) => `${x.id}@${x.updatedAt}`).join(',')}:${text.length}`,
      attachments: attachments.length ? attachments : null,
      defaultLoc: { chunk_index: e.id },
      extra: { sender: e.source },
    });
  }
}

/** Where an entry is, for attribution and path filters: its thread and its id. */
function pathOf(e: MemoryEntry): string {
  return `${e.threadId}/${e.id}`;
}

function itemOf(e: MemoryEntry) {
  return {
    id: String(e.id),
    source: 'memory',
    thread_id: e.threadId,
    title: titleOf(e),
    uri: memoryItemUri(String(e.id)),
    path: pathOf(e),
    created_at: e.createdAt,
    last_modified: e.updatedAt,
    version: null,
    tags: e.tags,
    kind: 'memory',
  } satisfies Omit<KnowledgeItem, 'snippet' | 'highlights' | 'score' | 'score_type' | 'loc'>;
}

/** metadata.title when the entry has one, else its first line, shortened. */
function titleOf(e: MemoryEntry): string {
  const t = e.metadata.title;
  if (typeof t === 'string' && t.trim()) return t.trim();
  const first = e.text.trim().split('\n')[0]!.replace(/\s+/g, ' ');
  return first.length > TITLE_CHARS ? `${first.slice(0, TITLE_CHARS - 1)}…` : first || `memory entry ${e.id}`;
}
