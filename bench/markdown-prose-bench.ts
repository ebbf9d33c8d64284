// bench:markdown-prose <index.sqlite> [--queries 400] [--pool 6000] [--model all-MiniLM-L6-v2]:
// does the model find a Markdown section as well from its prose (text/markdown-prose.ts) as from
// its source? A proxy task with labels from the documents themselves: the query is a section's
// heading, the relevant chunks are that section's, and every chunk is embedded without its heading
// lines (so neither variant matches the heading's words verbatim). The same pool of chunks is
// embedded twice — as source and as prose — and ranked by cosine for every query. Prints
// nDCG@10, MRR@10 and Recall@10 a variant, the model's tokens a chunk and the CPU each variant
// took, and ends with one JSON line. Chunks come from an indexed profile (`trove index` of
// cpp-docs or powershell-docs); queries are headings of four words or more that name one
// section only, taken evenly over the corpus.
import os from 'node:os';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { findModel, loadManifest } from '../src-main/engine/embed/manifest.js';
import { ModelPool } from '../src-main/engine/embed/pool.js';
import { resolveModel } from '../src-main/engine/embed/resolver.js';
import { encodeSingle, loadTokenizer } from '../src-main/engine/embed/tokenizer.js';
import { registerBlockFunctions, wholeTextSql } from '../src-main/engine/store/content-blocks.js';
import { markdownProse } from '../src-main/engine/text/markdown-prose.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    queries: { type: 'string', default: '400' },
    pool: { type: 'string', default: '6000' },
    model: { type: 'string', default: 'all-MiniLM-L6-v2' },
    workers: { type: 'string', default: String(Math.min(2, os.availableParallelism())) },
  },
});
if (!positionals[0]) throw new Error('usage: bench:markdown-prose <index.sqlite> [--queries N] [--pool N]');

interface Chunk {
  id: number;
  doc: number;
  section: string; // the document and its heading path: what "the same section" means
  heading: string;
  text: string;
}

