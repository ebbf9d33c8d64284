// The knowledge-search spec's own vocabulary (../shared/specs/knowledge-search-retrieval.md),
// translated into Trove's sources so a client written against it works unchanged: its `sources`
// notes, media, chats, characters, prompts; its per-source `filters`; its items' per-source fields.
// notes and media are documents, told apart by kind (what a person writes as text files against
// what was parsed out of a format); chats are the memory's threads (a conversation is a thread, a
// message an entry); characters and prompts are libraries Trove does not have, so asking for them
// is skipped with a notice, never an error for the whole call. A per-source filter applies where
// it means something here (notes.keywords → tags, media.media_types → kinds, media's dates,
// chats.sender → who stored the entry) and is reported as ignored otherwise.
import { KNOWN_KINDS } from '../ingest/parsers/index.js';
import type { KnowledgeFilters, KnowledgeItem, KnowledgeSpecFilters, KnowledgeSpecSource } from '../types/knowledge.js';

export const SPEC_SOURCES: readonly KnowledgeSpecSource[] = ['notes', 'media', 'chats', 'characters', 'prompts'];

/** Document kinds a person writes as text: the spec's notes. Every other kind is media. */
export const NOTE_KINDS: readonly string[] = ['markdown', 'text', 'code'];
export const MEDIA_KINDS: readonly string[] = KNOWN_KINDS.filter((k) => !NOTE_KINDS.includes(k));

/**
 * The spec's suggested media types as Trove kinds. Types Trove never indexes map to none (a
 * notice says so); any other name is taken as a Trove kind (the spec allows free-form types).
 */
const MEDIA_TYPE_KINDS: Record<string, readonly string[]> = {
  pdf: ['pdf'],
  epub: ['epub'],
  docx: ['docx', 'doc'],
  pptx: ['pptx', 'ppt'],
  html: ['html'],
  article: ['html'],
  markdown: ['markdown'],
  txt: ['text'],
  video: [],
  audio: [],
  podcast: [],
  image: [],
};

/** A kind's name in the spec's media list (the reverse of MEDIA_TYPE_KINDS). */
export function mediaTypeOf(kind: string | null): string | null {
  if (kind === null) return null;
  if (kind === 'text') return 'txt';
  if (kind === 'doc') return 'docx';
  if (kind === 'ppt') return 'pptx';
  return kind;
}

export function isSpecSource(name: string): name is KnowledgeSpecSource {
  return (SPEC_SOURCES as readonly string[]).includes(name);
}

/** What the spec's `source` names in Trove (characters and prompts: nothing). */
export function troveSourceOf(source: KnowledgeSpecSource): 'documents' | 'memory' | null {
  return source === 'notes' || source === 'media' ? 'documents' : source === 'chats' ? 'memory' : null;
}

/** One thing a search asks for: a Trove selector, the filters of its run, and the spec's name for it when it was asked by one. */
export interface SourceAsk {
  selector: string;
  label: KnowledgeSpecSource | null;
  filters: KnowledgeFilters;
  /** chats.sender: only entries stored by this side. */
  sender?: 'user' | 'agent';
  /** Part of a default (no `sources`): left out quietly when it has nothing to search. */
  implicit: boolean;
}

export interface SourcePlan {
  /** null: Trove's own default, every source in scope. */
  asks: SourceAsk[] | null;
  notices: string[];
  /** The request used the spec's vocabulary: an empty answer is a result with notices, never an error. */
  spec: boolean;
}

/**
 * The asks a search's `sources` and `filters` make. Trove's selectors pass through with the
 * flat filters; the spec's names each become their own run with their own filters, so notes and
 * media (both documents) are searched with different kinds and merged like any two sources.
 */
export function planSources(sources: readonly string[] | null, flat: KnowledgeFilters, nested: KnowledgeSpecFilters): SourcePlan {
  const nestedKeys = (Object.keys(nested) as KnowledgeSpecSource[]).filter((k) => nested[k] !== undefined);
  const spec = !!sources?.some(isSpecSource) || nestedKeys.length > 0;
  if (!spec) return { asks: null, notices: [], spec: false };
  const notices: string[] = [];
  const named = sources ?? ['notes', 'media', 'chats', 'datasets'];
  const implicit = !sources;
  const asks: SourceAsk[] = [];
  for (const selector of named) {
    if (!isSpecSource(selector)) {
      asks.push({ selector, label: null, filters: flat, implicit });
      continue;
    }
    if (asks.some((a) => a.label === selector)) continue;
    const ask = specAsk(selector, flat, nested, notices, implicit);
    if (ask) asks.push(ask);
  }
  for (const key of nestedKeys) {
    if (named.includes(key)) continue;
    notices.push(`filters.${key} ignored: ${troveSourceOf(key) ? `${key} is not among the sources searched` : `Trove has no ${key}`}`);
  }
  return { asks, notices, spec: true };
}

