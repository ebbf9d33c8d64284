// A bounded in-memory EventStore for the 2025 Streamable HTTP sessions: with it the transport
// sends the priming event and `retry:` hint, and a client that lost its SSE stream can resume
// with GET + Last-Event-ID. (The SDK ships only the interface.)
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';

export class InMemoryEventStore implements EventStore {
  private readonly events = new Map<string, { streamId: string; message: JSONRPCMessage }>();
  private seq = 0;

  /**
   * `max` events per session: a client resumes a stream it lost a moment ago, so a short tail is
   * all a replay needs. (1,000 full tool results per session held ~25 MB each under load: 32
   * clients' host grew to ~860 MB before the buffers were full.)
   */
  constructor(private readonly max = 100) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}_${String(++this.seq).padStart(12, '0')}`;
    this.events.set(id, { streamId, message });
    if (this.events.size > this.max) this.events.delete(this.events.keys().next().value!);
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.events.get(eventId)?.streamId;
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (id: string, m: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const streamId = this.events.get(lastEventId)?.streamId;
    if (!streamId) return '';
    let after = false;
    for (const [id, e] of this.events) {
      if (id === lastEventId) {
        after = true;
        continue;
      }
      // empty messages are priming events: nothing to replay
      if (after && e.streamId === streamId && Object.keys(e.message).length > 0) await send(id, e.message);
    }
    return streamId;
  }
}
