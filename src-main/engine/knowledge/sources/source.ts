// What the aggregator asks of a source kind (documents, datasets, memory): which targets a
// scope can see, a ranked and calibrated search over some of them, and one item's text and
// chunks for knowledge.get. Adding a source kind is implementing this and registering it in
// KnowledgeService; nothing else in the room changes.
import type { TermMatcher } from '../../search/snippet.js';
import type {
  KnowledgeAnchor,
  KnowledgeFilters,
  KnowledgeItem,
  KnowledgeMode,
  KnowledgeScope,
  KnowledgeSourceInfo,
  KnowledgeSourceKind,
} from '../../types/knowledge.js';
import type { ItemChunk } from '../retrieval.js';
import type { ItemRef } from '../uri.js';

/** One thing a selector can name: a collection, a dataset, the memory store. */
export interface SourceTarget extends KnowledgeSourceInfo {
  /** The source's own handle for it (a collection id, a dataset id). */
  key: string | number;
}

export interface SourceQuery {
  query: string;
  /** How many results, best first (the merge pages through them). */
  depth: number;
  snippetLength: number;
  /** null: the source's default (hybrid where it has vectors, else keyword). */
  mode: KnowledgeMode | null;
  filters: KnowledgeFilters;
  /** Memory only (the spec's chats.sender): entries stored by this side. */
  sender?: 'user' | 'agent';
}

/** What an item's source knows that the common shape leaves out: the spec's per-source fields are made from it (spec-sources.ts). */
export interface ItemExtra {
  /** A memory entry's side: user or agent. */
  sender?: string;
}

/** A calibrated result as the merge sees it; `item.score` is already on the common scale. */
export interface Candidate {
  item: KnowledgeItem;
  /** Unrounded calibrated score (item.score is rounded for display). */
  score: number;
  modifiedMs: number | null;
  /** Position in its source's own ranking (0-based). */
  rank: number;
  extra?: ItemExtra;
}

export interface SourceResult {
  /** The selector this run answers for (`documents`, `documents:notes`, `datasets:<id>`, `memory`). */
  source: string;
  kind: KnowledgeSourceKind;
  /** What ran (null: the source could not run; see notices). */
  mode: KnowledgeMode | null;
  candidates: Candidate[];
  /** Nothing ranks below the last candidate. */
  exhausted: boolean;
  total: number | null;
  notices: string[];
  tookMs: number;
}

/** An item's text for knowledge.get, with its own chunks when it has them. */
export interface SourceItem {
  meta: KnowledgeItem;
  text: string;
  /** null: none of its own (chunk on the fly). */
  chunks: ItemChunk[] | null;
  /** Changes whenever the text does (full-mode cursors carry it). */
  version: string;
  attachments: Record<string, unknown>[] | null;
  /** Where to anchor when the caller names no loc (a memory entry's own message in its thread); else the light search. */
  defaultLoc?: KnowledgeAnchor;
  extra?: ItemExtra;
}

export interface KnowledgeSource {
  readonly kind: KnowledgeSourceKind;
  /**
   * Every target this scope may see, in a stable order. Item counts and modes only with
   * `detail` (a listing); a search needs names and keys, and asks about vectors itself. A promise
   * where the index is a round trip away (documents on PostgreSQL).
   */
  targets(scope: KnowledgeScope, opts?: { detail?: boolean }): Promise<SourceTarget[]>;
  /** One or more runs over the chosen targets (documents searches its collections together). */
  search(targets: readonly SourceTarget[], q: SourceQuery): Promise<SourceResult[]>;
  /** The item a ref names, if this scope may see it (NOT_FOUND otherwise, as if it did not exist). */
  open(ref: ItemRef, scope: KnowledgeScope): Promise<SourceItem>;
  /** Snippet words: how this source would highlight the query (optional). */
  matcher?(query: string): TermMatcher | null;
}
