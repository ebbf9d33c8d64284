// The context server's write tools on Trove's memory store: store_context(_batch),
// update_context(_batch), delete_context(_batch). Names, parameters, defaults and result fields
// as that server documents them. Bad input — a batch over 100, an oversized image, a patch of a
// missing entry — is an isError result naming the problem, and nothing is written. Answers carry
// ids and counts only, never stored text (memory-shapes.ts writeResult).
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { invalidInput, type MemoryBatchResult, type MemoryUpdateInput } from '../../engine/index.js';
import type { McpContext } from '../context.js';
import { imageInput, writeResult } from './memory-shapes.js';
import { guarded } from './results.js';
import { convertedOnce } from './schema-cache.js';

export const MEMORY_WRITE_TOOLS = ['store_context', 'store_context_batch', 'update_context', 'update_context_batch', 'delete_context', 'delete_context_batch'] as const;

const json = z.record(z.string(), z.unknown());

const entryFields = {
  thread_id: z.string().min(1).describe('The conversation or task thread; agents on one task share it'),
  source: z.enum(['user', 'agent']).describe("'user' or 'agent'"),
  text: z.string().min(1).describe('The text to store'),
  images: z.array(imageInput).optional().describe('Images (base64 with mime_type), each at most 2 MB; kept out of search text'),
  metadata: json.optional().describe('Any JSON object (status, agent_name, task_name, project, …); searchable with metadata filters; a string "title" ranks like a document title'),
  tags: z.array(z.string()).optional().describe('Tags (trimmed, lower-cased, deduplicated)'),
};

const updateFields = {
  context_id: z.number().int().min(1).describe('The entry to update'),
  text: z.string().min(1).optional().describe('New text (replaces it)'),
  metadata: json.optional().describe('New metadata (full replacement); not with metadata_patch'),
  metadata_patch: json.optional().describe('RFC 7396 merge patch: new keys added, existing replaced, null deletes a key, arrays replaced whole'),
  tags: z.array(z.string()).optional().describe('New tags (replace all)'),
  images: z.array(imageInput).optional().describe('New images (replace all; [] removes them)'),
};

const batchOutput = convertedOnce(
  z.object({
    success: z.boolean(),
    total: z.number().int(),
    succeeded: z.number().int(),
    failed: z.number().int(),
    results: z.array(
      z.object({
        index: z.number().int(),
        success: z.boolean(),
        context_id: z.number().int().nullable(),
        error: z.string().nullable(),
        updated_fields: z.array(z.string()).nullable().optional(),
      }),
    ),
    message: z.string(),
  }),
);

const TOOLS = {
  store_context: {
    title: 'Store context',
    description:
      'Store a context entry (a note, finding or message) in a thread, with optional metadata, tags and images. ' +
      'Entries are searchable at once by keyword and, once embedded in the background, by meaning. Returns context_id.',
    inputSchema: convertedOnce(z.object(entryFields)),
    outputSchema: convertedOnce(z.object({ success: z.boolean(), context_id: z.number().int(), thread_id: z.string(), message: z.string() })),
  },
  store_context_batch: {
    title: 'Store context entries',
    description: 'Store up to 100 entries in one call. atomic (default true): all are stored or none (a bad entry is an error naming it); atomic false: per-entry results.',
    inputSchema: convertedOnce(z.object({ entries: z.array(z.object(entryFields)).min(1).max(100).describe('At most 100 entries'), atomic: z.boolean().default(true) })),
    outputSchema: batchOutput,
  },
  update_context: {
    title: 'Update context',
    description:
      'Update an entry: text, metadata (full replacement) or metadata_patch (RFC 7396 merge), tags, images. id, thread_id, source and created_at never change; ' +
      'content_type follows the images; updated_at is set. At least one field.',
    inputSchema: convertedOnce(z.object(updateFields)),
    outputSchema: convertedOnce(z.object({ success: z.boolean(), context_id: z.number().int(), updated_fields: z.array(z.string()), message: z.string() })),
  },
  update_context_batch: {
    title: 'Update context entries',
    description: 'Up to 100 updates in one call (each as update_context). atomic (default true): all or none; atomic false: per-update results.',
    inputSchema: convertedOnce(z.object({ updates: z.array(z.object(updateFields)).min(1).max(100).describe('At most 100 updates'), atomic: z.boolean().default(true) })),
    outputSchema: batchOutput,
  },
  delete_context: {
    title: 'Delete context',
    description: 'Delete entries by context_ids, or every entry of a thread (thread_id), with their tags, images, keyword rows and vectors. Irreversible.',
    inputSchema: convertedOnce(
      z.object({
        context_ids: z.array(z.number().int().min(1)).min(1).optional().describe('Entries to delete'),
        thread_id: z.string().min(1).optional().describe('Delete every entry of this thread'),
      }),
    ),
    outputSchema: convertedOnce(z.object({ success: z.boolean(), deleted_count: z.number().int(), message: z.string() })),
  },
  delete_context_batch: {
    title: 'Delete context by criteria',
    description:
      'Delete every entry matching all the given criteria: context_ids, thread_ids, source (only with another criterion), older_than_days. ' +
      'Cascades to tags, images, keyword rows and vectors. Irreversible.',
    inputSchema: convertedOnce(
      z.object({
        context_ids: z.array(z.number().int().min(1)).min(1).optional(),
        thread_ids: z.array(z.string().min(1)).min(1).optional(),
        source: z.enum(['user', 'agent']).optional().describe('Combine with another criterion'),
        older_than_days: z.number().int().min(0).optional().describe('Created more than this many days ago'),
      }),
    ),
    outputSchema: convertedOnce(z.object({ success: z.boolean(), deleted_count: z.number().int(), criteria_used: z.array(z.string()), message: z.string() })),
  },
} as const;

