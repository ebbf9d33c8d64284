// status: what the caller can search — collections (only those its token may see), document
// counts, and whether semantic search is ready.
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { describeActivity } from '../../engine/index.js';
import type { McpContext } from '../context.js';
import { collectionFilter } from '../security/access.js';
import { guarded, textResult } from './results.js';
import { convertedOnce } from './schema-cache.js';

const statusInput = convertedOnce(z.object({}));
const statusOutput = convertedOnce(z.object({
  totalDocuments: z.number().int(),
  needsEmbedding: z.number().int().describe('Documents still waiting for embeddings'),
  hasVectorIndex: z.boolean().describe('Semantic search (vsearch, query) is available'),
  collections: z.array(
    z.object({
      name: z.string(),
      path: z.string(),
      pattern: z.string().describe('Include globs, comma-separated'),
      documents: z.number().int(),
      lastUpdated: z.string().nullable(),
      context: z.string(),
      indexing: z.string().optional().describe('Background indexing under way (files queued, retrying, paused); absent when idle'),
    }),
  ),
  memory: z
    .object({ entries: z.number().int(), threads: z.number().int(), needsEmbedding: z.number().int().describe('Memory chunks still waiting for embeddings') })
    .optional()
    .describe('The agent memory store (when this token may use it)'),
}));

export function registerStatusTool(server: McpServer, ctx: McpContext, allowed: (tool: string) => boolean): void {
  if (!allowed('status')) return;
  server.registerTool(
    'status',
    {
      title: 'Index status',
      description: 'The searchable collections (name, folder, context note, document count, last update) and whether semantic search is ready.',
      inputSchema: statusInput,
      outputSchema: statusOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () =>
      guarded('status', () => {
        const report = ctx.engine.status({ collections: collectionFilter(ctx.access), memory: ctx.access.memory !== 'none' });
        const { needsEmbedding, hasVectorIndex } = report;
        const structured = {
          totalDocuments: report.totals.documents,
          needsEmbedding,
          hasVectorIndex,
          collections: report.collections.map((c) => {
            const activity = report.indexing.collections.find((a) => a.collection === c.name);
            const indexing = activity ? describeActivity(activity) : null;
            return {
              name: c.name,
              path: c.root,
              pattern: c.include.join(','),
              documents: c.documents,
              lastUpdated: c.lastIndexedAt,
              context: c.context,
              ...(indexing ? { indexing } : {}),
            };
          }),
          ...(report.memory ? { memory: report.memory } : {}),
        };
        const lines = [
          'Trove index status:',
          `  Total documents: ${structured.totalDocuments}`,
          `  Needs embedding: ${needsEmbedding}`,
          `  Vector index: ${hasVectorIndex ? 'yes' : 'no (vsearch and query are unavailable; use search)'}`,
          `  Collections: ${structured.collections.length}`,
          ...structured.collections.map(
            (c) =>
              `    - ${c.name}: ${c.path} (${c.documents} docs, updated ${c.lastUpdated ?? 'never'}` +
              `${c.indexing ? `; indexing: ${c.indexing}` : ''})${c.context ? ` — ${c.context}` : ''}`,
          ),
          ...(report.memory ? [`  Memory: ${report.memory.entries} entries in ${report.memory.threads} threads (${report.memory.needsEmbedding} chunks waiting for embeddings)`] : []),
        ];
        return textResult(lines.join('\n'), structured);
      }),
  );
}
