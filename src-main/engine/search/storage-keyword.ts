// Keyword search over the storage interface (store/storage.ts): the same plan (plan.ts's tiers),
// the same collapse to documents, tiered 0..1 scores, pagination and snippets as lexical.ts, with
// every read an awaited repository call, so it runs on PostgreSQL. The SQLite engine keeps
// lexical.ts (synchronous, native rank, cached statements); this is the path the engine moves onto
// with the storage refactor. Every syntax: match and prefix through the planner's steps, phrase and
// boolean as one expression step (query.ts's tree), ranked by BM25 over the expression's words.
import { TroveError } from '../errors.js';
import type { KeywordIndex } from '../store/keyword-index.js';
import type { KeywordCounts, KeywordStep, PlannedKeywordTerm, Storage } from '../store/storage.js';
import type { ResolvedFilters } from './filters.js';
import { normalise, tiered, type LexicalHit, type LexicalRequest, type LexicalResult } from './lexical.js';
import { rankedPage, planSteps, type PlannedTerm, type PlanStep } from './plan.js';
import { keywordTerm, parseQuery, type QueryTerm } from './query.js';
import { snippetAround, TermMatcher } from './snippet.js';
import { pageAnchors, type PageAnchor } from './storage-anchors.js';

interface DocCandidate {
  documentId: number;
  chunkId: number;
  rank: number;
  chunks: number;
}

const MAX_CHUNK_FETCH = 20_000;
const DF_CACHE_SIZE = 5_000;

export class StorageKeywordSearch {
  /** The index's row count and average length, and term counts, until the index changes (changed()). */
  private counts: Promise<KeywordCounts> | null = null;
  private readonly df = new Map<string, Promise<number>>();

  constructor(
    private readonly storage: Storage,
    private readonly index: KeywordIndex = 'chunks_fts',
  ) {}

  /** The index changed (this host wrote, or another host's NOTIFY): counts are taken again. */
  changed(): void {
    this.counts = null;
    this.df.clear();
  }

  async search(req: LexicalRequest): Promise<LexicalResult> {
    const parsed = parseQuery(req.query, req.syntax);
    const repo = this.storage.keyword(this.index);
    const counts = await (this.counts ??= repo.counts().catch((err: unknown) => {
      this.counts = null;
      throw err;
    }));
    let plan: { steps: { name: string; expression: string; match: KeywordStep }[]; dropped: PlannedTerm[]; bm25Bound: number; termCoverage: number };
    let excluded: Set<number> | null = null;
    if (parsed.kind === 'terms') {
      const planned: PlannedTerm[] = await Promise.all(parsed.terms.map(async (t) => ({ ...t, df: await this.documentFrequency(t) })));
      const p = planSteps(planned, counts.rows);
      plan = { ...p, steps: p.steps.map((step) => ({ name: step.name, expression: step.expression, match: termStep(step) })) };
    } else {
      // one step: the rows matching the expression, scored as BM25 of its (positive) words
      const words = [...new Map(parsed.highlight.map((t) => [`${t.prefix ? '*' : ''}${keywordTerm(t).term}`, t])).values()];
      const terms = await Promise.all(words.map(async (t) => ({ ...keywordTerm(t), df: await this.documentFrequency(t) })));
      plan = { steps: [{ name: 'expression', expression: parsed.expression, match: { op: 'expression', expression: parsed.tree, terms } }], dropped: [], bm25Bound: 0, termCoverage: 0 };
      if (parsed.excludeTree) excluded = await repo.documentsMatching(parsed.excludeTree);
    }
    const needed = req.offset + req.limit + 1; // one more than the page tells us whether there is more
    const docs: DocCandidate[] = [];
    const tierOf = new Map<number, number>();
    let exhausted = true;
    let last: (typeof plan.steps)[number] | undefined;
    for (const [tier, step] of plan.steps.entries()) {
      last = step;
      const found = await this.collect(step.match, req.filters, needed, counts);
      exhausted = found.exhausted;
      for (const d of found.docs) {
        if (tierOf.has(d.documentId) || excluded?.has(d.documentId)) continue;
        tierOf.set(d.documentId, tier);
        docs.push(d);
      }
      if (docs.length >= needed) break;
    }
    const planInfo = { strategy: last?.name ?? 'none', expression: last?.expression ?? '', dropped: plan.dropped.map((t) => t.token.text) };
    const bm25Scale = parsed.kind === 'terms' ? { bound: plan.bm25Bound, coverage: plan.termCoverage } : null;
    if (!docs.length) return { hits: [], hasMore: false, nextOffset: null, totalEstimated: 0, plan: planInfo, bm25Scale };

    const raws = docs.map((d) => -d.rank);
    const scores = normalise(tiered(raws, docs.map((d) => tierOf.get(d.documentId)!)));
    const matcher = new TermMatcher(parsed.highlight);
    const { page, ...rest } = rankedPage(docs.map((d, i) => ({ d, score: scores[i]!, raw: raws[i]! })), req, exhausted, needed);
    const anchors = await pageAnchors(this.storage, page.map(({ d }) => d), req.snippets !== false || !!req.explain);
    const hits = page.map(({ d, score, raw }) => {
      const a = anchors.get(d.chunkId);
      if (!a) throw new TroveError('CONFLICT', 'the index changed during the search; search again');
      return this.hit(d, a, score, raw, matcher, req, planInfo);
    });
    return {
      hits,
      ...rest,
      plan: planInfo,
      bm25Scale,
    };
  }

