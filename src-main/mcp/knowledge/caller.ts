// Who a knowledge tool call comes from and what it carries: the client (initialize's clientInfo
// on a 2025 session, the request's _meta envelope on 2026-07-28), its tool profile, the request's
// config, and its knowledge session (the protocol session, the handle it passed back, or a new
// handle). The HTTP endpoint puts the per-request parts into AuthInfo.extra; the per-server
// parts are fixed when the server is built for the caller.
import { CLIENT_INFO_META_KEY, type ServerContext } from '@modelcontextprotocol/server';
import type { KnowledgeScope } from '../../engine/index.js';
import type { Access } from '../security/access.js';
import type { KnowledgeDefaults } from './request-config.js';
import type { ClientIdentity, KnowledgeSession, KnowledgeSessions } from './session-store.js';

/** standard: the canonical tools; deep-research: exactly search + fetch (ChatGPT's connector). */
export type ToolProfile = 'standard' | 'deep-research';

/** Clients that get the deep-research profile by name (ChatGPT's connector introduces itself so). */
export const DEEP_RESEARCH_CLIENTS: readonly string[] = ['openai-mcp'];

export function profileFor(access: Access, client: ClientIdentity | null): ToolProfile {
  if (access.profile === 'deep-research') return 'deep-research';
  return client && DEEP_RESEARCH_CLIENTS.includes(client.name.toLowerCase()) ? 'deep-research' : 'standard';
}

/** What the server built for one caller knows about it. */
export interface KnowledgeCaller {
  readonly sessions: KnowledgeSessions;
  readonly client: ClientIdentity | null;
  readonly protocol: '2025' | '2026-07-28';
  readonly profile: ToolProfile;
  /** A 2025 session's initialize config: that session's defaults. */
  readonly initDefaults: KnowledgeDefaults;
}

/** The per-request facts the HTTP endpoint passes along in AuthInfo.extra. */
export interface RequestFacts {
  access: Access;
  requestConfig: KnowledgeDefaults;
  client: ClientIdentity | null;
}

export function requestFactsOf(extra: Pick<ServerContext, 'http'> | undefined): Partial<RequestFacts> {
  return (extra?.http?.authInfo?.extra ?? {}) as Partial<RequestFacts>;
}

/** A client identity from an Implementation-shaped value (clientInfo). */
export function clientIdentity(v: unknown): ClientIdentity | null {
  const o = v as { name?: unknown; version?: unknown } | null | undefined;
  if (!o || typeof o.name !== 'string' || !o.name.trim()) return null;
  return { name: o.name.trim().slice(0, 80), version: typeof o.version === 'string' ? o.version.slice(0, 40) : null };
}

export interface CallState {
  session: KnowledgeSession;
  requestConfig: KnowledgeDefaults;
  notices: string[];
}

/** The session a call belongs to: the handle it passed, its protocol session, or a new handle. */
export function callState(caller: KnowledgeCaller, access: Access, extra: ServerContext | undefined, handle: string | undefined): CallState {
  const facts = requestFactsOf(extra);
  const envelope = extra?.mcpReq?.envelope as Record<string, unknown> | undefined;
  const client = clientIdentity(envelope?.[CLIENT_INFO_META_KEY]) ?? caller.client;
  const owner = { accessKey: access.key, token: access.name };
  const notices: string[] = [];
  let session: KnowledgeSession | null = null;
  if (handle) {
    session = caller.sessions.byHandle(handle, access.key);
    if (!session) notices.push(`session "${handle.slice(0, 12)}…" is unknown or has expired: a new one was started (send back the one this result names)`);
  } else if (extra?.sessionId) {
    session = caller.sessions.forProtocolSession(extra.sessionId, owner, { client, defaults: caller.initDefaults });
  }
  session ??= caller.sessions.mint(owner, client, caller.protocol);
  if (client && !session.client) session.client = client;
  return { session, requestConfig: facts.requestConfig ?? {}, notices };
}

/**
 * What the caller's token may reach, as the engine takes it: a token limited to collections
 * sees those collections only and no datasets; memory is a source only when the token's memory
 * grant lets it read (read or write), whatever its collections.
 */
export function scopeOf(access: Access): KnowledgeScope {
  const memory = access.memory !== 'none'; // read or write: memory is a source it may search and read
  if (access.collections === null) return memory ? {} : { memory: false };
  return { collections: [...access.collections], datasets: [], memory };
}
