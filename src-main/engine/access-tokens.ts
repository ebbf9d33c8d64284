// Named access tokens for the MCP endpoint: creation (scope, tools, memory grant, profile,
// expiry, checked here), listing, revoking and verifying a secret, over the storage interface's
// TokenRepository, so every host on a shared database honours the same tokens. The Engine facade
// delegates here.
import { validateName } from './collection-input.js';
import { invalidInput, notFound, TroveError } from './errors.js';
import type { TokenRepository } from './store/storage.js';
import { newTokenSecret, type TokenRow } from './store/tokens.js';
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
    private readonly tokens: TokenRepository,
    /** A collection's id by name; rejects with NOT_FOUND naming the collections there are. */
    private readonly collectionId: (name: string) => Promise<number>,
  ) {}

  /**
   * Returns the secret once; only its hash is stored. `memory` defaults to write for a token that
   * sees every collection and to none for one scoped to some (memory holds notes from every
   * conversation, which a scoped token's owner did not mean to share). `profile` deep-research:
   * its clients get exactly search + fetch.
   */
  async create(input: CreateTokenInput): Promise<{ token: string; info: TokenInfo }> {
    checkTokenInput(input);
    if (await this.tokens.byName(input.name)) throw tokenExists(input.name);
    const collectionIds = input.collections ? [...new Set(await Promise.all(input.collections.map((n) => this.collectionId(n))))] : null;
    const plan = newTokenRow(input, collectionIds);
    return { token: plan.secret, info: tokenInfo(await this.tokens.insert(plan)) };
  }

  async list(): Promise<TokenInfo[]> {
    return (await this.tokens.list()).map(tokenInfo);
  }

  async revoke(name: string): Promise<void> {
    const row = await this.tokens.byName(name);
    if (!row) throw noToken(name);
    await this.tokens.delete(row.id);
  }

  /** The token a secret belongs to, or null (unknown, malformed or expired); records its use. */
  async verify(secret: string): Promise<TokenInfo | null> {
    if (!plausibleSecret(secret)) return null;
    const row = await this.tokens.bySecret(secret);
    if (!row || expired(row)) return null;
    await this.tokens.touch(row.id);
    return tokenInfo(row);
  }
}

/** The checks a new token's input must pass before anything is read or written. */
export function checkTokenInput(input: CreateTokenInput): void {
  validateName(input.name, 'token');
  if (input.memory !== undefined && !['none', 'read', 'write'].includes(input.memory)) throw invalidInput(`memory must be none, read or write (got "${String(input.memory)}")`);
  if (input.profile !== undefined && input.profile !== 'standard' && input.profile !== 'deep-research') {
    throw invalidInput(`profile must be standard or deep-research (got ${String(input.profile)})`);
  }
  if (input.tools && (!input.tools.length || input.tools.some((t) => !/^[a-z][a-z0-9_.-]{0,63}$/.test(t)))) {
    throw invalidInput('tools must be a non-empty list of tool names such as search,get');
  }
  const days = input.expiresInDays;
  if (days !== undefined && !(Number.isFinite(days) && days > 0 && days <= 3650)) throw invalidInput('a token expires after 0 to 3650 days');
}

/** The row to insert for a checked input (a fresh secret; the memory grant's default by scope), and the secret. */
export function newTokenRow(input: CreateTokenInput, collectionIds: number[] | null): NewTokenRow {
  const days = input.expiresInDays;
  const secret = newTokenSecret();
  return {
    name: input.name,
    secret,
    collectionIds,
    tools: input.tools ? [...new Set(input.tools)] : null,
    memory: input.memory ?? (collectionIds ? 'none' : 'write'),
    profile: input.profile,
    expiresAt: days === undefined ? null : Date.now() + Math.round(days * 86_400_000),
  };
}

export interface NewTokenRow {
  name: string;
  secret: string;
  collectionIds: number[] | null;
  tools: string[] | null;
  memory: MemoryGrant;
  profile?: TokenProfile;
  expiresAt: number | null;
}

export const tokenExists = (name: string) => new TroveError('CONFLICT', `a token named "${name}" already exists`);
export const noToken = (name: string) => notFound(`no token named "${name}"`);
export const plausibleSecret = (secret: string) => secret.startsWith('trove_') && secret.length <= 200;
export const expired = (row: TokenRow) => row.expiresAt !== null && row.expiresAt <= Date.now();

export function tokenInfo(t: TokenRow): TokenInfo {
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
