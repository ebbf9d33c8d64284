// Access tokens in a shared index (store/storage.ts's TokenRepository: PostgreSQL), so every host
// on the database honours the same tokens: the same checks, defaults and answers as
// access-tokens.ts (whose pure parts it uses), with awaited reads and writes.
import { checkTokenInput, expired, newTokenRow, noToken, plausibleSecret, tokenExists, tokenInfo, type CreateTokenInput } from '../access-tokens.js';
import type { TokenRepository } from '../store/storage.js';
import type { TokenInfo } from '../types/index.js';

export class SharedTokens {
  constructor(
    private readonly tokens: TokenRepository,
    /** A collection's id by name; rejects with NOT_FOUND naming the collections there are. */
    private readonly collectionId: (name: string) => Promise<number>,
  ) {}

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
