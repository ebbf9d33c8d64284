// The access_tokens tables: named bearer tokens for the MCP endpoint, each optionally limited to
// some collections and some tools, with a grant on the agent memory store. Only a SHA-256 of each
// secret is kept; the secret is shown once.
import { createHash, randomBytes } from 'node:crypto';
import type { MemoryGrant } from '../types/memory.js';
import type { TokenProfile } from '../types/access.js';
import type { Db } from './database.js';

export interface TokenRow {
  id: number;
  name: string;
  hint: string;
  /** null: every collection; otherwise the names of the collections it may see (possibly none). */
  collections: string[] | null;
  /** null: every tool. */
  tools: string[] | null;
  memory: MemoryGrant;
  profile: TokenProfile;
  createdAt: number;
  lastUsedAt: number | null;
  /** null: never expires. */
  expiresAt: number | null;
}

interface RawToken {
  id: number;
  name: string;
  hint: string;
  scoped: number;
  tools: string | null;
  memory: MemoryGrant;
  profile: string;
  created_at: number;
  last_used_at: number | null;
  expires_at: number | null;
}

/** Tokens look like `trove_` + 43 base64url characters (256 random bits). */
export function newTokenSecret(): string {
  return `trove_${randomBytes(32).toString('base64url')}`;
}

export function hashTokenSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** last_used_at is advisory: writing it on every request would put a commit on the hot path. */
const LAST_USED_RESOLUTION_MS = 60_000;

export class TokenStore {
  private readonly insertStmt;
  private readonly linkStmt;
  private readonly byHashStmt;
  private readonly byNameStmt;
  private readonly allStmt;
  private readonly collectionsStmt;
  private readonly deleteStmt;
  private readonly touchStmt;
  private readonly lastTouched = new Map<number, number>();

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare<[string, string, string, number, string | null, MemoryGrant, string, number, number | null], { id: number }>(
      'INSERT INTO access_tokens (name, hash, hint, scoped, tools, memory, profile, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id',
    );
    this.linkStmt = db.prepare('INSERT INTO access_token_collections (token_id, collection_id) VALUES (?, ?)');
    this.byHashStmt = db.prepare<[string], RawToken>('SELECT * FROM access_tokens WHERE hash = ?');
    this.byNameStmt = db.prepare<[string], RawToken>('SELECT * FROM access_tokens WHERE name = ?');
    this.allStmt = db.prepare<[], RawToken>('SELECT * FROM access_tokens ORDER BY name');
    this.collectionsStmt = db.prepare<[number], { name: string }>(
      `SELECT c.name FROM access_token_collections tc JOIN collections c ON c.id = tc.collection_id
       WHERE tc.token_id = ? ORDER BY c.name`,
    );
    this.deleteStmt = db.prepare('DELETE FROM access_tokens WHERE id = ?');
    this.touchStmt = db.prepare('UPDATE access_tokens SET last_used_at = ? WHERE id = ?');
  }

  insert(t: { name: string; secret: string; collectionIds: number[] | null; tools: string[] | null; memory: MemoryGrant; profile?: TokenProfile; expiresAt?: number | null }): TokenRow {
    const id = this.db.transaction(() => {
      const row = this.insertStmt.get(
        t.name,
        hashTokenSecret(t.secret),
        t.secret.slice(0, 10),
        t.collectionIds ? 1 : 0,
        t.tools ? JSON.stringify(t.tools) : null,
        t.memory,
        t.profile ?? 'standard',
        Date.now(),
        t.expiresAt ?? null,
      )!;
      for (const cid of t.collectionIds ?? []) this.linkStmt.run(row.id, cid);
      return row.id;
    })();
    return this.byName(t.name) ?? this.fail(id);
  }

  bySecret(secret: string): TokenRow | undefined {
    const r = this.byHashStmt.get(hashTokenSecret(secret));
    return r && this.fromRaw(r);
  }

  byName(name: string): TokenRow | undefined {
    const r = this.byNameStmt.get(name);
    return r && this.fromRaw(r);
  }

  list(): TokenRow[] {
    return this.allStmt.all().map((r) => this.fromRaw(r));
  }

  delete(id: number): void {
    this.deleteStmt.run(id);
    this.lastTouched.delete(id);
  }

  /** Records use, at most once a minute per token. */
  touch(id: number, now = Date.now()): void {
    if (now - (this.lastTouched.get(id) ?? 0) < LAST_USED_RESOLUTION_MS) return;
    this.lastTouched.set(id, now);
    this.touchStmt.run(now, id);
  }

  private fromRaw(r: RawToken): TokenRow {
    return {
      id: r.id,
      name: r.name,
      hint: r.hint,
      collections: r.scoped ? this.collectionsStmt.all(r.id).map((c) => c.name) : null,
      tools: r.tools ? (JSON.parse(r.tools) as string[]) : null,
      memory: r.memory,
      profile: r.profile === 'deep-research' ? 'deep-research' : 'standard',
      createdAt: r.created_at,
      lastUsedAt: r.last_used_at,
      expiresAt: r.expires_at,
    };
  }

  private fail(id: number): never {
    throw new Error(`token ${id} vanished right after it was written`);
  }
}