function specAsk(source: KnowledgeSpecSource, flat: KnowledgeFilters, nested: KnowledgeSpecFilters, notices: string[], implicit: boolean): SourceAsk | null {
  const own = (nested[source] ?? {}) as Record<string, unknown>;
  const ignore = (key: string, why: string) => notices.push(`filters.${source}.${key} ignored: ${why}`);
  if (source === 'characters' || source === 'prompts') {
    const what = source === 'characters' ? 'character cards' : 'prompt library';
    notices.push(`${source} skipped: Trove has no ${what}; nothing of the kind is indexed${Object.keys(own).length ? ` (filters.${source} ignored)` : ''}`);
    return null;
  }
  if (source === 'notes') {
    const { keywords, ...rest } = own as { keywords?: string[] };
    for (const key of Object.keys(rest)) ignore(key, 'not a notes filter');
    const tags = [...(flat.tags ?? []), ...(keywords ?? [])];
    const kinds = narrow(NOTE_KINDS, flat.kinds);
    if (!kinds.length) return nothing('notes', notices);
    return { selector: 'documents', label: 'notes', filters: { ...flat, kinds, ...(tags.length ? { tags } : {}) }, implicit };
  }
  if (source === 'media') {
    const { media_types, date_from, date_to, order_by, ...rest } = own as { media_types?: string[]; date_from?: string; date_to?: string; order_by?: string };
    for (const key of Object.keys(rest)) ignore(key, 'not a media filter');
    if (order_by !== undefined) ignore('order_by', 'the top-level order_by orders the one merged list');
    let kinds = narrow(MEDIA_KINDS, flat.kinds);
    if (media_types?.length) {
      const asked = new Set<string>();
      const none: string[] = [];
      for (const t of media_types) {
        const mapped = MEDIA_TYPE_KINDS[t.trim().toLowerCase()] ?? [t.trim().toLowerCase()];
        if (!mapped.length) none.push(t);
        for (const k of mapped) asked.add(k);
      }
      if (none.length) notices.push(`media: Trove indexes no ${none.join(', ')} files; ${none.length === 1 ? 'that type matches' : 'those types match'} nothing`);
      const unknown = [...asked].filter((k) => !KNOWN_KINDS.includes(k));
      if (unknown.length) notices.push(`media: no document is of type ${unknown.join(', ')} (types: ${Object.keys(MEDIA_TYPE_KINDS).join(', ')}, or a kind: ${KNOWN_KINDS.join(', ')})`);
      kinds = narrow([...asked], flat.kinds);
    }
    if (!kinds.length) return nothing('media', notices);
    const dates = { ...(date_from !== undefined ? { date_from } : {}), ...(date_to !== undefined ? { date_to } : {}) };
    return { selector: 'documents', label: 'media', filters: { ...flat, ...dates, kinds }, implicit };
  }
  // chats: the memory's threads
  const { by, character_id, sender, ...rest } = own as { by?: string; character_id?: number; sender?: string };
  for (const key of Object.keys(rest)) ignore(key, 'not a chats filter');
  if (by === 'title') ignore('by', 'conversations have no titles here; their messages were searched');
  if (character_id !== undefined) ignore('character_id', 'Trove has no characters');
  const side = sender === undefined ? undefined : senderSide(sender);
  if (sender !== undefined && !side) ignore('sender', `"${sender}" is neither user nor agent (assistant), the two sides an entry is stored by`);
  return { selector: 'memory', label: 'chats', filters: flat, ...(side ? { sender: side } : {}), implicit };
}

/** A source whose filters leave no kind to search (an empty kinds filter would mean every kind). */
function nothing(source: KnowledgeSpecSource, notices: string[]): null {
  notices.push(`${source}: no document kind is left to search with these filters`);
  return null;
}

/** The kinds of a spec source, narrowed by the flat `kinds` filter when one is given (an empty list matches nothing). */
function narrow(kinds: readonly string[], flat: readonly string[] | undefined): string[] {
  return flat?.length ? kinds.filter((k) => flat.includes(k)) : [...kinds];
}

function senderSide(sender: string): 'user' | 'agent' | undefined {
  const s = sender.trim().toLowerCase();
  if (s === 'user' || s === 'human') return 'user';
  if (s === 'agent' || s === 'assistant' || s === 'ai' || s === 'bot') return 'agent';
  return undefined;
}

/** An item as the spec's per-source shapes give it: its source's name, and media's and chats' own fields. */
export function specItem(item: KnowledgeItem, label: KnowledgeSpecSource, extra: { sender?: string } | undefined): KnowledgeItem {
  if (label === 'media') return { ...item, source: label, media_type: mediaTypeOf(item.kind), url: null };
  if (label === 'chats') return { ...item, source: label, conversation_id: item.thread_id ?? null, message_id: item.id, sender: extra?.sender ?? null };
  return { ...item, source: label };
}

/** The spec's name for a documents item read by knowledge.get {source: notes | media}: by its kind. */
export function documentLabel(kind: string | null): 'notes' | 'media' {
  return kind !== null && NOTE_KINDS.includes(kind) ? 'notes' : 'media';
}
