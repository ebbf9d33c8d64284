// `trove mcp`: the stdio server an MCP client spawns. It relays to the running engine host
// (starting one in the background when none runs), so all clients share one engine.
// Nothing but protocol messages is written to stdout.
import type { Command } from 'commander';
import { runStdioShim } from '../../host/stdio-relay.js';
import type { CliContext } from '../context.js';

export function registerMcpCommand(program: Command, ctx: CliContext): void {
  program
    .command('mcp')
    .description('MCP over stdio for clients that spawn a command (relays to the running `trove serve`, starting one if needed)')
    .option('--token <token>', 'use this access token (e.g. a scoped one from `trove token create`; default TROVE_MCP_TOKEN or the host token)')
    .option('--config <base64>', "the knowledge tools' request config: base64 JSON of snippet_length, max_tokens, sibling_window, order_by, chars_per_token")
    .action(async (o: { token?: string; config?: string }) => {
      const env = ctx.environment();
      await runStdioShim({ profileDir: env.engine.profileDir, token: o.token ?? env.host.mcpToken, config: o.config });
    });
}
