// The environment is read once, at the edges, into one checked object: every variable lands in
// the engine's or the host's options, and a bad value is a usage error naming the variable.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_VARIABLES, readEnvironment, TroveError } from '../../src-main/engine/index.js';

const home = '/tmp/trove-config-test';

describe('readEnvironment', () => {
  it('with nothing set: the OS profile folder and no overrides', () => {
    const env = readEnvironment({ XDG_DATA_HOME: '/xdg' }, 'linux');
    expect(env.engine.profileDir).toBe('/xdg/trove');
    expect(env.engine.maxFileBytes).toBeUndefined();
    expect(env.engine.nativeRank).toEqual({ enabled: true });
    expect(env.engine.search).toEqual({});
    expect(env.engine.indexing).toEqual({ live: {} });
    expect(env.engine.embeddings).toEqual({});
    expect(env.host).toEqual({});
    expect(env.debug).toBe(false);
  });

  it('maps every variable to the option it sets', () => {
    const env = readEnvironment({
      TROVE_HOME: home,
      TROVE_MAX_FILE_BYTES: '4096',
      TROVE_MODELS_DIR: '/models',
      TROVE_RERANK_MODEL: 'test-tiny-cross-encoder',
      TROVE_FUSION: 'Weighted',
      TROVE_NATIVE_RANK: '0',
      TROVE_NATIVE_DIR: '/native',
      TROVE_READER_THREADS: '3',
      TROVE_ONNX_SIGNED_WEIGHTS: 'false',
      TROVE_WATCH_POLLING: 'true',
      TROVE_WATCH_POLL_MS: '250',
      TROVE_RECONCILE_MINUTES: '0.5',
      TROVE_PORT: '7099',
      TROVE_TOKEN: 'a-token-of-sixteen-chars',
      TROVE_MODELS_MIRROR: 'http://127.0.0.1:9/models',
      TROVE_MCP_TOKEN: 'trove_scoped',
      TROVE_IDLE_EXIT_MINUTES: '0.5',
      TROVE_MCP_FAST_CALLS: '0',
      TROVE_DEBUG: '1',
      TROVE_DATABASE_URL: 'postgresql://trove@/index?host=/run/postgresql',
    });
    expect(env).toEqual({
      engine: {
        profileDir: home,
        maxFileBytes: 4096,
        readerThreads: 3,
        nativeRank: { enabled: false, dir: '/native' },
        search: { fusion: 'weighted' },
        indexing: { live: { usePolling: true, pollIntervalMs: 250, reconcileIntervalMs: 30_000 } },
        embeddings: { modelsDir: '/models', rerankModel: 'test-tiny-cross-encoder', signedWeights: false },
      },
      host: { port: 7099, token: 'a-token-of-sixteen-chars', modelsMirror: 'http://127.0.0.1:9/models', mcpToken: 'trove_scoped', idleExitMinutes: 0.5, mcpFastCalls: false },
      debug: true,
      database: 'postgresql://trove@/index?host=/run/postgresql',
    });
    // every variable the README lists is one this test sets
    expect(Object.keys(ENVIRONMENT_VARIABLES).sort()).toEqual(
      ['TROVE_HOME', 'TROVE_MAX_FILE_BYTES', 'TROVE_MODELS_DIR', 'TROVE_RERANK_MODEL', 'TROVE_FUSION', 'TROVE_NATIVE_RANK', 'TROVE_NATIVE_DIR', 'TROVE_READER_THREADS',
        'TROVE_ONNX_SIGNED_WEIGHTS', 'TROVE_WATCH_POLLING', 'TROVE_WATCH_POLL_MS', 'TROVE_RECONCILE_MINUTES', 'TROVE_PORT', 'TROVE_TOKEN',
        'TROVE_MODELS_MIRROR', 'TROVE_MCP_TOKEN', 'TROVE_IDLE_EXIT_MINUTES', 'TROVE_MCP_FAST_CALLS', 'TROVE_DEBUG', 'TROVE_DATABASE_URL'].sort(),
    );
  });

  it('the README documents every variable', () => {
    const readme = fs.readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');
    expect(Object.keys(ENVIRONMENT_VARIABLES).filter((v) => !readme.includes(`\`${v}\``))).toEqual([]);
  });

  it("TROVE_RERANK_MODEL=none turns reranking off; empty values count as unset", () => {
    expect(readEnvironment({ TROVE_HOME: home, TROVE_RERANK_MODEL: 'none' }).engine.embeddings).toEqual({ rerankModel: null });
    expect(readEnvironment({ TROVE_HOME: home, TROVE_PORT: '', TROVE_MAX_FILE_BYTES: '  ' }).host.port).toBeUndefined();
  });

  it.each([
    ['TROVE_MAX_FILE_BYTES', 'ten', /TROVE_MAX_FILE_BYTES must be a positive whole number \(got "ten"\)/],
    ['TROVE_MAX_FILE_BYTES', '-5', /TROVE_MAX_FILE_BYTES must be a positive whole number/],
    ['TROVE_MAX_FILE_BYTES', '1.5', /TROVE_MAX_FILE_BYTES must be a positive whole number/],
    ['TROVE_PORT', '70000', /TROVE_PORT must be a whole number from 0 to 65535 \(got "70000"\)/],
    ['TROVE_FUSION', 'max', /TROVE_FUSION must be one of rrf, weighted \(got "max"\)/],
    ['TROVE_DATABASE_URL', 'sqlite:///tmp/x.db', /TROVE_DATABASE_URL must start with postgresql:\/\/ or postgres:\/\//],
    ['TROVE_DATABASE_URL', 'postgresql://localhost', /TROVE_DATABASE_URL names no database/],
    ['TROVE_NATIVE_RANK', 'maybe', /TROVE_NATIVE_RANK must be 1 or 0 \(got "maybe"\)/],
    ['TROVE_READER_THREADS', '-1', /TROVE_READER_THREADS must be a whole number from 0 to 64/],
    ['TROVE_WATCH_POLL_MS', '10', /TROVE_WATCH_POLL_MS must be a whole number from 50/],
    ['TROVE_RECONCILE_MINUTES', '0', /TROVE_RECONCILE_MINUTES must be a number from/],
    ['TROVE_MODELS_MIRROR', 'ftp://example.org', /TROVE_MODELS_MIRROR must be an http\(s\) URL/],
    ['TROVE_MODELS_MIRROR', 'not a url', /TROVE_MODELS_MIRROR must be an http\(s\) URL/],
    ['TROVE_TOKEN', 'short', /TROVE_TOKEN must be at least 16 characters/],
  ])('%s=%s is a usage error naming the variable', (name, value, message) => {
    let err: unknown;
    try {
      readEnvironment({ TROVE_HOME: home, [name]: value });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TroveError);
    expect((err as TroveError).code).toBe('INVALID_INPUT');
    expect((err as TroveError).message).toMatch(message);
  });
});
