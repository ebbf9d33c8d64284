// The real models for tests: TROVE_MODELS_DIR, else the user cache `npm test`'s pretest step fills
// (test/helpers/test-models.ts); an error saying how to get them when neither has them.
import { testModelsDir } from '../helpers/test-models.js';

export const modelsDir = testModelsDir();
