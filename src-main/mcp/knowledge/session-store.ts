// Knowledge sessions: what the knowledge tools remember about one client between calls — the
// URIs already returned (so a repeated or paginated search brings new results, until they run
// out), its recent queries (knowledge.get anchors on the last one when given no loc) and soft
// defaults (snippet_length, max_tokens, …). Keyed by the 2025 revisions' Mcp-Session-Id, or —
// for stateless 2026-07-28 clients, which have no protocol session — by a handle the server
// mints and the client passes back as the tools' `session` argument (SEP-2567's explicit state
// handles). Either way a session belongs to the token that opened it: another token's handle is
// answered like an unknown one. Bounded: idle sessions expire (TTL), the least recently used
// go first when the store is full, and each session keeps at most so many URIs and queries.
import { randomBytes } from 'node:crypto';
import type { KnowledgeDefaults } from './request-config.js';

export interface ClientIdentity {
  name: string;
  version: string | null;
}

export interface KnowledgeSession {
  /** `mcp:<Mcp-Session-Id>` or `handle:<handle>`. */
  readonly key: string;
  /** The handle a 2026 client sends back; null for a 2025 protocol session. */
  readonly handle: string | null;
  readonly accessKey: string;
  /** The token's name (never the secret). */
  readonly token: string;
  client: ClientIdentity | null;
  readonly protocol: '2025' | '2026-07-28';
  readonly createdAt: number;
  lastSeen: number;
  /** Calls that came back to it (a stateless client that never sends its handle back leaves sessions of 1). */
  uses: number;
  /** Soft defaults: initialize's config, or knowledge.session's `defaults`. */
  defaults: KnowledgeDefaults;
  /** Insertion-ordered: the oldest go first when full. */
  readonly seen: Set<string>;
  readonly recentQueries: string[];
}

/** What the Connect screen shows of a session (no URIs, no queries). */
export interface SessionSummary {
  session: string;
  kind: 'mcp-session' | 'handle';
  protocol: '2025' | '2026-07-28';
  client: ClientIdentity | null;
  token: string;
  createdAt: string;
  lastSeen: string;
  seen: number;
  queries: number;
  /** Calls made in it. */
  uses: number;
}

export interface SessionLimits {
  /** Idle time after which a session is forgotten (default 30 minutes). */
  ttlMs: number;
  /** Sessions kept at once; the least recently used is dropped for a new one (default 1000). */
  maxSessions: number;
  /** URIs remembered per session (default 2000). */
  maxSeen: number;
  /** Recent queries remembered per session (default 20). */
  maxQueries: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = { ttlMs: 30 * 60_000, maxSessions: 1000, maxSeen: 2000, maxQueries: 20 };

const HANDLE_PREFIX = 'ks_';

export class KnowledgeSessions {
  private readonly sessions = new Map<string, KnowledgeSession>();
  private readonly limits: SessionLimits;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    limits: Partial<SessionLimits> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.limits = { ...DEFAULT_SESSION_LIMITS, ...limits };
    this.sweeper = setInterval(() => this.sweep(), Math.min(60_000, this.limits.ttlMs)).unref();
  }

  /** Whether a string is shaped like one of our handles (not a protocol session id). */
  static isHandle(s: string): boolean {
    return s.startsWith(HANDLE_PREFIX);
  }

  /** The session of a 2025 protocol session, made on first use. */
  forProtocolSession(id: string, owner: { accessKey: string; token: string }, init: { client?: ClientIdentity | null; defaults?: KnowledgeDefaults } = {}): KnowledgeSession {
    const key = `mcp:${id}`;
    const s = this.live(key);
    if (s && s.accessKey === owner.accessKey) return this.touch(s);
    return this.add({ key, handle: null, protocol: '2025', client: init.client ?? null, defaults: init.defaults ?? {}, ...owner });
  }

  /** A new handle session. */
  mint(owner: { accessKey: string; token: string }, client: ClientIdentity | null, protocol: '2025' | '2026-07-28' = '2026-07-28'): KnowledgeSession {
    const handle = `${HANDLE_PREFIX}${randomBytes(18).toString('base64url')}`;
    return this.add({ key: `handle:${handle}`, handle, protocol, client, defaults: {}, ...owner });
  }