  private documentFrequency(t: QueryTerm): Promise<number> {
    const term = keywordTerm(t);
    const key = `${term.prefix ? '*' : ''}${term.term}`;
    let df = this.df.get(key);
    if (!df) {
      if (this.df.size >= DF_CACHE_SIZE) this.df.clear();
      df = this.storage.keyword(this.index).documentFrequency(term);
      df.catch(() => this.df.delete(key));
      this.df.set(key, df);
    }
    return df;
  }

  /** Ranked chunks of one step until `needed` distinct documents are found (or nothing more matches). */
  private async collect(match: KeywordStep, filters: ResolvedFilters, needed: number, counts: KeywordCounts): Promise<{ docs: DocCandidate[]; exhausted: boolean }> {
    const repo = this.storage.keyword(this.index);
    for (let limit = needed * 4 + 16; ; limit *= 4) {
      const rows = await repo.candidates(match, filters, limit, counts);
      const byDoc = new Map<number, DocCandidate>();
      for (const row of rows) {
        const d = byDoc.get(row.documentId);
        if (d) d.chunks++;
        else byDoc.set(row.documentId, { documentId: row.documentId, chunkId: row.chunkId, rank: row.rank, chunks: 1 });
      }
      const exhausted = rows.length < limit;
      if (exhausted || byDoc.size >= needed || limit >= MAX_CHUNK_FETCH) return { docs: [...byDoc.values()], exhausted };
    }
  }

  private hit(d: DocCandidate, a: PageAnchor, score: number, raw: number, matcher: TermMatcher, req: LexicalRequest, plan: LexicalResult['plan']): LexicalHit {
    const { chunk, doc, collection, text: body } = a;
    const snippet =
      req.snippets === false
        ? { text: '', line: chunk.lineStart, highlights: [] }
        : snippetAround(body, chunk.charStart, chunk.charEnd, chunk.lineStart, matcher, req.snippetChars);
    const hit: LexicalHit = {
      documentId: doc.id,
      chunkId: chunk.id,
      docid: doc.docid,
      collection,
      path: doc.path,
      title: doc.title,
      kind: doc.kind,
      tags: doc.tags,
      modifiedMs: doc.mtimeMs,
      score: round(score),
      bm25: round(raw),
      snippet: snippet.text,
      highlights: snippet.highlights,
      line: snippet.line,
      page: chunk.page,
      chunk: { ordinal: chunk.ordinal, lineStart: chunk.lineStart, lineEnd: chunk.lineEnd, headingPath: chunk.headingPath, page: chunk.page },
      signals: { bm25: raw },
    };
    if (req.explain) {
      hit.explain = {
        bm25: round(raw),
        strategy: plan.strategy,
        expression: plan.expression,
        fields: {
          title: matcher.termsIn(doc.title),
          headings: matcher.termsIn(chunk.headingPath.join('\n')),
          body: matcher.termsIn(body.slice(chunk.charStart, chunk.charEnd)),
        },
        matchedChunks: d.chunks,
      };
    }
    return hit;
  }
}

/** A planner step as data: every term, or any of them. */
function termStep(step: PlanStep): KeywordStep {
  const terms: PlannedKeywordTerm[] = (step.terms ?? []).map((t) => ({ ...keywordTerm(t), df: t.df }));
  return { op: step.name === 'any-term' ? 'or' : 'and', terms };
}

function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}
