// The `trove` command. Exit codes: 0 ok, 1 failed, 2 usage (bad arguments or input).
// Each command group lives in commands/; this file wires them and maps errors to exit codes.
import { Command, CommanderError } from 'commander';
import { isTroveError } from '../engine/edge.js';
import { CliContext } from './context.js';
import { UsageError } from './options.js';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export async function main(argv: string[]): Promise<number> {
  const ctx = new CliContext(argv);
  const program = new Command('trove')
    .description('Local knowledge search for people and their AI assistants')
    .option('--json', 'print one JSON document on stdout')
    .option('--database <url>', "the index in PostgreSQL (postgresql://…; default TROVE_DATABASE_URL) instead of this profile's SQLite file")
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .showHelpAfterError('(run with --help for usage)');
  try {
    for (const register of await commandsFor(argv)) register(program, ctx);
    await program.parseAsync(argv, { from: 'user' });
    return EXIT_OK;
  } catch (err) {
    return reportError(err, ctx.json, debugging(ctx));
  } finally {
    await ctx.close();
  }
}

type Register = (program: Command, ctx: CliContext) => void;

// Command modules load on demand: the server, MCP and model commands pull in the HTTP host, the
// MCP SDK and native libraries, which a plain `trove search` should not pay for (~0.6 s).
export const COMMANDS: Record<string, () => Promise<Register>> = {
  collection: async () => (await import('./commands/collection-commands.js')).registerCollectionCommands,
  index: async () => (await import('./commands/index-command.js')).registerIndexCommand,
  failures: async () => (await import('./commands/index-command.js')).registerIndexCommand,
  search: async () => (await import('./commands/search-command.js')).registerSearchCommand,
  get: async () => (await import('./commands/get-commands.js')).registerGetCommands,
  'multi-get': async () => (await import('./commands/get-commands.js')).registerGetCommands,
  status: async () => (await import('./commands/status-command.js')).registerStatusCommand,
  dataset: async () => (await import('./commands/dataset-commands.js')).registerDatasetCommands,
  serve: async () => (await import('./commands/serve-command.js')).registerServeCommand,
  mcp: async () => (await import('./commands/mcp-command.js')).registerMcpCommand,
  token: async () => (await import('./commands/token-command.js')).registerTokenCommand,
  models: async () => (await import('./commands/models-command.js')).registerModelsCommand,
  embed: async () => (await import('./commands/models-command.js')).registerModelsCommand,
  memory: async () => (await import('./commands/memory-command.js')).registerMemoryCommand,
  migrate: async () => (await import('./commands/migrate-command.js')).registerMigrateCommand,
};

/** The named command's module only; every module for help or an unknown command. */
async function commandsFor(argv: readonly string[]): Promise<Register[]> {
  const first = argv.find((a) => !a.startsWith('-'));
  const loaders = first && COMMANDS[first] && !argv.includes('--help') && !argv.includes('-h') ? [COMMANDS[first]] : [...new Set(Object.values(COMMANDS))];
  const registers = await Promise.all(loaders.map((load) => load()));
  return [...new Set(registers)];
}

/** TROVE_DEBUG, when the environment could be read at all. */
function debugging(ctx: CliContext): boolean {
  try {
    return ctx.environment().debug;
  } catch {
    return false;
  }
}

function reportError(err: unknown, json: boolean, debug: boolean): number {
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0) return EXIT_OK;
    return EXIT_USAGE; // commander already printed the message
  }
  const usage = err instanceof UsageError || (isTroveError(err) && err.code === 'INVALID_INPUT');
  const code = isTroveError(err) ? err.code : usage ? 'USAGE' : 'INTERNAL';
  const message = err instanceof Error ? err.message : String(err);
  if (json) process.stderr.write(`${JSON.stringify({ error: { code, message } })}\n`);
  else process.stderr.write(`trove: ${message}\n`);
  if (!isTroveError(err) && !(err instanceof UsageError) && debug) console.error(err);
  return usage ? EXIT_USAGE : EXIT_FAILED;
}
