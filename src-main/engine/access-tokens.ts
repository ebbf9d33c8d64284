// Named access tokens for the MCP endpoint: creation (scope, tools, memory grant, profile,
// expiry, checked here), listing, revoking and verifying a secret. The table and its hashing live
// in store/tokens.ts; the Engine facade delegates here.
import { validateName } from './collection-input.js';
import { invalidInput, notFound, TroveError } from './errors.js';
import { newTokenSecret, type TokenRow, type TokenStore } from './store/tokens.js';
import type { MemoryGrant, TokenInfo, TokenProfile } from './types/index.js';

export interface CreateTokenInput {
  name: string;
  collections?: string[];
  tools?: string[];
  memory?: MemoryGrant;
  profile?: TokenProfile;
  expiresInDays?: number;
}

export class AccessTokens {
  constructor(
    private readonly tokens: TokenStore,
    /** A collection's id by name; throws NOT_FOUND naming the collections there are. */
    private readonly collectionId: (name: string) => number,
  ) {}

  /**
   * Returns the secret once; only its hash is stored. `memory` defaults to write for a token that
   * sees every collection and to none for one scoped to some (memory holds notes from every
   * conversation, which a scoped token's owner did not mean to share). `profile` deep-research:
   * its clients get exactly search + fetch.
   */
  create(input: CreateTokenInput): { token: string; info: TokenInfo } {
    validateName(input.name, 'token');
    if (input.memory !== undefined && !['none', 'read', 'write'].includes(input.memory)) throw invalidInput(`memory must be none, read or write (got "${String(input.memory)}")`);
    if (input.profile !== undefined && input.profile !== 'standard' && input.profile !== 'deep-research') {
      throw invalidInput(`profile must be standard or deep-research (got ${String(input.profile)})`);
    }
    if (this.tokens.byName(input.name)) throw new TroveError('CONFLICT', `a token named "${input.name}" already exists`);
    const collectionIds = input.collections ? [...new Set(input.collections.map((n) => this.collectionId(n)))] : null;
    if (input.tools && (!input.tools.length || input.tools.some((t) => !/^[a-z][a-z0-9_.-]{0,63}$/.test(t)))) {
      throw invalidInput('tools must be a non-empty list of tool names such as search,get');
    }
    const days = input.expiresInDays;
    if (days !== undefined && !(Number.isFinite(days) && days > 0 && days <= 3650)) throw invalidInput('a token expires after 0 to 3650 days');
    const expiresAt = days === undefined ? null : Date.now() + Math.round(days * 86_400_000);
    const memory = input.memory ?? (collectionIds ? 'none' : 'write');
    const token = newTokenSecret();
    const tools = input.tools ? [...new Set(input.tools)] : null;
    const row = this.tokens.insert({ name: input.name, secret: token, collectionIds, tools, memory, profile: input.profile, expiresAt });
    return { token, info: tokenInfo(row) };
  }

  list(): TokenInfo[] {
    return this.tokens.list().map(tokenInfo);
  }

  revoke(name: string): void {
    const row = this.tokens.byName(name);
    if (!row) throw notFound(`no token named "${name}"`);
    this.tokens.delete(row.id);
  }

  /** The token a secret belongs to, or null (unknown, malformed or expired); records its use. */
  verify(secret: string): TokenInfo | null {
    if (!secret.startsWith('trove_') || secret.length > 200) return null;
    const row = this.tokens.bySecret(secret);
    if (!row || (row.expiresAt !== null && row.expiresAt <= Date.now())) return null;
    this.tokens.touch(row.id);
    return tokenInfo(row);
  }
}

function tokenInfo(t: TokenRow): TokenInfo {
  return {
    name: t.name,
    hint: t.hint,
    collections: t.collections,
    tools: t.tools,
    memory: t.memory,
    profile: t.profile,
    createdAt: new Date(t.createdAt).toISOString(),
    lastUsedAt: t.lastUsedAt ? new Date(t.lastUsedAt).toISOString() : null,
    expiresAt: t.expiresAt ? new Date(t.expiresAt).toISOString() : null,
  };
}
