// What every command gets: the engine (opened on first use, closed by main), output mode, printing.
import type { Command } from 'commander';
import { Engine } from '../engine/engine.js';
import { UsageError } from './options.js';

export class CliContext {
  json: boolean;
  private opened: Engine | null = null;

  constructor(argv: readonly string[]) {
    this.json = argv.includes('--json');
  }

  engine(): Engine {
    return (this.opened ??= Engine.open({ maxFileBytes: maxFileBytesFromEnv() }));
  }

  setJson(cmd: Command): void {
    this.json = !!cmd.optsWithGlobals<{ json?: boolean }>().json;
  }

  /** One JSON document with --json, else the human text. */
  print(value: unknown, human: () => string): void {
    process.stdout.write(this.json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
  }

  close(): void {
    this.opened?.close();
    this.opened = null;
  }
}

function maxFileBytesFromEnv(): number | undefined {
  const raw = process.env.TROVE_MAX_FILE_BYTES?.trim();
  if (!raw) return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`TROVE_MAX_FILE_BYTES must be a positive whole number of bytes (got "${raw}")`);
  return n;
}
