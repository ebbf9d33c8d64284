import fs from 'node:fs';
import { OcrEngine } from './src-main/engine/ocr/ocr-engine.ts';
import { loadManifest } from './src-main/engine/embed/manifest.ts';
import os from 'node:os';
const e = new OcrEngine({ models: { manifest: loadManifest(), locations: { cacheDir: os.homedir() + '/.cache/trove-bench/models' } } });
for (const id of ['chi_sim-clean-1', 'chi_sim-clean-2']) {
  const r = await e.recognize({ kind: 'image', bytes: fs.readFileSync(`/tmp/ocrscans/${id}.png`), languages: ['chi_sim'] });
  fs.writeFileSync(`/tmp/ocrprobe/${id}.trove.txt`, r.pages[0].text);
  console.log(id, r.pages[0].confidence, r.pages[0].text.length);
}
await e.close();
