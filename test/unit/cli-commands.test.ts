// The CLI loads only the module of the command it runs: every top-level command must be routed.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { CliContext } from '../../src-main/cli/context.js';
import { COMMANDS } from '../../src-main/cli/main.js';

describe('lazy command routing', () => {
  it('routes every registered top-level command to the module that registers it', async () => {
    for (const [name, load] of Object.entries(COMMANDS)) {
      const program = new Command('trove');
      (await load())(program, new CliContext([]));
      expect(program.commands.map((c) => c.name()), `module loaded for "${name}"`).toContain(name);
    }
    const all = new Command('trove');
    for (const register of new Set(await Promise.all(Object.values(COMMANDS).map((l) => l())))) register(all, new CliContext([]));
    expect(Object.keys(COMMANDS).sort()).toEqual(all.commands.map((c) => c.name()).sort());
  });
});