  /** The live session a handle names for this token, or null (unknown, expired, or another token's). */
  byHandle(handle: string, accessKey: string): KnowledgeSession | null {
    const s = this.live(`handle:${handle}`);
    return s && s.accessKey === accessKey ? this.touch(s) : null;
  }

  /** Ends a session (DELETE, knowledge.session end); false when there was none for this token. */
  end(keyOrHandle: string, accessKey: string): boolean {
    const key = KnowledgeSessions.isHandle(keyOrHandle) ? `handle:${keyOrHandle}` : keyOrHandle.includes(':') ? keyOrHandle : `mcp:${keyOrHandle}`;
    const s = this.sessions.get(key);
    if (!s || s.accessKey !== accessKey) return false;
    this.sessions.delete(key);
    return true;
  }

  /** Records what a search returned: its URIs (bounded, oldest out) and its query. */
  remember(s: KnowledgeSession, uris: readonly string[], query?: string): void {
    for (const uri of uris) {
      s.seen.delete(uri); // re-inserted: now the newest
      s.seen.add(uri);
    }
    while (s.seen.size > this.limits.maxSeen) s.seen.delete(s.seen.values().next().value!);
    if (query) {
      const i = s.recentQueries.indexOf(query);
      if (i >= 0) s.recentQueries.splice(i, 1);
      s.recentQueries.push(query);
      if (s.recentQueries.length > this.limits.maxQueries) s.recentQueries.splice(0, s.recentQueries.length - this.limits.maxQueries);
    }
  }

  list(): SessionSummary[] {
    this.sweep();
    return [...this.sessions.values()]
      .sort((a, b) => b.lastSeen - a.lastSeen)
      .map((s) => ({
        session: s.handle ? `${s.handle.slice(0, 9)}…` : `${s.key.slice(4, 12)}…`,
        kind: s.handle ? 'handle' : 'mcp-session',
        protocol: s.protocol,
        client: s.client,
        token: s.token,
        createdAt: new Date(s.createdAt).toISOString(),
        lastSeen: new Date(s.lastSeen).toISOString(),
        seen: s.seen.size,
        queries: s.recentQueries.length,
        uses: s.uses,
      }));
  }

  get size(): number {
    return this.sessions.size;
  }

  ttlMs(): number {
    return this.limits.ttlMs;
  }

  close(): void {
    clearInterval(this.sweeper);
    this.sessions.clear();
  }

  /**
   * Drops expired sessions. The map is in lastSeen order (add appends, touch re-inserts), so the
   * expired ones are a prefix: the walk stops at the first live one. A stateless client that never
   * sends its handle back mints a session per call and fills the store, and walking all of it on
   * every call cost ~0.15 ms.
   */
  sweep(): void {
    const cutoff = this.now() - this.limits.ttlMs;
    for (const [key, s] of this.sessions) {
      if (s.lastSeen >= cutoff) break;
      this.sessions.delete(key);
    }
  }

  private live(key: string): KnowledgeSession | undefined {
    const s = this.sessions.get(key);
    if (s && s.lastSeen < this.now() - this.limits.ttlMs) {
      this.sessions.delete(key);
      return undefined;
    }
    return s;
  }

  private touch(s: KnowledgeSession): KnowledgeSession {
    s.lastSeen = this.now();
    s.uses++;
    // Map order is recency order: re-insert so the least recently used is first
    this.sessions.delete(s.key);
    this.sessions.set(s.key, s);
    return s;
  }

  private add(init: Omit<KnowledgeSession, 'createdAt' | 'lastSeen' | 'uses' | 'seen' | 'recentQueries'>): KnowledgeSession {
    this.sweep();
    while (this.sessions.size >= this.limits.maxSessions) this.sessions.delete(this.sessions.keys().next().value!);
    const t = this.now();
    const s: KnowledgeSession = { ...init, createdAt: t, lastSeen: t, uses: 1, seen: new Set(), recentQueries: [] };
    this.sessions.set(s.key, s);
    return s;
  }
}
