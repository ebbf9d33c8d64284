// One line on what background indexing is doing for a collection, shared by `trove status` and
// the MCP status tool so a person and an assistant read the same words.
import type { CollectionActivity } from './indexing-service.js';

/** null when the collection is idle and nothing is waiting, failing or paused. */
export function describeActivity(a: CollectionActivity): string | null {
  const parts: string[] = [];
  const p = a.progress;
  if (p && (p.phase === 'scanning' || p.phase === 'indexing') && p.done < p.total) parts.push(`${p.phase} ${p.done}/${p.total} files`);
  if (a.queued) parts.push(`${a.queued} queued`);
  if (a.retrying) parts.push(`${a.retrying} retrying`);
  if (a.gaveUp) parts.push(`${a.gaveUp} gave up`);
  if (a.paused) parts.push('paused');
  return parts.length ? parts.join(', ') : null;
}
