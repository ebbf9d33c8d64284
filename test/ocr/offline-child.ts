// Run by offline.test.ts inside a network namespace with no network at all (unshare -n): reads the
// fixture page with a fresh engine and no download cache, and reports what came out, and whether
// this process could reach anything (it must not).
import { OcrEngine } from '../../src-main/engine/ocr/ocr-engine.js';
import { loadManifest } from '../../src-main/engine/embed/manifest.js';
import { LETTER_PNG } from './helpers.js';

const reachable = await fetch('https://registry.npmjs.org/').then(() => true, () => false);
const engine = new OcrEngine({ models: { manifest: loadManifest(), locations: { cacheDir: process.argv[2]! } } });
try {
  const r = await engine.recognize({ kind: 'image', bytes: LETTER_PNG });
  process.stdout.write(JSON.stringify({ reachable, text: r.pages[0]?.text ?? '', failed: r.failed }));
} finally {
  await engine.close();
}