type UpdateArgs = z.output<z.ZodObject<typeof updateFields>>;

function toUpdate(u: UpdateArgs): MemoryUpdateInput {
  return { id: u.context_id, text: u.text, metadata: u.metadata, metadataPatch: u.metadata_patch, tags: u.tags, images: u.images };
}

function batchAnswer(r: MemoryBatchResult, verb: string) {
  const total = r.results.length;
  return {
    success: r.failed === 0,
    total,
    succeeded: r.succeeded,
    failed: r.failed,
    results: r.results.map((x) => ({ index: x.index, success: x.success, context_id: x.id, error: x.error, ...(x.updatedFields !== undefined || verb === 'updated' ? { updated_fields: x.updatedFields ?? null } : {}) })),
    message: r.failed ? `${verb} ${r.succeeded} of ${total} entries; ${r.failed} failed` : `${verb} ${total} entries`,
  };
}

export function registerMemoryWriteTools(server: McpServer, ctx: McpContext, allowed: (tool: string) => boolean): void {
  const m = ctx.engine.memory;
  const annotations = (destructive: boolean) => ({ readOnlyHint: false, destructiveHint: destructive, idempotentHint: false, openWorldHint: false });
  const reg = <T extends keyof typeof TOOLS>(name: T, destructive: boolean, cb: (args: never) => ReturnType<typeof guarded>) => {
    if (!allowed(name)) return;
    const t = TOOLS[name];
    server.registerTool(name, { title: t.title, description: t.description, inputSchema: t.inputSchema, outputSchema: t.outputSchema, annotations: annotations(destructive) }, cb as never);
  };

  reg('store_context', false, (a: z.output<(typeof TOOLS)['store_context']['inputSchema']>) =>
    guarded('store_context', async () => {
      const r = await m.store({ threadId: a.thread_id, source: a.source, text: a.text, metadata: a.metadata, tags: a.tags, images: a.images });
      return writeResult({ success: true, context_id: r.id, thread_id: r.threadId, message: `Context stored (id ${r.id})` });
    }),
  );
  reg('store_context_batch', false, (a: z.output<(typeof TOOLS)['store_context_batch']['inputSchema']>) =>
    guarded('store_context_batch', async () => {
      const r = await m.storeBatch(
        a.entries.map((e) => ({ threadId: e.thread_id, source: e.source, text: e.text, metadata: e.metadata, tags: e.tags, images: e.images })),
        { atomic: a.atomic },
      );
      return writeResult(batchAnswer(r, 'stored'));
    }),
  );
  reg('update_context', false, (a: UpdateArgs) =>
    guarded('update_context', async () => {
      const r = await m.update(toUpdate(a));
      return writeResult({ success: true, context_id: r.id, updated_fields: r.updatedFields, message: `Updated ${r.updatedFields.join(', ')} of entry ${r.id}` });
    }),
  );
  reg('update_context_batch', false, (a: z.output<(typeof TOOLS)['update_context_batch']['inputSchema']>) =>
    guarded('update_context_batch', async () => writeResult(batchAnswer(await m.updateBatch(a.updates.map(toUpdate), { atomic: a.atomic }), 'updated'))),
  );
  reg('delete_context', true, (a: z.output<(typeof TOOLS)['delete_context']['inputSchema']>) =>
    guarded('delete_context', async () => {
      if (!a.context_ids === !a.thread_id) throw invalidInput('give either context_ids or thread_id (not both)');
      const r = await m.delete(a.context_ids ? { ids: a.context_ids } : { threadIds: [a.thread_id!] });
      return writeResult({ success: true, deleted_count: r.deleted, message: r.deleted ? `Deleted ${r.deleted} context entries` : 'No context entries matched; nothing was deleted' });
    }),
  );
  reg('delete_context_batch', true, (a: z.output<(typeof TOOLS)['delete_context_batch']['inputSchema']>) =>
    guarded('delete_context_batch', async () => {
      const r = await m.delete({ ids: a.context_ids, threadIds: a.thread_ids, source: a.source, olderThanDays: a.older_than_days });
      return writeResult({ success: true, deleted_count: r.deleted, criteria_used: r.criteria, message: r.deleted ? `Deleted ${r.deleted} context entries` : 'No context entries matched; nothing was deleted' });
    }),
  );
}
