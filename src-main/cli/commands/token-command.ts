// `trove token create|list|revoke`: named bearer tokens for MCP clients, optionally limited to
// some collections and tools. The secret is printed once; only its hash is kept.
import { type Command, Option } from 'commander';
import type { MemoryGrant, TokenInfo, TokenProfile } from '../../engine/index.js';
import { TOOL_NAMES } from '../../host/mcp-entry.js';
import type { CliContext } from '../context.js';
import { UsageError } from '../options.js';

const DATABASE_HELP = "the tokens of the index in PostgreSQL (postgresql://…; default TROVE_DATABASE_URL), which every host on it honours, instead of this profile's";

const list = (v: string, prev: string[] = []): string[] => [...prev, ...v.split(',').map((s) => s.trim()).filter(Boolean)];

export function registerTokenCommand(program: Command, ctx: CliContext): void {
  const token = program.command('token').description('access tokens for MCP clients');
  token
    .command('create')
    .description('create a token (printed once)')
    .requiredOption('--name <name>', 'a name to recognise it by')
    .option('--collections <a,b>', 'only these collections (default: all)', list)
    .option('--tools <t1,t2>', `only these tools: ${TOOL_NAMES.join(', ')} (default: all)`, list)
    .addOption(
      new Option('--memory <grant>', 'agent memory: none, read (search and read) or write (also store, update, delete); default write, or none with --collections').choices([
        'none',
        'read',
        'write',
      ]),
    )
    .option('--profile <profile>', 'standard (the canonical tools) or deep-research (exactly search + fetch, for ChatGPT connectors)', 'standard')
    .option('--expires-in <days>', 'refuse the token after this many days (default: never)', Number)
    .option('--database <url>', DATABASE_HELP)
    .action(async (o: { name: string; collections?: string[]; tools?: string[]; memory?: MemoryGrant; profile: string; expiresIn?: number; database?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const unknown = o.tools?.filter((t) => !TOOL_NAMES.includes(t)) ?? [];
      if (unknown.length) throw new UsageError(`unknown tool ${unknown.join(', ')}; tools are ${TOOL_NAMES.join(', ')}`);
      if (o.profile !== 'standard' && o.profile !== 'deep-research') throw new UsageError(`--profile must be standard or deep-research (got "${o.profile}")`);
      const profile = o.profile as TokenProfile;
      const input = { name: o.name, collections: o.collections, tools: o.tools, memory: o.memory, profile, expiresInDays: o.expiresIn };
      const shared = await ctx.sharedIndex(o.database);
      const { token: secret, info } = await (shared ?? (await ctx.engine())).createToken(input);
      ctx.print({ token: secret, ...info }, () => {
        process.stderr.write(`Token "${info.name}" created (${describe(info)}). It is shown only once:\n`);
        return secret;
      });
    });
  token
    .command('list')
    .description('list tokens (names and scopes; never the secrets)')
    .option('--database <url>', DATABASE_HELP)
    .action(async (o: { database?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const shared = await ctx.sharedIndex(o.database);
      const tokens = await (shared ?? (await ctx.engine())).listTokens();
      ctx.print(tokens, () =>
        tokens.length
          ? tokens.map((t) => `${t.name}  ${t.hint}…  ${describe(t)}; created ${t.createdAt}; last used ${t.lastUsedAt ?? 'never'}`).join('\n')
          : 'No tokens. Create one: trove token create --name <name> [--collections a,b] [--tools search,get] [--memory none|read|write]',
      );
    });
  token
    .command('revoke <name>')
    .description('revoke a token (clients using it are refused at once)')
    .option('--database <url>', DATABASE_HELP)
    .action(async (name: string, o: { database?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const shared = await ctx.sharedIndex(o.database);
      await (shared ?? (await ctx.engine())).revokeToken(name);
      ctx.print({ revoked: name }, () => `Token "${name}" revoked.`);
    });
}

function describe(t: TokenInfo): string {
  const cols = t.collections === null ? 'all collections' : t.collections.length ? `collections ${t.collections.join(', ')}` : 'no collections';
  const tools = t.tools === null ? 'all tools' : `tools ${t.tools.join(', ')}`;
  const memory = t.memory === 'none' ? 'no memory' : t.memory === 'read' ? 'memory read-only' : 'memory read and write';
  return `${cols}, ${tools}, ${memory}${t.profile === 'deep-research' ? ', deep-research profile (search + fetch)' : ''}${t.expiresAt ? `, expires ${t.expiresAt}` : ''}`;
}
