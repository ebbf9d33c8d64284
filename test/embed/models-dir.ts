// The real models for tests: TROVE_MODELS_DIR, else ../shared/models beside the repository.
import fs from 'node:fs';
import path from 'node:path';

export const modelsDir = process.env.TROVE_MODELS_DIR || path.resolve(import.meta.dirname, '..', '..', '..', 'shared', 'models');
if (!fs.existsSync(path.join(modelsDir, 'all-MiniLM-L6-v2'))) {
  throw new Error(`the embedding tests need the real models: set TROVE_MODELS_DIR (looked in ${modelsDir})`);
}
