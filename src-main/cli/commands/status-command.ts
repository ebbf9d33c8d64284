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
    .option('--database <url>', "the status of the index in PostgreSQL (postgresql://…; default TROVE_DATABASE_URL) instead of this profile's")
    .action(async (o: { database?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const shared = await ctx.sharedIndex(o.database);
      if (shared) {
        const s = await shared.status();
        ctx.print(s, () => formatStatus(s, {}));
        return;
      }
      const live = await runningHostStatus(ctx.environment().engine.profileDir);
      if (!live) await (await ctx.engine()).datasets.settled(); // each dataset's final state, not "loading"
      const s = live?.report ?? (await (await ctx.engine()).status());
      ctx.print(s, () => formatStatus(s, live ? { hostPid: live.pid } : {}));
    });
}
