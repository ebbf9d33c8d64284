// Merging sources' calibrated results into one ranked list, and cutting a page from it.
// relevance: by score (comparable across sources, see calibrate.ts), one source's own order
// kept, ties by last_modified (newest first); recent: by last_modified alone (undated last).
import type { KnowledgeOrder } from '../types/knowledge.js';
import type { Candidate, SourceResult } from './sources/source.js';

export interface Merged extends Candidate {
  run: number;
}

export function mergeRuns(runs: readonly SourceResult[], order: KnowledgeOrder): Merged[] {
  const all: Merged[] = runs.flatMap((r, run) => r.candidates.map((c) => ({ ...c, run })));
  const newer = (a: Merged, b: Merged) => (b.modifiedMs ?? -Infinity) - (a.modifiedMs ?? -Infinity);
  const stable = (a: Merged, b: Merged) => a.run - b.run || a.rank - b.rank;
  if (order === 'recent') return all.sort((a, b) => newer(a, b) || b.score - a.score || stable(a, b));
  return all.sort((a, b) => {
    if (b.score !== a.score) return b.score - a.score;
    if (a.run === b.run) return a.rank - b.rank;
    return newer(a, b) || stable(a, b);
  });
}

/** The merged list with each URI once, at its best place (two runs may find one item: the spec's notes and media). */
export function uniqueByUri(merged: Merged[]): Merged[] {
  const seen = new Set<string>();
  return merged.filter((m) => !seen.has(m.item.uri) && !!seen.add(m.item.uri));
}

export interface Page {
  items: Merged[];
  /** Where the next page starts in the merged list (past every item this one consumed). */
  next: number;
  /** Excluded items passed over. */
  skipped: number;
  /** Items after `next` that are not excluded. */
  more: boolean;
}

/** `limit` items from `offset` on, passing over excluded URIs. */
export function cutPage(merged: readonly Merged[], offset: number, limit: number, exclude: ReadonlySet<string>): Page {
  const items: Merged[] = [];
  let skipped = 0;
  let i = offset;
  for (; i < merged.length && items.length < limit; i++) {
    if (exclude.has(merged[i]!.item.uri)) skipped++;
    else items.push(merged[i]!);
  }
  let more = false;
  for (let j = i; j < merged.length && !more; j++) more = !exclude.has(merged[j]!.item.uri);
  return { items, next: i, skipped, more };
}
