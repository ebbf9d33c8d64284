// One test per behaviour, run on both backends: `describeBackends` runs a suite once on the
// profile's SQLite index and once on an index in PostgreSQL (the run's test server, a database of
// its own per engine), with the same engine API, so a drift between them is a failing test.
import { afterAll, describe } from 'vitest';
import { Engine, type EngineOptions } from '../../src-main/engine/index.js';
import { databasePath } from '../../src-main/engine/profile.js';
import { PostgresStorage } from '../../src-main/engine/store/postgres/postgres-storage.js';
import { SqliteStorage } from '../../src-main/engine/store/sqlite/sqlite-storage.js';
import type { Storage } from '../../src-main/engine/store/storage.js';
import { freshDatabase } from './postgres.js';
import { removeTempDirs, tempDir, writeTree } from './tmp.js';

export type BackendName = 'sqlite' | 'postgres';
export const BACKENDS: readonly BackendName[] = ['sqlite', 'postgres'];

export interface TestIndex {
  engine: Engine;
  root: string;
  profile: string;
}

export interface TestBackend {
  readonly name: BackendName;
  /** A new engine on an empty index of this backend (a temp profile; on PostgreSQL also a database of its own). */
  open(opts?: Partial<EngineOptions>): Promise<Engine>;
  /** Writes `files` into a new folder, adds it as collection `name` and indexes it. */
  indexedFolder(files: Record<string, string | Buffer>, name?: string, opts?: Partial<EngineOptions>): Promise<TestIndex>;
  /** The index an engine of this suite runs on, as a child process or a second engine names it (`database`: undefined on SQLite). */
  target(engine: Engine): { profileDir: string; database?: string };
  /** The storage under an engine of this suite, opened apart from it (to look at rows a test must prove). */
  peek(engine: Engine): Promise<Storage>;
}

const engines: Engine[] = [];
const peeks: Storage[] = [];
const databases = new WeakMap<Engine, string>();

afterAll(async () => {
  while (peeks.length) await peeks.pop()!.close();
  while (engines.length) await engines.pop()!.close();
  removeTempDirs();
});

function backend(name: BackendName): TestBackend {
  const open = async (opts: Partial<EngineOptions> = {}): Promise<Engine> => {
    const database = name === 'postgres' ? (opts.database ?? (await freshDatabase('engine', { migrated: true }))) : undefined;
    const engine = await Engine.open({ profileDir: tempDir('trove-profile-'), ...opts, database });
    if (database) databases.set(engine, database);
    engines.push(engine);
    return engine;
  };
  return {
    name,
    open,
    async indexedFolder(files, collection = 'notes', opts = {}) {
      const root = tempDir('trove-root-');
      writeTree(root, files);
      const engine = await open(opts);
      await engine.addCollection({ root, name: collection });
      await engine.index();
      return { engine, root, profile: engine.profileDir };
    },
    target: (engine) => ({ profileDir: engine.profileDir, database: databases.get(engine) }),
    async peek(engine) {
      const database = databases.get(engine);
      const storage = database ? await PostgresStorage.open(database) : SqliteStorage.open(databasePath(engine.profileDir));
      peeks.push(storage);
      return storage;
    },
  };
}

/** The suite once per backend, each run named after it (`search [sqlite]`, `search [postgres]`). */
export function describeBackends(title: string, suite: (b: TestBackend) => void): void {
  for (const name of BACKENDS) describe(`${title} [${name}]`, () => suite(backend(name)));
}
