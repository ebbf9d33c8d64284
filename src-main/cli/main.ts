// The `trove` command. Exit codes: 0 ok, 1 failed, 2 usage (bad arguments or input).
// Each command group lives in commands/; this file wires them and maps errors to exit codes.
import { Command, CommanderError } from 'commander';
import { isTroveError } from '../engine/errors.js';
import { registerCollectionCommands } from './commands/collection-commands.js';
import { registerGetCommands } from './commands/get-commands.js';
import { registerIndexCommand } from './commands/index-command.js';
import { registerSearchCommand } from './commands/search-command.js';
import { registerStatusCommand } from './commands/status-command.js';
import { registerServeCommand } from './commands/serve-command.js';
import { registerMcpCommand } from './commands/mcp-command.js';
import { registerTokenCommand } from './commands/token-command.js';
import { registerModelsCommand } from './commands/models-command.js';
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
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .showHelpAfterError('(run with --help for usage)');
  registerCollectionCommands(program, ctx);
  registerIndexCommand(program, ctx);
  registerSearchCommand(program, ctx);
  registerGetCommands(program, ctx);
  registerStatusCommand(program, ctx);
  registerServeCommand(program, ctx);
  registerMcpCommand(program, ctx);
  registerTokenCommand(program, ctx);
  registerModelsCommand(program, ctx);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT_OK;
  } catch (err) {
    return reportError(err, ctx.json);
  } finally {
    ctx.close();
  }
}

function reportError(err: unknown, json: boolean): number {
  if (err instanceof CommanderError) {
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0) return EXIT_OK;
    return EXIT_USAGE; // commander already printed the message
  }
  const usage = err instanceof UsageError || (isTroveError(err) && err.code === 'INVALID_INPUT');
  const code = isTroveError(err) ? err.code : usage ? 'USAGE' : 'INTERNAL';
  const message = err instanceof Error ? err.message : String(err);
  if (json) process.stderr.write(`${JSON.stringify({ error: { code, message } })}\n`);
  else process.stderr.write(`trove: ${message}\n`);
  if (!isTroveError(err) && !(err instanceof UsageError) && process.env.TROVE_DEBUG) console.error(err);
  return usage ? EXIT_USAGE : EXIT_FAILED;
}
