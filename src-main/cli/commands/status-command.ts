// `trove status`: what is indexed, and what could not be.
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { formatStatus } from '../format.js';

export function registerStatusCommand(program: Command, ctx: CliContext): void {
  program
    .command('status')
    .description('what is indexed, and what could not be')
    .action(async (_o: unknown, cmd: Command) => {
      ctx.setJson(cmd);
      await ctx.engine().datasets.settled(); // each dataset's final state, not "loading"
      const s = ctx.engine().status();
      ctx.print(s, () => formatStatus(s));
    });
}
