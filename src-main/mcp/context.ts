// What every tool, resource and prompt handler gets: the index it serves (the SQLite engine or an
// index in PostgreSQL: engine's Engine), the caller's access scope, a short-lived directory of
// collection names and context notes (read once a second, not per search result), and who the
// caller is for the knowledge tools (client, profile, sessions).
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

/** The collections as the directory last read them. */
export class CollectionNotes {
  constructor(private readonly entries: readonly Entry[]) {}

  /** Collection names the caller may see. */
  names(access: Access): string[] {
    return this.entries.filter((e) => canSeeCollection(access, e.name)).map((e) => e.name);
  }

  context(collection: string): string {
    return this.entries.find((e) => e.name === collection)?.context ?? '';
  }
}

export class CollectionDirectory {
  private cached: { at: number; notes: CollectionNotes } | null = null;
  private reading: Promise<CollectionNotes> | null = null;

  constructor(
    private readonly index: Engine,
    private readonly ttlMs = 1000,
  ) {}

  /** The names and notes, read again when older than the TTL (one read for every caller waiting then). */
  async notes(): Promise<CollectionNotes> {
    if (this.cached && Date.now() - this.cached.at <= this.ttlMs) return this.cached.notes;
    this.reading ??= (async () => {
      try {
        const notes = new CollectionNotes(await this.index.collectionNotes());
        this.cached = { at: Date.now(), notes };
        return notes;
      } finally {
        this.reading = null;
      }
    })();
    return this.reading;
  }
}
