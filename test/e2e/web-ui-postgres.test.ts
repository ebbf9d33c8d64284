// The web UI on PostgreSQL: `trove serve --ui --database <url>` on an empty database, driven in
// real headless Chromium. A person signs in, adds a folder, watches it index, searches it by
// keyword, waits for the host's background embedding and searches it semantically; the memory
// screen shows the database's memory (an entry imported there first); the datasets section shows
// the database's datasets (none here: "No datasets yet", never a blank or a spinner); Settings names the database and its Database field refuses a URL that does not work. Screens are screenshotted into test/e2e/artifacts/;
// no console errors are allowed.
import { spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../helpers/postgres.js';
import { testModelsDir } from '../helpers/test-models.js';
import { ensureBuilt } from '../helpers/cli.js';
import { buildRendererOnce } from '../helpers/renderer-build.js';
import { openUiBrowser, serverLog, startUiServe, stopUiServe } from '../helpers/ui-serve.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MODELS = testModelsDir();
const ARTIFACTS = path.join(ROOT, 'test/e2e/artifacts');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-e2e-pg-'));
const docs = path.join(tmp, 'field-notes');
const home = path.join(tmp, 'home');
let server: ChildProcess;
let signInUrl = '';
let context: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

beforeAll(async () => {
  ensureBuilt();
  buildRendererOnce();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  fs.mkdirSync(path.join(docs, 'trips'), { recursive: true });
  fs.writeFileSync(path.join(docs, 'trips', 'lighthouse.md'), '# Lighthouse visit\n\nThe keeper logs wind, swell and visibility every four hours.\n\n## Lamp\n\nThe Fresnel lens turns once every ten seconds.\n');
  fs.writeFileSync(path.join(docs, 'birds.md'), '# Birds\n\nGannets dive from thirty metres; puffins nest in burrows on the cliff top.\n');
  fs.mkdirSync(home);
  const url = await freshDatabase('webui');
  // an assistant's note already in the database's memory (written by `trove memory import --database`)
  const notes = path.join(tmp, 'memory.jsonl');
  fs.writeFileSync(notes, `${JSON.stringify({ thread_id: 'voyage', source: 'agent', text: 'The ferry to the lighthouse leaves at dawn when the swell is low.' })}\n`);
  const imported = spawnSync(process.execPath, [path.join(ROOT, 'bin/trove.js'), 'memory', 'import', notes, '--database', url], {
    cwd: tmp,
    encoding: 'utf8',
    env: { ...process.env, HOME: home, TROVE_HOME: path.join(tmp, 'profile'), TROVE_DATABASE_URL: '' },
  });
  if (imported.status !== 0) throw new Error(`trove memory import failed:\n${imported.stderr}`);

  ({ child: server, signInUrl } = await startUiServe(['--database', url], { cwd: tmp, env: { ...process.env, HOME: home, TROVE_HOME: path.join(tmp, 'profile'), TROVE_PORT: '', TROVE_DATABASE_URL: '', TROVE_MODELS_DIR: MODELS } }));

  ({ context, page } = await openUiBrowser(path.join(tmp, 'chromium'), { width: 1280, height: 860 }, consoleErrors));
}, 240_000);

afterEach(({ task }) => {
  if (task.result?.state === 'fail') process.stderr.write(`trove serve's stderr:\n${serverLog(server)}\n`);
});

afterAll(async () => {
  await context?.close();
  await stopUiServe(server);
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('web UI on trove serve --ui --database', () => {
  it('adds a folder, indexes it and finds it by keyword', async () => {
    await page.goto(signInUrl);
    await page.getByTestId('no-collections').waitFor();
    await page.getByLabel('Folder path').fill(docs);
    await page.getByRole('button', { name: 'Add and index' }).click();
    const card = page.getByTestId('collection-field-notes');
    await expect.poll(() => card.getByTestId('collection-state').textContent(), { timeout: 30_000 }).toBe('Indexed');
    await expect.poll(() => card.getByTestId('count-documents').textContent(), { timeout: 10_000 }).toBe('2');
    await shot('pg-01-collections-indexed');

    await page.getByRole('button', { name: 'Search' }).first().click();
    await page.getByLabel('Query').fill('fresnel lens');
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    const first = page.getByTestId('result').first();
    await expect.poll(() => first.textContent(), { timeout: 20_000 }).toContain('Lighthouse visit');
    await expect(first.locator('mark').allTextContents()).resolves.toEqual(expect.arrayContaining(['Fresnel', 'lens']));
    await shot('pg-02-search');
  });

  it('embeds in the background and answers semantic search', async () => {
    await page.getByRole('button', { name: 'Collections' }).click();
    const card = page.getByTestId('collection-field-notes');
    await expect.poll(() => card.getByTestId('vectors').textContent(), { timeout: 120_000 }).toMatch(/\(100%\)/);
    await page.getByRole('button', { name: 'Search' }).first().click();
    await page.getByLabel('Query').fill('how often does the lamp rotate');
    await page.getByLabel('Semantic', { exact: true }).check();
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.getByTestId('result').first().textContent(), { timeout: 20_000 }).toContain('Lighthouse visit');
    await shot('pg-03-search-semantic');
    await page.getByLabel('Keyword').check();
  }, 180_000);

  it("shows the database's memory and its (empty) datasets; Settings names the database and refuses a bad one", async () => {
    await page.getByRole('button', { name: 'Memory' }).click();
    await expect.poll(() => page.getByTestId('memory-summary').textContent(), { timeout: 10_000 }).toMatch(/^1 entry in 1 thread/);
    await page.getByTestId('thread-voyage').getByRole('button').click();
    await expect.poll(() => page.getByText('The ferry to the lighthouse leaves at dawn').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(await page.getByRole('alert').count()).toBe(0);
    await shot('pg-04-memory');
    await page.getByRole('button', { name: 'Collections' }).click();
    await expect.poll(() => page.getByTestId('no-datasets').textContent(), { timeout: 10_000 }).toMatch(/No datasets yet/);
    expect(await page.getByTestId('datasets-unavailable').count()).toBe(0);
    await page.getByRole('button', { name: 'Settings' }).click();
    await expect.poll(() => page.locator('dd.path').allTextContents(), { timeout: 10_000 }).toEqual(expect.arrayContaining([expect.stringMatching(/^postgresql:\/\/trove@127\.0\.0\.1:\d+\/trove_webui_/)]));
    await expect(page.getByTestId('database-in-use').textContent()).resolves.toMatch(/^In use: PostgreSQL postgresql:\/\/.* \(from --database, which wins over the saved choice\)$/);
    // the Database field checks a URL by connecting before it saves it, and says why it cannot
    await page.getByLabel('Database', { exact: true }).fill('postgresql://trove:hunter2@127.0.0.1:1/nope');
    await page.getByRole('button', { name: 'Check and save' }).click();
    const error = page.getByTestId('database').getByRole('alert');
    await expect.poll(() => error.textContent(), { timeout: 15_000 }).toMatch(/^cannot use PostgreSQL at postgresql:\/\/trove:\*\*\*@127\.0\.0\.1:1\/nope: /);
    await expect(page.getByTestId('database-saved').textContent()).resolves.toMatch(/^Saved for the next start: this computer \(SQLite\)\. /); // nothing saved, no restart asked for
    await shot('pg-05-settings');
    expect(consoleErrors).toEqual([]);
  });
});
