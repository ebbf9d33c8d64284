// Lint that catches what the type checker does not: promises left floating (a rejection nobody
// handles crashes the host), promises handed to callbacks that ignore them, type-only imports
// written as value imports — and the house's floors (floors.config.js): an import that runs back
// up a floor, a face that goes round the engine's front door, or a circle of imports fails here,
// in the editor. Type-aware: it reads the same three tsconfigs as typecheck.
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import { ENGINE_FLOORS, FACE_PATHS, FACES } from './floors.config.js';

const enginePath = (room) => `./src-main/engine/${room}`;
/** A room of the engine may import its own floor and every floor below it, never a floor above. */
const floorZones = ENGINE_FLOORS.slice(0, -1).map(([name, rooms], floor) => ({
  target: rooms.map(enginePath),
  from: ENGINE_FLOORS.slice(floor + 1).flatMap(([, above]) => above.map(enginePath)),
  message: `the engine's floor "${name}" may not import a floor above it (floors.config.js)`,
}));
/** The engine imports no face; each face imports only what FACES allows, and the engine only through its front door. */
const faceZones = [
  { target: './src-main/engine', from: Object.values(FACE_PATHS).map((p) => `./${p}`), message: 'the engine imports no face' },
  ...Object.entries(FACES).map(([face, may]) => {
    const others = Object.entries(FACE_PATHS).filter(([f]) => f !== face && !may.includes(f)).map(([, p]) => `./${p}`);
    const door = may.includes('engine-door') ? ['./index.ts', './edge.ts'] : may.filter((m) => m.startsWith('engine/')).map((m) => `./${m.slice('engine/'.length)}`);
    return { target: `./${FACE_PATHS[face]}`, from: ['./src-main/engine', ...others], except: door, message: `${face} may import ${may.join(', ')} (floors.config.js)` };
  }),
];

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'release/**', 'node_modules/**', 'bench/.work/**', 'native/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        project: ['./tsconfig.node.json', './tsconfig.tooling.json', './tsconfig.web.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // the floors and the faces' arrows (floors.config.js); no circle of imports anywhere in the product
    files: ['src-main/**/*.ts', 'src-preload/**/*.ts', 'src-renderer/**/*.ts', 'src-renderer/**/*.tsx'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: ['./tsconfig.node.json', './tsconfig.web.json'], noWarnOnMultipleProjects: true })],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: [...floorZones, ...faceZones] }],
      'import-x/no-cycle': 'error',
    },
  },
  {
    // the renderer: hooks called in order, effects that list what they read
    files: ['src-renderer/**/*.tsx', 'src-renderer/**/*.ts'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
);
