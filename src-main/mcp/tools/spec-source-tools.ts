// The knowledge-search spec's per-source tools, by its own names and inputs, over Trove's sources:
// notes.search / notes.get and media.search / media.get (documents, by kind: engine/knowledge/
// spec-sources.ts), chats.search / chats.get (the memory: a conversation is a thread). Each is
// knowledge.search / knowledge.get with the source named; chats.get pages through a conversation
// oldest first. characters.*, prompts.* and media.transcript are not served: Trove has no such
// content (docs/compatibility.md).
import type { CallToolResult, McpServer, ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { notFound, type MemoryEntry } from '../../engine/index.js';
import type { McpContext } from '../context.js';
import { callState } from '../knowledge/caller.js';
import { markRedacted } from '../redaction.js';
import { getFields, getOutput, knowledgeItem, retrievalInput, searchFields, searchOutput } from './knowledge-schemas.js';
import { runGet, runSearch } from './knowledge-tools.js';
import { guarded } from './results.js';
import { convertedOnce } from './schema-cache.js';

/** Shown with the knowledge toolset (documents). */
export const SPEC_DOCUMENT_TOOL_NAMES: readonly string[] = ['notes.search', 'notes.get', 'media.search', 'media.get'];
/** Shown with the memory grant's read tools. */
export const SPEC_MEMORY_TOOL_NAMES: readonly string[] = ['chats.search', 'chats.get'];

const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;
const { filters: _filters, order_by: orderBy, ...paging } = searchFields;
const sourceId = (what: string) => z.union([z.string().trim().min(1).max(4096), z.number().int().min(0)]).describe(what);
const { id: _id, uri: _uri, ...reading } = getFields;

const notesSearchInput = convertedOnce(
  z.object({ ...paging, order_by: orderBy, keywords: z.array(z.string().min(1)).optional().describe("Every keyword must be among the note's tags") }),
);
const mediaSearchInput = convertedOnce(
  z.object({
    ...paging,
    order_by: orderBy,
    media_types: z.array(z.string().min(1)).optional().describe('pdf, epub, docx, pptx, html, article, markdown, txt, or a Trove kind'),
    date_from: z.string().min(1).optional().describe('Modified on or after (ISO 8601)'),
    date_to: z.string().min(1).optional().describe('Modified on or before (ISO 8601)'),
  }),
);
const chatsSearchInput = convertedOnce(
  z.object({
    ...paging,
    order_by: orderBy,
    by: z.enum(['both', 'title', 'message']).optional().describe('both (default) and message search the messages; conversations have no titles here'),
    character_id: z.number().int().optional().describe('Ignored: Trove has no characters'),
    sender: z.string().min(1).optional().describe('user or agent (assistant): who stored the message'),
  }),
);
const notesGetInput = convertedOnce(z.object({ note_id: sourceId('The note: a result id (#docid), collection/path or trove:// uri'), ...reading }));
const mediaGetInput = convertedOnce(z.object({ media_id: sourceId('The media item: a result id (#docid), collection/path or trove:// uri'), ...reading }));
const chatsGetInput = convertedOnce(
  z.object({
    conversation_id: z.string().trim().min(1).max(200).describe('The conversation (a memory thread id; a result’s conversation_id)'),
    page: z.number().int().min(1).default(1).describe('1-based, oldest messages first'),
    page_size: z.number().int().min(1).max(200).default(50).describe('Messages per page (default 50, at most 200)'),
    retrieval: retrievalInput.optional().describe('Accepted; a page of a conversation is always whole messages'),
    session: z.string().min(1).max(200).optional(),
  }),
);

const message = z.object({ type: z.literal('message'), message_id: z.string(), sender: z.string(), created_at: z.string(), content: z.string() });
const chatsGetOutput = convertedOnce(
  z.object({
    meta: knowledgeItem,
    content: z.string().describe('The page of messages, each "[sender · created_at]" then its text'),
    attachments: z.array(message),
    page: z.number().int(),
    page_size: z.number().int(),
    total_messages: z.number().int(),
    has_more: z.boolean(),
    session: z.string().nullable(),
  }),
);

export function registerSpecSourceTools(server: McpServer, ctx: McpContext, allowed: (tool: string) => boolean, memoryAllowed: (tool: string) => boolean): void {
  if (allowed('notes.search')) {
    server.registerTool(
      'notes.search',
      { title: 'Search notes', description: 'Search notes (Markdown, text and code documents) with the knowledge result shape; read one with notes.get.', inputSchema: notesSearchInput, outputSchema: searchOutput, annotations: READ_ONLY },
      (a, extra) => guarded('notes.search', () => runSearch(ctx, extra, { ...a, filters: { notes: a.keywords ? { keywords: a.keywords } : {} } }, ['notes'])),
    );
  }
  if (allowed('notes.get')) {
    server.registerTool(
      'notes.get',
      { title: 'Read a note', description: 'Read one note in a retrieval mode under a token budget, as knowledge.get does.', inputSchema: notesGetInput, outputSchema: getOutput, annotations: READ_ONLY },
      (a, extra) => guarded('notes.get', () => runGet(ctx, extra, { ...withoutKey(a, 'note_id'), source: 'notes', id: String(a.note_id) })),
    );
  }
  if (allowed('media.search')) {
    server.registerTool(
      'media.search',
      {
        title: 'Search media',
        description: 'Search media (PDF, Office, OpenDocument, EPUB, RTF, e-mail and HTML documents) by type and date, with the knowledge result shape; read one with media.get.',
        inputSchema: mediaSearchInput,
        outputSchema: searchOutput,
        annotations: READ_ONLY,
      },
      (a, extra) =>
        guarded('media.search', () => {
          const { media_types, date_from, date_to, ...rest } = a;
          const media = { ...(media_types ? { media_types } : {}), ...(date_from ? { date_from } : {}), ...(date_to ? { date_to } : {}) };
          return runSearch(ctx, extra, { ...rest, filters: { media } }, ['media']);
        }),
    );
  }
  if (allowed('media.get')) {
    server.registerTool(
      'media.get',
      { title: 'Read a media item', description: 'Read one media item in a retrieval mode under a token budget, as knowledge.get does.', inputSchema: mediaGetInput, outputSchema: getOutput, annotations: READ_ONLY },
      (a, extra) => guarded('media.get', () => runGet(ctx, extra, { ...withoutKey(a, 'media_id'), source: 'media', id: String(a.media_id) })),
    );
  }
  if (memoryAllowed('chats.search')) {
    server.registerTool(
      'chats.search',
      {
        title: 'Search chats',
        description: 'Search the stored conversations (memory threads) message by message, with the knowledge result shape (conversation_id, message_id, sender); read a whole conversation with chats.get.',
        inputSchema: chatsSearchInput,
        outputSchema: searchOutput,
        annotations: READ_ONLY,
      },
      (a, extra) =>
        guarded('chats.search', () => {
          const { by, character_id, sender, ...rest } = a;
          const chats = { ...(by ? { by } : {}), ...(character_id !== undefined ? { character_id } : {}), ...(sender ? { sender } : {}) };
          return runSearch(ctx, extra, { ...rest, filters: { chats } }, ['chats']);
        }),
    );
  }
  if (memoryAllowed('chats.get')) {
    server.registerTool(
      'chats.get',
      {
        title: 'Read a conversation',
        description: 'Read one stored conversation (a memory thread), a page of messages at a time, oldest first: page (1-based) and page_size (default 50, at most 200).',
        inputSchema: chatsGetInput,
        outputSchema: chatsGetOutput,
        annotations: READ_ONLY,
      },
      (a, extra) => guarded('chats.get', () => conversation(ctx, extra, a)),
    );
  }
}

function withoutKey<T extends object, K extends keyof T>(o: T, key: K): Omit<T, K> {
  const { [key]: _drop, ...rest } = o;
  return rest;
}

/** engine list pages hold at most this many entries. */
const LIST_MAX = 100;

/** One page of a conversation, oldest first (the memory lists newest first: the page is read from the other end). */
async function conversation(ctx: McpContext, extra: ServerContext, a: { conversation_id: string; page: number; page_size: number; session?: string }): Promise<CallToolResult> {
  const { session } = callState(ctx.knowledge, ctx.access, extra, a.session);
  const memory = ctx.engine.memory;
  const head = await memory.list({ threadId: a.conversation_id, limit: 1 });
  const total = head.total;
  if (!total) throw notFound(`no conversation "${a.conversation_id}" (conversations are memory threads: list_threads lists them)`);
  const start = Math.min(total, (a.page - 1) * a.page_size);
  const end = Math.min(total, start + a.page_size);
  const entries: MemoryEntry[] = [];
  for (let offset = total - end, left = end - start; left > 0; ) {
    const n = Math.min(LIST_MAX, left);
    entries.push(...(await memory.list({ threadId: a.conversation_id, limit: n, offset })).entries);
    offset += n;
    left -= n;
  }
  entries.reverse();
  const newest = head.entries[0]!;
  const oldest = start === 0 && entries.length ? entries[0]! : (await memory.list({ threadId: a.conversation_id, limit: 1, offset: total - 1 })).entries[0]!;
  const title = typeof oldest.metadata.title === 'string' && oldest.metadata.title.trim() ? oldest.metadata.title.trim() : a.conversation_id;
  const meta = {
    id: a.conversation_id,
    source: 'chats' as const,
    thread_id: a.conversation_id,
    title,
    snippet: null,
    highlights: [],
    uri: `trove://~memory/${oldest.id}`,
    path: a.conversation_id,
    score: null,
    score_type: null,
    created_at: oldest.createdAt,
    last_modified: newest.updatedAt,
    version: null,
    tags: [...new Set(entries.flatMap((e) => e.tags))],
    kind: 'memory',
    loc: null,
    conversation_id: a.conversation_id,
    message_id: null,
    sender: null,
  };
  const structured = {
    meta,
    content: entries.map((e) => `[${e.source} · ${e.createdAt}]\n${e.text.trim()}`).join('\n\n'),
    attachments: entries.map((e) => ({ type: 'message' as const, message_id: String(e.id), sender: e.source, created_at: e.createdAt, content: e.text })),
    page: a.page,
    page_size: a.page_size,
    total_messages: total,
    has_more: end < total,
    session: session.handle,
  };
  const redacted = await ctx.engine.settings.redact(structured);
  return markRedacted({ content: [{ type: 'text', text: JSON.stringify(redacted) }], structuredContent: redacted });
}
