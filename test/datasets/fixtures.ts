// Where the committed dataset fixtures are (written by test/fixtures/datasets/make-fixtures.py).
import path from 'node:path';

/** The folder holding datasets/<id>/manifest.json for every fixture (added with `addFolder`). */
export const FIXTURES = path.resolve(import.meta.dirname, '..', 'fixtures', 'datasets');
