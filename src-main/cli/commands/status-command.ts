// `trove status`: what is indexed, what could not be, and how far embedding has come. When a host
// (`trove serve`, the desktop app) serves this profile, its live report (progress, rate, ETA,
// background embedding) is shown; otherwise the index as this process reads it.
import type { Command } from 'commander';
import { runningHostStatus } from '../../host/status-client.js';
import type { CliContext } from '../context.js';
import { formatStatus } from '../format.js';

export function registerStatusCommand(program: Command, ctx: CliContext): void {
  program
    .command('status')
    .description('what is indexed, what could not be, and how far embedding has come (live from a running host)')
    .action(async (_o: unknown, cmd: Command) => {
      ctx.setJson(cmd);
      // a host serving this profile has the live report — unless the command names another index
      const named = cmd.optsWithGlobals<{ database?: string }>().database !== undefined || !!ctx.environment().database;
      const live = named ? null : await runningHostStatus(ctx.environment().engine.profileDir);
      if (live) return ctx.print(live.report, () => formatStatus(live.report, { hostPid: live.pid }));
      const engine = await ctx.engine(cmd);
      await engine.datasets.settled(); // each dataset's final state, not "loading"
      const s = await engine.status();
      ctx.print(s, () => formatStatus(s, {}));
    });
}
