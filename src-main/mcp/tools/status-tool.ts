// status: what the caller can search — collections (only those its token may see), document
// counts, whether semantic search is ready, and every registered dataset with its state and the
// reason it is invalid or in error (a token scoped to some collections sees no datasets).
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
  datasets: z
    .array(
      z.object({
        id: z.string(),
        name: z.string(),
        description: z.string(),
        state: z.enum(['unloaded', 'validating', 'invalid', 'loading', 'ready', 'error']),
        reason: z.string().nullable().describe('Why it is invalid or in error; null otherwise'),
        kind: z.enum(['faiss', 'folder']).nullable(),
        documents: z.number().int().describe('Vectors (FAISS) or indexed documents (folder)'),
        defaultTopK: z.number().int(),
        model: z.string().nullable().describe('The embedding model its vectors came from'),
        indexType: z.string().nullable(),
        manifestPath: z.string(),
      }),
    )
    .describe('Registered datasets (datasets/<id>/manifest.json), in every state'),
}));

export function registerStatusTool(server: McpServer, ctx: McpContext, allowed: (tool: string) => boolean): void {
  if (!allowed('status')) return;
  server.registerTool(
    'status',
    {
      title: 'Index status',
      description:
        'The searchable collections (name, folder, context note, document count, last update), whether semantic search is ready, and every registered dataset with its state (ready, invalid, error, loading, …) and the reason.',
      inputSchema: statusInput,
      outputSchema: statusOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () =>
      guarded('status', () => {
        const report = ctx.engine.status({ collections: collectionFilter(ctx.access) });
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
          datasets: report.datasets.map((d) => ({
            id: d.id,
            name: d.name,
            description: d.description,
            state: d.state,
            reason: d.reason,
            kind: d.kind,
            documents: d.documents,
            defaultTopK: d.defaultTopK,
            model: d.model,
            indexType: d.indexType,
            manifestPath: d.manifestPath,
          })),
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
          ...(structured.datasets.length ? [`  Datasets: ${structured.datasets.length}`] : []),
          ...structured.datasets.map(
            (d) => `    - ${d.id} [${d.state}]: ${d.name} (${d.kind ?? 'unknown kind'}, ${d.documents} ${d.kind === 'faiss' ? 'vectors' : 'docs'})${d.reason ? ` — ${d.reason}` : ''}`,
          ),
        ];
        return textResult(lines.join('\n'), structured);
      }),
  );
}
