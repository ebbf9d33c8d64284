// What every command gets: the environment (read once, on first use), the engine (opened on
// first use on the profile's SQLite index or, with --database or TROVE_DATABASE_URL, on an index in
// PostgreSQL; closed by main), output mode, printing. The engine's modules load with it: a command
// that never opens one (`trove mcp`, the relay) does not pay for them.
import type { Command } from 'commander';
import { readEnvironment, validatePostgresUrl, type TroveEnvironment } from '../engine/edge.js';
import type { Engine, EngineOptions } from '../engine/index.js';

export class CliContext {
  json: boolean;
  private opened: Promise<Engine> | null = null;
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

  /**
   * The engine, opened on first use on the index the command names (`--database`, else
   * TROVE_DATABASE_URL, else the profile's SQLite file). `adjust`: what a command changes in the
   * options (`serve` turns on background embedding).
   */
  engine(cmd: Command, adjust: (opts: EngineOptions) => EngineOptions = (o) => o): Promise<Engine> {
    if (!this.opened) {
      const option = cmd.optsWithGlobals<{ database?: string }>().database;
      const database = option !== undefined ? validatePostgresUrl(option, '--database') : this.environment().database;
      const options = adjust({ ...this.environment().engine, database });
      this.opened = import('../engine/index.js').then(({ Engine }) => Engine.open(options));
    }
    return this.opened;
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
    const opened = this.opened;
    this.opened = null;
    if (opened) await (await opened.catch(() => null))?.close();
  }
}
