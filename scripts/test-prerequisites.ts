// `npm test`'s pretest step: what the tests need that a fresh clone does not have. The test models
// (test/models.json): when TROVE_MODELS_DIR is not set they are fetched through Trove's own
// downloader — sha256-checked, resumable, from TROVE_MODELS_MIRROR or the set's published source —
// into the user cache, so a second run needs no network. And a Chromium for the UI tests. What is
// missing is said in one line each, with how to get it, and the step fails: no test skips quietly.
// `--models a,b` limits the fetch to some models (the fresh-machine test uses it).
import { downloadModel } from '../src-main/engine/embed/downloader.js';
import { modelSpecSchema } from '../src-main/engine/embed/manifest.js';
import { findChromium, HOW_TO_GET_CHROMIUM } from '../test/helpers/chromium.js';
import { HOW_TO_GET_MODELS, missingTestModelFiles, TEST_MODELS, testModelsCache } from '../test/helpers/test-models.js';

async function fetchModels(only: string[] | null): Promise<string | null> {
  const given = process.env.TROVE_MODELS_DIR;
  if (given) {
    const missing = missingTestModelFiles(given);
    return missing.length ? `TROVE_MODELS_DIR=${given} lacks ${missing.length} test model file(s) (${missing.slice(0, 3).join(', ')}): point it at a complete copy` : null;
  }
  const cache = testModelsCache();
  const mirror = process.env.TROVE_MODELS_MIRROR || undefined;
  const failed: string[] = [];
  let fetched = 0;
  for (const m of TEST_MODELS.models.filter((x) => !only || only.includes(x.id))) {
    const spec = modelSpecSchema.parse({
      id: m.id,
      role: 'rerank', // the downloader only reads ids, files and sources
      description: 'test model',
      languages: ['en'],
      maxTokens: 8,
      weights: { fp32: m.files[0]!.path },
      ...(TEST_MODELS.source ? { baseUrl: `${TEST_MODELS.source.replace(/\/?$/, '/')}${m.id}/` } : {}),
      files: m.files.map((f) => ({ path: f.path, bytes: f.bytes, sha256: f.sha256 })),
    });
    try {
      const before = missingTestModelFiles(cache).filter((f) => f.startsWith(`${m.id}/`)).length;
      await downloadModel(spec, cache, { mirror });
      fetched += before;
    } catch (err) {
      failed.push(`${m.id}: ${(err as Error).message}`);
    }
  }
  if (failed.length) {
    return `could not fetch the test models into ${cache} (${failed.join('; ')}): ${HOW_TO_GET_MODELS}`;
  }
  process.stdout.write(`test models: ${fetched ? `fetched ${fetched} file(s)` : 'all cached'} in ${cache}\n`);
  return null;
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--models');
  const only = at >= 0 ? process.argv[at + 1]!.split(',') : null;
  const problems: string[] = [];
  const models = await fetchModels(only);
  if (models) problems.push(models);
  if (!process.argv.includes('--no-browser') && !findChromium()) problems.push(`no Chromium for the browser tests: ${HOW_TO_GET_CHROMIUM}`);
  for (const p of problems) process.stderr.write(`npm test: ${p}\n`);
  if (problems.length) process.exit(1);
}

void main();
