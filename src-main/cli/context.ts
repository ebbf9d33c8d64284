// What every command gets: the environment (read once, on first use), the engine (opened on
// first use, closed by main), output mode, printing.
import type { Command } from 'commander';
import { Engine, readEnvironment, type EngineOptions, type TroveEnvironment } from '../engine/index.js';

export class CliContext {
  json: boolean;
  private opened: Engine | null = null;
  private env: TroveEnvironment | null = null;

  constructor(argv: readonly string[]) {
    this.json = argv.includes('--json');
  }

  /** TROVE_* variables, checked: a bad value is a usage error naming the variable (exit 2). */
  environment(): TroveEnvironment {
    return (this.env ??= readEnvironment(process.env));
  }

  /** The engine, opened on first use (`adjust`: what a command changes in the options, e.g. `serve` turns on background embedding). */
  engine(adjust: (opts: EngineOptions) => EngineOptions = (o) => o): Engine {
    return (this.opened ??= Engine.open(adjust(this.environment().engine)));
  }

  setJson(cmd: Command): void {
    this.json = !!cmd.optsWithGlobals<{ json?: boolean }>().json;
  }

  /** One JSON document with --json, else the human text. */
  print(value: unknown, human: () => string): void {
    process.stdout.write(this.json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
  }

  /** Settles when the engine's model workers have exited. */
  close(): Promise<void> {
    const engine = this.opened;
    this.opened = null;
    return engine ? engine.close() : Promise.resolve();
  }
}
