// The access_tokens tables on PostgreSQL (store/tokens.ts's rules: SHA-256 of each secret only,
// names case-insensitive, scopes by collection id, last use written at most once a minute).
import { hashTokenSecret, type TokenRow } from '../tokens.js';
import type { TokenRepository } from '../storage.js';
import type { MemoryGrant } from '../../types/memory.js';
import type { TokenProfile } from '../../types/access.js';
import type { PostgresDatabase } from './connection.js';

interface RawToken {
  id: number;
  name: string;
  hint: string;
  scoped: boolean;
  tools: string[] | null;
  memory: MemoryGrant;
  profile: TokenProfile;
  created_at: number;
  last_used_at: number | null;
  expires_at: number | null;
  collections: string[] | null;
}

const LAST_USED_RESOLUTION_MS = 60_000;

const SELECT = `SELECT t.*, (SELECT array_agg(c.name ORDER BY lower(c.name) COLLATE "C") FROM access_token_collections tc JOIN collections c ON c.id = tc.collection_id WHERE tc.token_id = t.id) AS collections
  FROM access_tokens t`;

const fromRaw = (r: RawToken): TokenRow => ({
  id: r.id,
  name: r.name,
  hint: r.hint,
  collections: r.scoped ? (r.collections ?? []) : null,
  tools: r.tools,
  memory: r.memory,
  profile: r.profile,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  expiresAt: r.expires_at ?? null,
});

export class PostgresTokens implements TokenRepository {
  private readonly lastTouched = new Map<number, number>();

  constructor(private readonly db: PostgresDatabase) {}

  async insert(t: { name: string; secret: string; collectionIds: number[] | null; tools: string[] | null; memory: MemoryGrant; profile?: TokenProfile; expiresAt?: number | null }): Promise<TokenRow> {
    await this.db.transaction(async (c) => {
      const r = await c.query<{ id: number }>(
        'INSERT INTO access_tokens (name, hash, hint, scoped, tools, memory, profile, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id',
        [t.name, hashTokenSecret(t.secret), t.secret.slice(0, 10), t.collectionIds !== null, t.tools ? JSON.stringify(t.tools) : null, t.memory, t.profile ?? 'standard', Date.now(), t.expiresAt ?? null],
      );
      if (t.collectionIds?.length) {
        await c.query('INSERT INTO access_token_collections (token_id, collection_id) SELECT $1, unnest($2::bigint[])', [r.rows[0]!.id, t.collectionIds]);
      }
    });
    const row = await this.byName(t.name);
    if (!row) throw new Error(`token ${t.name} vanished right after it was written`);
    return row;
  }

  async bySecret(secret: string): Promise<TokenRow | undefined> {
    const r = await this.db.one<RawToken>(`${SELECT} WHERE t.hash = $1`, [hashTokenSecret(secret)]);
    return r && fromRaw(r);
  }

  async byName(name: string): Promise<TokenRow | undefined> {
    const r = await this.db.one<RawToken>(`${SELECT} WHERE lower(t.name) = lower($1)`, [name]);
    return r && fromRaw(r);
  }

  async list(): Promise<TokenRow[]> {
    return (await this.db.query<RawToken>(`${SELECT} ORDER BY lower(t.name) COLLATE "C"`)).map(fromRaw);
  }

  async delete(id: number): Promise<void> {
    await this.db.query('DELETE FROM access_tokens WHERE id = $1', [id]);
    this.lastTouched.delete(id);
  }

  async touch(id: number, now = Date.now()): Promise<void> {
    if (now - (this.lastTouched.get(id) ?? 0) < LAST_USED_RESOLUTION_MS) return;
    this.lastTouched.set(id, now);
    await this.db.query('UPDATE access_tokens SET last_used_at = $1 WHERE id = $2', [now, id]);
  }
}
