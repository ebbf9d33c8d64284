// What every tool, resource and prompt handler gets: the engine, the caller's access scope, a
// short-lived directory of collection names and context notes (read once a second, not per
// search result), and who the caller is for the knowledge tools (client, profile, sessions).
import type { Engine } from '../engine/index.js';
import type { KnowledgeCaller } from './knowledge/caller.js';
import type { Access } from './security/access.js';
import { canSeeCollection } from './security/access.js';

export interface McpContext {
  readonly engine: Engine;
  readonly access: Access;
  readonly directory: CollectionDirectory;
  /** The knowledge tools' view of this caller: client, profile, sessions. */
  readonly knowledge: KnowledgeCaller;
}

interface Entry {
  name: string;
  context: string;
}

export class CollectionDirectory {
  private cached: { at: number; entries: Entry[] } | null = null;

  constructor(
    private readonly engine: Engine,
    private readonly ttlMs = 1000,
  ) {}

  /** Collection names the caller may see. */
  names(access: Access): string[] {
    return this.entries()
      .filter((e) => canSeeCollection(access, e.name))
      .map((e) => e.name);
  }

  context(collection: string): string {
    return this.entries().find((e) => e.name === collection)?.context ?? '';
  }

  private entries(): Entry[] {
    const now = Date.now();
    if (!this.cached || now - this.cached.at > this.ttlMs) {
      this.cached = { at: now, entries: this.engine.collectionNotes() };
    }
    return this.cached.entries;
  }
}
