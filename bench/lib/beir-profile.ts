// A BEIR corpus as a Trove collection, kept between runs: one Markdown file per document in
// <work>/corpus, indexed (and, when asked, embedded) in the profile <work>/home. A second run
// reuses what is there — indexing is incremental and embedding resumable — so benchmarks that
// need SciFact embedded (20 minutes on a shared 2-core machine) pay for it once.
import fs from 'node:fs';
import path from 'node:path';
import cliProgress from 'cli-progress';
import { Engine, readEnvironment } from '../../src-main/engine/index.js';
import { readBeir, type BeirData } from './beir.js';

export interface BeirProfile {
  engine: Engine;
  data: BeirData;
  /** corpus file (collection-relative path) → BEIR document id */
  idByFile: Map<string, string>;
  profileDir: string;
  indexSeconds: number;
  embedSeconds: number;
  model: string | null;
}

export const BEIR_COLLECTION = 'beir';

export async function openBeirProfile(dir: string, work: string, opts: { embed: boolean; model?: string; reranker?: string }): Promise<BeirProfile> {
  const data = await readBeir(dir);
  const docsDir = path.join(work, 'corpus');
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: '{phase} [{bar}] {percentage}% | {value}/{total} | ETA {eta}s', noTTYOutput: true, notTTYSchedule: 5000 },
    cliProgress.Presets.shades_classic,
  );
  const idByFile = new Map<string, string>();
  const fresh = !fs.existsSync(docsDir);
  fs.mkdirSync(docsDir, { recursive: true });
  if (fresh) bar.start(data.corpus.length, 0, { phase: 'write ' });
  data.corpus.forEach((d, i) => {
    const file = `${String(i).padStart(7, '0')}.md`;
    idByFile.set(file, d.id);
    if (!fresh) return;
    fs.writeFileSync(path.join(docsDir, file), d.title ? `# ${d.title}\n\n${d.text}\n` : `${d.text}\n`);
    if (i % 500 === 0) bar.update(i + 1);
  });
  if (fresh) bar.stop();

  const env = readEnvironment(process.env).engine; // TROVE_MODELS_DIR, TROVE_FUSION, … as a user's run would have them
  const profileDir = path.join(work, 'home');
  const engine = await Engine.open({
    ...env,
    profileDir,
    embeddings: { ...env.embeddings, defaultModel: opts.model, ...(opts.reranker ? { rerankModel: opts.reranker } : {}) },
  });
  if (!(await engine.listCollections()).some((c) => c.name === BEIR_COLLECTION)) await engine.addCollection({ root: docsDir, name: BEIR_COLLECTION });
  const t0 = performance.now();
  bar.start(data.corpus.length, 0, { phase: 'index ' });
  await engine.index({ onProgress: (p) => p.phase === 'indexing' && bar.update(p.done) });
  bar.stop();
  const indexSeconds = (performance.now() - t0) / 1000;
  let embedSeconds = 0;
  let model: string | null = null;
  if (opts.embed) {
    const t1 = performance.now();
    bar.start(1, 0, { phase: 'embed ' });
    const [st] = await engine.embed({
      onProgress: (p) => {
        bar.setTotal(Math.max(1, p.total));
        bar.update(p.done);
      },
    });
    bar.stop();
    embedSeconds = (performance.now() - t1) / 1000;
    model = st?.model ?? null;
  }
  return { engine, data, idByFile, profileDir, indexSeconds, embedSeconds, model };
}
