// The models the tests run on: the user cache `npm test`'s pretest step fills with the public
// English model and the tiny built ones (test/helpers/test-models.ts); an error saying how to get
// them when it has not run.
import { testModelsDir } from '../helpers/test-models.js';

export const modelsDir = testModelsDir();
