// Messages between the Electron main process and the engine host it runs in a utilityProcess.
// Both sides validate what they receive: a malformed message is dropped with a log line,
// never acted on.
import { z } from 'zod';
import type { ApiReply } from './bridge.js';
import type { ApiEvent } from './results.js';

export const toHostSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('call'), id: z.number().int().nonnegative(), method: z.string().min(1), params: z.unknown() }),
  z.object({ kind: z.literal('shutdown') }),
]);
export type ToHost = z.infer<typeof toHostSchema>;

const errorBody = z.object({ code: z.string(), message: z.string() });
export const fromHostSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('reply'),
    id: z.number().int().nonnegative(),
    reply: z.union([z.object({ ok: z.literal(true), result: z.unknown() }), z.object({ ok: z.literal(false), error: errorBody })]),
  }),
  z.object({ kind: z.literal('event'), event: z.object({ type: z.string() }).passthrough() }),
  /** Sent once the engine is open and (when configured) the HTTP server listens. */
  z.object({ kind: z.literal('ready'), endpoint: z.string().nullable(), uiUrl: z.string().nullable() }),
  z.object({ kind: z.literal('fatal'), message: z.string() }),
]);
export type FromHost =
  | { kind: 'reply'; id: number; reply: ApiReply }
  | { kind: 'event'; event: ApiEvent }
  | { kind: 'ready'; endpoint: string | null; uiUrl: string | null }
  | { kind: 'fatal'; message: string };