const db = new Database(positionals[0], { readonly: true });
registerBlockFunctions(db);
const docs = new Map(
  db
    .prepare<[], { id: number; text: string }>(`SELECT d.id, ${wholeTextSql('d.id')} AS text FROM documents d WHERE d.kind = 'markdown' AND d.status = 'indexed'`)
    .all()
    .map((d) => [d.id, d.text]),
);
const chunks: Chunk[] = [];
for (const r of db.prepare<[], { id: number; doc: number; hp: string; s: number; e: number }>('SELECT id, document_id doc, heading_path hp, char_start s, char_end e FROM chunks ORDER BY id').all()) {
  const text = docs.get(r.doc);
  if (text === undefined) continue;
  const path = r.hp ? (JSON.parse(r.hp) as string[]) : [];
  // without heading lines: a query must be matched by what the section says, not by its title
  const body = text.slice(r.s, r.e).replace(/^ {0,3}#{1,6}[ \t][^\n]*$/gm, '').trim();
  if (body.length < 40) continue;
  chunks.push({ id: r.id, doc: r.doc, section: `${r.doc}\u0000${path.join('\u0000')}`, heading: path.at(-1) ?? '', text: body });
}
db.close();

// headings that name exactly one section in the corpus, of four words or more
const sectionsByHeading = new Map<string, Set<string>>();
for (const c of chunks) if (c.heading) sectionsByHeading.set(c.heading.toLowerCase(), (sectionsByHeading.get(c.heading.toLowerCase()) ?? new Set()).add(c.section));
const candidates = [...new Map(chunks.filter((c) => c.heading.split(/\s+/).length >= 4 && sectionsByHeading.get(c.heading.toLowerCase())!.size === 1).map((c) => [c.section, c])).values()];
const wanted = Number(values.queries);
const queries = candidates.filter((_, i) => i % Math.max(1, Math.floor(candidates.length / wanted)) === 0).slice(0, wanted);
const relevant = new Set(queries.map((q) => q.section));
const inQuery = chunks.filter((c) => relevant.has(c.section));
const others = chunks.filter((c) => !relevant.has(c.section));
const fill = Math.max(0, Number(values.pool) - inQuery.length);
const pool = [...inQuery, ...others.filter((_, i) => i % Math.max(1, Math.floor(others.length / fill)) === 0).slice(0, fill)];

const spec = findModel(loadManifest(), values.model!);
const model = await resolveModel(spec, { modelsDir: process.env.TROVE_MODELS_DIR!, cacheDir: '/nonexistent-trove-cache' });
const tok = loadTokenizer(model.dir);
const models = await ModelPool.start(model, { workers: Number(values.workers), intraOpThreads: 1, signedWeights: true });

async function embedAll(texts: readonly string[], role: 'query' | 'passage'): Promise<{ vectors: Float32Array[]; cpuSeconds: number }> {
  const cpu = process.cpuUsage();
  const vectors = await Promise.all(texts.map((t) => models.embed([t], role)));
  const used = process.cpuUsage(cpu);
  return { vectors, cpuSeconds: (used.user + used.system) / 1e6 };
}

const queryVectors = (await embedAll(queries.map((q) => q.heading), 'query')).vectors;
const variants: Record<string, (t: string) => string> = { source: (t) => t, prose: markdownProse };
const perQueryNdcg = new Map<string, number[]>();
const results: Record<string, { ndcg10: number; mrr10: number; recall10: number; tokens: number; cpuSeconds: number }> = {};
for (const [name, view] of Object.entries(variants)) {
  const texts = pool.map((c) => view(c.text));
  const tokens = texts.reduce((s, t) => s + encodeSingle(tok, spec.prefixes.passage + t, spec.maxTokens!).length, 0) / texts.length;
  const { vectors, cpuSeconds } = await embedAll(texts, 'passage');
  const perQuery: number[] = [];
  let ndcg = 0;
  let mrr = 0;
  let recall = 0;
  for (const [qi, q] of queries.entries()) {
    const qv = queryVectors[qi]!;
    const scored = vectors.map((v, i) => ({ i, s: v.reduce((a, x, k) => a + x * qv[k]!, 0) })).sort((a, b) => b.s - a.s);
    const rel = pool.filter((c) => c.section === q.section).length;
    const top = scored.slice(0, 10).map(({ i }) => pool[i]!.section === q.section);
    const dcg = top.reduce((a, hit, r) => a + (hit ? 1 / Math.log2(r + 2) : 0), 0);
    const ideal = Array.from({ length: Math.min(10, rel) }, (_, r) => 1 / Math.log2(r + 2)).reduce((a, b) => a + b, 0);
    ndcg += dcg / ideal;
    perQuery.push(dcg / ideal);
    const first = top.indexOf(true);
    mrr += first < 0 ? 0 : 1 / (first + 1);
    recall += top.filter(Boolean).length / Math.min(10, rel);
  }
  perQueryNdcg.set(name, perQuery);
  results[name] = { ndcg10: ndcg / queries.length, mrr10: mrr / queries.length, recall10: recall / queries.length, tokens, cpuSeconds };
  console.error(`${name.padEnd(7)} nDCG@10 ${results[name].ndcg10.toFixed(4)}  MRR@10 ${results[name].mrr10.toFixed(4)}  R@10 ${results[name].recall10.toFixed(4)}  ${tokens.toFixed(1)} tokens a chunk  ${cpuSeconds.toFixed(1)} CPU-s (process; the model workers run in it)`);
}
await models.close();
// the paired difference of each variant from the first, with its standard error over the queries
const [firstName, first] = [...perQueryNdcg.entries()][0]!;
for (const [name, q] of perQueryNdcg) {
  if (name === firstName) continue;
  const d = q.map((x, i) => x - first[i]!);
  const mean = d.reduce((a, b) => a + b, 0) / d.length;
  const se = Math.sqrt(d.reduce((a, b) => a + (b - mean) ** 2, 0) / (d.length - 1) / d.length);
  console.error(`${name} − ${firstName}: nDCG@10 ${mean >= 0 ? '+' : ''}${mean.toFixed(4)} ± ${se.toFixed(4)} (standard error, paired by query)`);
}
console.error(`${queries.length} queries, ${pool.length} chunks (${inQuery.length} relevant to some query), load ${os.loadavg()[0]!.toFixed(2)}`);
console.log(JSON.stringify({ queries: queries.length, pool: pool.length, ...Object.fromEntries(Object.entries(results).flatMap(([k, r]) => Object.entries(r).map(([m, v]) => [`${k}_${m}`, Number(v.toFixed(4))]))) }));
