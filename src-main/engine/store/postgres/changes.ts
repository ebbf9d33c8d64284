// Other hosts' changes, on PostgreSQL: every write that changes what searches see ends with
// NOTIFY trove_changes '<host>:<collection>' (delivered when it commits), and each host LISTENs on
// a connection of its own, so caches keyed on the index generation (document texts, term counts,
// embedding counts) are dropped on every host, and background embedding wakes up. A host's own
// notifications are ignored. A lost connection is re-opened; listeners then hear "something may
// have changed" (null), since notifications sent meanwhile are gone.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { ChangeFeed } from '../storage.js';
import type { PostgresDatabase } from './connection.js';

const CHANNEL = 'trove_changes';
const RECONNECT_MS = 1000;

export class PostgresChanges implements ChangeFeed {
  readonly shared = true;
  private readonly host = randomBytes(6).toString('hex');
  private readonly listeners = new Set<(collectionId: number | null) => void>();
  private client: pg.Client | null = null;
  private closed = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly db: PostgresDatabase) {}

  /**
   * Tells the other hosts (after this host's write committed). Never throws: the write is done, and
   * reporting it as failed would make a caller retry it (a memory entry stored twice); a lost
   * notice only delays the other hosts until their next reconcile or change.
   */
  async notify(collectionId: number | null): Promise<void> {
    try {
      await this.db.query('SELECT pg_notify($1, $2)', [CHANNEL, `${this.host}:${collectionId ?? ''}`]);
    } catch {
      // the connection dropped after the commit: nothing to undo
    }
  }

  onRemoteChange(listener: (collectionId: number | null) => void): () => void {
    this.listeners.add(listener);
    if (!this.client && !this.timer) void this.listen(false);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once LISTEN is in place (tests wait for it; hosts need not). */
  async ready(): Promise<void> {
    if (!this.client) await this.listen(false);
  }

  private async listen(reconnected: boolean): Promise<void> {
    this.timer = null;
    if (this.closed || this.client) return;
    const client = new pg.Client({ connectionString: this.db.url, application_name: 'trove-listen' });
    this.client = client;
    const retry = () => {
      if (this.client !== client) return;
      this.client = null;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      if (!this.closed) this.timer = setTimeout(() => void this.listen(true), RECONNECT_MS);
    };
    client.on('error', retry);
    client.on('end', retry);
    client.on('notification', (n) => {
      const [from, id] = (n.payload ?? '').split(':');
      if (from === this.host) return;
      this.emit(id ? Number(id) : null);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      if (reconnected) this.emit(null);
    } catch {
      retry();
    }
  }

  private emit(collectionId: number | null): void {
    for (const l of this.listeners) {
      try {
        l(collectionId);
      } catch (err) {
        process.stderr.write(`trove: a change listener failed: ${(err as Error).message}\n`);
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const c = this.client;
    this.client = null;
    if (c) await c.end().catch(() => undefined);
  }
}
