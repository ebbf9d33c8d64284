// Named access tokens. Types only (see collections.ts).
import type { MemoryGrant } from './memory.js';

/** A named access token as listed (the secret itself is only ever returned by createToken). */
export interface TokenInfo {
  name: string;
  /** The secret's first characters, to recognise it. */
  hint: string;
  /** null: every collection. */
  collections: string[] | null;
  /** null: every tool. */
  tools: string[] | null;
  /** What it may do with the agent memory store (within its tool allow-list). */
  memory: MemoryGrant;
  /** standard: the canonical MCP tools; deep-research: exactly search + fetch (ChatGPT-style connectors). */
  profile: TokenProfile;
  createdAt: string;
  lastUsedAt: string | null;
  /** ISO time after which the token is refused; null: never. */
  expiresAt: string | null;
}

export type TokenProfile = 'standard' | 'deep-research';
