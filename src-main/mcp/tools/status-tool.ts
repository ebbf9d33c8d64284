// status: what the caller can search — collections (only those its token may see), document
// counts, whether semantic search is ready and how much of the index it sees yet (the background
// embedding stage's state, rate and ETA), and every registered dataset with its state and the
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
  needsEmbedding: z.number().int().describe('Chunks still waiting for embeddings'),
  hasVectorIndex: z.boolean().describe('Semantic search (vsearch, query) is available'),
  embedding: z
    .object({
      embedded: z.number().int().describe('Chunks with a vector: what semantic search sees'),
      chunks: z.number().int(),
      percent: z.number().describe('embedded / chunks, 0..100'),
      background: z.enum(['embedding', 'waiting', 'paused', 'idle', 'off']).describe('What background embedding is doing'),
      chunksPerSecond: z.number(),
      etaSeconds: z.number().nullable().describe('Seconds until every chunk has a vector; null when unknown'),
      summary: z.string(),
    })
    .describe('How much of the index is embedded, and background embedding'),
  collections: z.array(
    z.object({
      name: z.string(),
      path: z.string(),
      pattern: z.string().describe('Include globs, comma-separated'),
      documents: z.number().int(),
      kinds: z.record(z.string(), z.number().int()).describe('Indexed documents per kind (markdown, pdf, docx, …)'),
      lastUpdated: z.string().nullable(),
      context: z.string(),
      indexing: z.string().optional().describe('Background indexing under way (files queued, retrying, paused); absent when idle'),
      embedding: z.string().optional().describe('How much of the collection is embedded, and progress; absent when it has no text'),
      ocr: z.string().optional().describe('Scanned pages and images read by OCR so far ("OCR: 12 of 40 pages, about 2 min left"); absent when it has none'),
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
        modelInferred: z.boolean().describe('The manifest named no model: this one was inferred (it reproduces the stored vectors)'),
        indexType: z.string().nullable(),
        manifestPath: z.string(),
      }),
    )
    .describe('Registered datasets (datasets/<id>/manifest.json), in every state'),
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
      description:
        'The searchable collections (name, folder, context note, document count, last update), whether semantic search is ready, and every registered dataset with its state (ready, invalid, error, loading, …) and the reason.',
      inputSchema: statusInput,
      outputSchema: statusOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () =>
      guarded('status', async () => {
        const report = await ctx.engine.status({ collections: collectionFilter(ctx.access), memory: ctx.access.memory !== 'none' });
        const { needsEmbedding, hasVectorIndex, embeddings } = report;
        const { coverage } = embeddings;
        const structured = {
          totalDocuments: report.totals.documents,
          needsEmbedding,
          hasVectorIndex,
          embedding: {
            embedded: coverage.embedded,
            chunks: coverage.chunks,
            percent: coverage.percent,
            background: embeddings.background.state,
            chunksPerSecond: coverage.chunksPerSecond,
            etaSeconds: coverage.etaSeconds,
            summary: embeddings.summary,
          },
          collections: report.collections.map((c) => {
            const activity = report.indexing.collections.find((a) => a.collection === c.name);
            const indexing = activity ? describeActivity(activity) : null;
            const vectors = embeddings.collections.find((e) => e.collection === c.name);
            const embedding = vectors?.chunks ? vectors.summary : null;
            const ocr = report.ocr.collections.find((o) => o.collection === c.name)?.summary;
            return {
              name: c.name,
              path: c.root,
              pattern: c.include.join(','),
              documents: c.documents,
              kinds: c.kinds,
              lastUpdated: c.lastIndexedAt,
              context: c.context,
              ...(indexing ? { indexing } : {}),
              ...(embedding ? { embedding } : {}),
              ...(ocr ? { ocr } : {}),
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
            modelInferred: d.modelInferred,
            indexType: d.indexType,
            manifestPath: d.manifestPath,
          })),
          ...(report.memory ? { memory: report.memory } : {}),
        };
        const lines = [
          'Trove index status:',
          `  Total documents: ${structured.totalDocuments}`,
          `  Needs embedding: ${needsEmbedding}`,
          `  Vector index: ${hasVectorIndex ? 'yes' : 'no (vsearch and query are unavailable; use search)'}`,
          `  Embeddings: ${structured.embedding.summary}`,
          `  Collections: ${structured.collections.length}`,
          ...structured.collections.map(
            (c) =>
              `    - ${c.name}: ${c.path} (${c.documents} docs, updated ${c.lastUpdated ?? 'never'}` +
              `${c.indexing ? `; indexing: ${c.indexing}` : ''}${c.embedding ? `; embeddings: ${c.embedding}` : ''}${c.ocr ? `; ${c.ocr}` : ''})${c.context ? ` — ${c.context}` : ''}`,
          ),
          ...(structured.datasets.length ? [`  Datasets: ${structured.datasets.length}`] : []),
          ...structured.datasets.map(
            (d) =>
              `    - ${d.id} [${d.state}]: ${d.name} (${d.kind ?? 'unknown kind'}, ${d.documents} ${d.kind === 'faiss' ? 'vectors' : 'docs'}` +
              `${d.modelInferred ? `; model ${d.model}, inferred` : ''})${d.reason ? ` — ${d.reason}` : ''}`,
          ),
          ...(report.memory ? [`  Memory: ${report.memory.entries} entries in ${report.memory.threads} threads (${report.memory.needsEmbedding} chunks waiting for embeddings)`] : []),
        ];
        return textResult(lines.join('\n'), structured);
      }),
  );
}
