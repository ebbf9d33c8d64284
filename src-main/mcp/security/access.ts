// What one caller may see: every collection and tool (the host's own runtime token), or the
// collections and tools a named token was limited to, and what it may do with agent memory
// (none, read: the search/get/list/statistics tools, write: all of them). Every tool, resource,
// completion and status answer goes through this, so a scoped token never learns that other
// collections exist, and a token without a memory grant never sees a memory tool.
import type { MemoryGrant, TokenInfo } from '../../engine/index.js';
import { notFound } from '../../engine/index.js';

export interface Access {
  /** Identity for sessions and rate limits; never collides between the runtime token and a named one. */
  readonly key: string;
  /** Who: "runtime" for the host's own token, else the token's name. Never the secret. */
  readonly name: string;
  /** null: every collection. */
  readonly collections: readonly string[] | null;
  /** null: every tool. */
  readonly tools: readonly string[] | null;
  readonly memory: MemoryGrant;
  /** deep-research: the token's clients get exactly search + fetch (set on the Connect screen). */
  readonly profile?: 'standard' | 'deep-research';
}

export const FULL_ACCESS: Access = Object.freeze({ key: 'runtime', name: 'runtime', collections: null, tools: null, memory: 'write' });

export function accessFromToken(t: TokenInfo): Access {
  return Object.freeze({ key: `token:${t.name.toLowerCase()}`, name: t.name, collections: t.collections, tools: t.tools, memory: t.memory, profile: t.profile });
}

/** A memory tool the caller may use: its grant covers the tool's kind and its tool list (if any) names it. */
export function canUseMemoryTool(access: Access, tool: string, kind: 'read' | 'write'): boolean {
  const granted = access.memory === 'write' || (access.memory === 'read' && kind === 'read');
  return granted && canUseTool(access, tool);
}

export function canSeeCollection(access: Access, name: string): boolean {
  return access.collections === null || access.collections.some((c) => c.toLowerCase() === name.toLowerCase());
}

export function canUseTool(access: Access, tool: string): boolean {
  return access.tools === null || access.tools.includes(tool);
}

/**
 * The collection filter for an engine call: the one the caller asked for (when it may see it),
 * else its allow-list, else undefined (everything). A collection outside the scope is reported
 * exactly like one that does not exist.
 */
export function collectionFilter(access: Access, requested?: string): string[] | undefined {
  if (requested !== undefined) {
    if (!canSeeCollection(access, requested)) throw notFound(`no collection named "${requested}"`);
    return [requested];
  }
  return access.collections === null ? undefined : [...access.collections];
}
