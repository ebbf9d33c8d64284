import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

// Native modules: never bundled; loaded from node_modules (asarUnpack'ed) at run time.
// electron-vite's build.externalizeDeps (default: true) already externalizes everything
// in package.json "dependencies"; listing them here too keeps it explicit and safe if a
// native module ever moves to devDependencies.
const nativeExternals = ['better-sqlite3', 'onnxruntime-node', 'sqlite-vec', /^sqlite-vec-/, /^zstd-napi(\/|$)/];

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rolldownOptions: {
        // the main-process entries in one build: the app, the engine host (utilityProcess.fork),
        // the host's embedding worker (embed/pool.ts starts ./worker.js beside the host), its
        // document parse worker (ingest/parse-pool.ts starts ./parse-worker.js), its WAL
        // checkpointer (store/wal-checkpointer.ts starts ./checkpoint-worker.js), its SQLite reader
        // threads (store/sqlite/reader-pool.ts starts ./reader-worker.js), its OCR
        // workers (ocr/ocr-pool.ts starts ./ocr-worker.js) and the thread that makes a model's
        // rewritten files (embed/model-prepare.ts starts ./model-prepare-worker.js)
        input: {
          main: resolve(import.meta.dirname, 'src-main/app/main.ts'),
          host: resolve(import.meta.dirname, 'src-main/host/main.ts'),
          worker: resolve(import.meta.dirname, 'src-main/engine/embed/worker.ts'),
          'parse-worker': resolve(import.meta.dirname, 'src-main/engine/ingest/parse-worker.ts'),
          'checkpoint-worker': resolve(import.meta.dirname, 'src-main/engine/store/checkpoint-worker.ts'),
          'reader-worker': resolve(import.meta.dirname, 'src-main/engine/store/sqlite/reader-worker.ts'),
          'ocr-worker': resolve(import.meta.dirname, 'src-main/engine/ocr/ocr-worker.ts'),
          'model-prepare-worker': resolve(import.meta.dirname, 'src-main/engine/embed/model-prepare-worker.ts'),
        },
        external: nativeExternals,
        // format: 'es' is chosen automatically because package.json has "type": "module"
        output: { entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js' },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      // a sandboxed preload can require only `electron`: bundle zod (the shared API schemas) into it
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: resolve(import.meta.dirname, 'src-preload/index.ts') },
        external: nativeExternals,
        // sandboxed preloads cannot be ESM -> force CJS; .cjs because package.json is "type": "module"
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'src-renderer',
    base: './', // relative asset URLs: works from file://, from `trove serve --ui` at /, or under a sub-path
    plugins: [react()],
    build: {
      outDir: 'out/renderer',
      rolldownOptions: {
        input: { index: resolve(import.meta.dirname, 'src-renderer/index.html') },
      },
    },
  },
});
