// Reads a BEIR-format directory: corpus.jsonl(.gz), queries.jsonl, qrels/test.tsv.
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import zlib from 'node:zlib';

export interface BeirDoc {
  id: string;
  title: string;
  text: string;
}

export interface BeirData {
  corpus: BeirDoc[];
  queries: Map<string, string>;
  /** query id → (doc id → relevance) */
  qrels: Map<string, Map<string, number>>;
}

async function* jsonLines(file: string): AsyncGenerator<Record<string, unknown>> {
  const raw = fs.createReadStream(file);
  const input = file.endsWith('.gz') ? raw.pipe(zlib.createGunzip()) : raw;
  for await (const line of readline.createInterface({ input, crlfDelay: Infinity })) {
    if (line.trim()) yield JSON.parse(line) as Record<string, unknown>;
  }
}

function firstExisting(dir: string, names: string[]): string {
  for (const n of names) if (fs.existsSync(path.join(dir, n))) return path.join(dir, n);
  throw new Error(`${dir}: none of ${names.join(', ')} found`);
}

export async function readBeir(dir: string, split = 'test'): Promise<BeirData> {
  const corpus: BeirDoc[] = [];
  for await (const o of jsonLines(firstExisting(dir, ['corpus.jsonl', 'corpus.jsonl.gz']))) {
    corpus.push({ id: String(o._id), title: String(o.title ?? ''), text: String(o.text ?? '') });
  }
  const queries = new Map<string, string>();
  for await (const o of jsonLines(firstExisting(dir, ['queries.jsonl', 'queries.jsonl.gz']))) queries.set(String(o._id), String(o.text));
  const qrels = new Map<string, Map<string, number>>();
  const tsv = fs.readFileSync(path.join(dir, 'qrels', `${split}.tsv`), 'utf8').split(/\r?\n/);
  for (const [i, line] of tsv.entries()) {
    const [q, d, s] = line.split('\t');
    if (!q || !d || (i === 0 && q === 'query-id')) continue;
    const score = Number(s);
    if (!(score > 0)) continue;
    if (!qrels.has(q)) qrels.set(q, new Map());
    qrels.get(q)!.set(d, score);
  }
  return { corpus, queries, qrels };
}

export interface Metrics {
  ndcg10: number;
  recall100: number;
  mrr10: number;
}

/** BEIR's definitions: nDCG@10 with graded gains (2^rel - 1 is not used by BEIR: gain = rel), Recall@100, MRR@10. */
export function scoreRun(run: Map<string, string[]>, qrels: Map<string, Map<string, number>>): Metrics & { queries: number } {
  let ndcg = 0;
  let recall = 0;
  let mrr = 0;
  let n = 0;
  for (const [q, rel] of qrels) {
    const ranked = run.get(q) ?? [];
    n++;
    let dcg = 0;
    for (let i = 0; i < Math.min(10, ranked.length); i++) dcg += (rel.get(ranked[i]!) ?? 0) / Math.log2(i + 2);
    const ideal = [...rel.values()].sort((a, b) => b - a).slice(0, 10);
    const idcg = ideal.reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
    ndcg += idcg ? dcg / idcg : 0;
    const top100 = new Set(ranked.slice(0, 100));
    recall += [...rel.keys()].filter((d) => top100.has(d)).length / rel.size;
    const first = ranked.slice(0, 10).findIndex((d) => rel.has(d));
    mrr += first >= 0 ? 1 / (first + 1) : 0;
  }
  return { ndcg10: ndcg / n, recall100: recall / n, mrr10: mrr / n, queries: n };
}
