// What every command gets: the environment (read once, on first use), the engine (opened on
// first use, closed by main), output mode, printing.
import type { Command } from 'commander';
import { Engine, openSharedIndex, sharedIndexOptions, openSharedIndexerFor, readEnvironment, validatePostgresUrl, type EngineOptions, type SharedIndex, type SharedIndexer, type TroveEnvironment } from '../engine/index.js';
import { UsageError } from './options.js';

export class CliContext {
  json: boolean;
  private opened: Engine | null = null;
  private shared: SharedIndex | null = null;
  private indexer: SharedIndexer | null = null;
  private env: TroveEnvironment | null = null;

  constructor(argv: readonly string[]) {
    this.json = argv.includes('--json');
  }

  /**
   * TROVE_* variables, checked: a bad value is a usage error naming the variable (exit 2). The
   * working directory is the project root whose datasets/ is searched for manifests, as the
   * dataset-registry spec's server does (a host `trove mcp` starts inherits the client's).
   */
  environment(): TroveEnvironment {
    if (this.env) return this.env;
    const env = readEnvironment(process.env);
    return (this.env = { ...env, engine: { ...env.engine, datasets: { ...env.engine.datasets, projectRoot: process.cwd() } } });
  }

  /** The engine, opened on first use (`adjust`: what a command changes in the options, e.g. `serve` turns on background embedding). */
  engine(adjust: (opts: EngineOptions) => EngineOptions = (o) => o): Engine {
    if (!this.opened && this.environment().database) {
      throw new UsageError('TROVE_DATABASE_URL is set, and this command does not run on PostgreSQL yet: only `trove index`, `embed`, `models use`, `collection add|list|rename|remove`, `search`, `get`, `multi-get`, `token`, `status`, `memory`, `dataset` and `serve` do (see docs/scale-out.md); unset it to use this profile\'s SQLite index');
    }
    return (this.opened ??= Engine.open(adjust(this.environment().engine)));
  }

  /** The index in PostgreSQL (`--database`, else TROVE_DATABASE_URL), or null for the profile's SQLite index. */
  async sharedIndex(option?: string): Promise<SharedIndex | null> {
    const url = option !== undefined ? validatePostgresUrl(option, '--database') : this.environment().database;
    if (!url) return null;
    return (this.shared ??= await openSharedIndex(url, sharedIndexOptions(this.environment().engine)));
  }

  /** Indexing into PostgreSQL (`--database`, else TROVE_DATABASE_URL), or null for the profile's SQLite index. */
  async sharedIndexer(option?: string): Promise<SharedIndexer | null> {
    const url = option !== undefined ? validatePostgresUrl(option, '--database') : this.environment().database;
    if (!url) return null;
    return (this.indexer ??= await openSharedIndexerFor(url, this.environment().engine));
  }

  setJson(cmd: Command): void {
    this.json = !!cmd.optsWithGlobals<{ json?: boolean }>().json;
  }

  /** One JSON document with --json, else the human text. */
  print(value: unknown, human: () => string): void {
    process.stdout.write(this.json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
  }

  /** Settles when the engine's model workers have exited. */
  async close(): Promise<void> {
    const engine = this.opened;
    const shared = this.shared;
    const indexer = this.indexer;
    this.opened = this.shared = this.indexer = null;
    await Promise.all([shared?.close(), indexer?.close()]);
    if (engine) await engine.close();
  }
}
