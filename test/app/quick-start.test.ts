// The README's quick start as a new user meets it: its one command builds what `trove serve --ui`
// serves (the CLI and the app's bundles, the web UI among them: `trove serve --ui` after a CLI-only
// build answers "The Trove UI is not built"), and the server it ends with, on an empty home,
// signs the browser in and serves the UI's page.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPO } from '../helpers/cli.js';
import { buildRendererOnce } from '../helpers/renderer-build.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';
import { startUiServe, stopUiServe } from '../helpers/ui-serve.js';

const readme = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
const scripts = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** The first sh block under "## Quick start", as its &&-joined commands. */
function quickStart(): string[] {
  const section = readme.slice(readme.indexOf('## Quick start'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!.trim();
  expect(block.split('\n'), 'one command').toHaveLength(1);
  return block.split('&&').map((c) => c.trim());
}

/** What `npm run <name>` runs, its nested `npm run`s expanded. */
function expand(name: string): string[] {
  const script = scripts[name];
  if (!script) throw new Error(`package.json has no script "${name}"`);
  return script.split('&&').flatMap((c) => {
    const nested = /^npm run ([\w:-]+)$/.exec(c.trim());
    return nested ? expand(nested[1]!) : [c.trim()];
  });
}

describe("the README's quick start", () => {
  it('is one command that builds the CLI and the web UI, then serves the UI', () => {
    const commands = quickStart();
    const built = commands.flatMap((c) => (/^npm run ([\w:-]+)$/.exec(c) ? expand(/^npm run ([\w:-]+)$/.exec(c)![1]!) : []));
    expect(built).toContain('tsc -p tsconfig.node.json'); // bin/trove.js runs dist/
    expect(built).toContain('electron-vite build'); // out/renderer: what `trove serve --ui` serves
    expect(commands[0]).toBe('npm install');
    expect(commands.at(-1)).toBe('trove serve --ui');
  });

  describe('what it ends with, on an empty home', () => {
    let home: string;
    let serve: Awaited<ReturnType<typeof startUiServe>> | undefined;
    beforeAll(async () => {
      ensureBuilt();
      buildRendererOnce();
      home = tempDir('trove-quick-start-');
      const notes = path.join(home, 'notes');
      fs.mkdirSync(notes);
      fs.writeFileSync(path.join(notes, 'retries.md'), '# Retries\n\nThe client retries failed requests with backoff.\n');
      const env = { PATH: process.env.PATH ?? '', HOME: home, TROVE_HOME: path.join(home, 'profile') };
      execFileSync(process.execPath, [path.join(REPO, 'bin/trove.js'), 'collection', 'add', notes, '--name', 'notes'], { env, stdio: 'pipe' });
      serve = await startUiServe([], { cwd: home, env });
    }, 300_000); // the builds, when npm test has not just made them
    afterAll(async () => {
      await stopUiServe(serve?.child);
      removeTempDirs();
    });

    it('signs the browser in with the printed link and serves the UI, not "not built"', async () => {
      const signIn = await fetch(serve!.signInUrl, { redirect: 'manual' });
      expect(signIn.status).toBeLessThan(400);
      const cookie = signIn.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
      const page = await fetch(new URL('/', serve!.signInUrl), { headers: { cookie } });
      const html = await page.text();
      expect(page.status, html.slice(0, 200)).toBe(200);
      expect(html).toContain('<div id="root"></div>');
      const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)![1]!;
      expect((await fetch(new URL(`/${script}`, serve!.signInUrl), { headers: { cookie } })).status).toBe(200);
      const collections = (await (await fetch(new URL('/api/collections.list', serve!.signInUrl), { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: '{}' })).json()) as { ok: boolean; result: { name: string }[] };
      expect(collections).toMatchObject({ ok: true, result: [expect.objectContaining({ name: 'notes' })] });
    });
  });
});
