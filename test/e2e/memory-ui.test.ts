// The Memory screen end to end: `trove serve --ui` on a profile whose memory assistants filled
// (some entries embedded), driven in real headless Chromium. A person sees threads with their
// counts and entries newest first, searches in each mode, opens an entry's metadata, tags and
// image, deletes an entry and a thread after confirming, sees what an assistant stores meanwhile,
// and gives a token read-only memory. Screenshots go to test/e2e/artifacts/; no console errors.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src-main/engine/index.js';
import { ensureBuilt } from '../helpers/cli.js';
import { buildRendererOnce } from '../helpers/renderer-build.js';
import { openUiBrowser, startUiServe, stopUiServe } from '../helpers/ui-serve.js';
import { testModelsDir } from '../helpers/test-models.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MODELS = testModelsDir();
const ARTIFACTS = path.join(ROOT, 'test/e2e/artifacts');
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-e2e-memory-'));
const profile = path.join(tmp, 'profile');
let server: ChildProcess;
let context: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `memory-${name}.png`), fullPage: true });
}

beforeAll(async () => {
  ensureBuilt();
  buildRendererOnce();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  // an assistant's memory, embedded, before the server starts
  const engine = await Engine.open({ profileDir: profile, embeddings: { modelsDir: MODELS, defaultModel: 'all-MiniLM-L6-v2', workers: 1 } });
  await engine.memory.storeBatch([
    { threadId: 'trip-planning', source: 'user', text: 'We fly to Lisbon on the 12th and stay near the river.', tags: ['travel'] },
    { threadId: 'trip-planning', source: 'agent', text: 'Booked a table at a seafood place for the first evening.', metadata: { status: 'done', booking: { ref: 'A17' } }, tags: ['travel', 'food'] },
    { threadId: 'trip-planning', source: 'agent', text: 'Pack an umbrella: rain showers are forecast for the weekend.', tags: ['weather'], images: [{ data: PNG, mime_type: 'image/png' }] },
    { threadId: 'refactor', source: 'agent', text: 'The payment module still calls the legacy tax service.', metadata: { priority: 2 } },
  ]);
  await engine.embed();
  await engine.close();

  const { child, signInUrl } = await startUiServe([], { cwd: tmp, env: { ...process.env, HOME: tmp, TROVE_HOME: profile, TROVE_PORT: '', TROVE_MODELS_DIR: MODELS } });
  server = child;
  ({ context, page } = await openUiBrowser(path.join(tmp, 'chromium'), { width: 1400, height: 900 }, consoleErrors));
  await page.goto(signInUrl);
}, 300_000);

afterAll(async () => {
  await context?.close();
  await stopUiServe(server);
  fs.rmSync(tmp, { recursive: true, force: true });
});

const entries = () => page.getByTestId('memory-entry');

describe('the Memory screen', () => {
  it('shows threads with their counts and every entry newest first', async () => {
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Memory' }).click();
    await expect.poll(() => page.getByTestId('memory-summary').textContent()).toMatch(/^4 entries in 2 threads · 1 image · 0 waiting for embeddings · all-MiniLM-L6-v2/);
    await expect(page.getByTestId('thread-trip-planning').textContent()).resolves.toBe('trip-planning (3)');
    await expect(page.getByTestId('thread-refactor').textContent()).resolves.toBe('refactor (1)');
    await expect.poll(() => entries().count()).toBe(4);
    await expect(entries().first().textContent()).resolves.toContain('legacy tax service');
    await page.getByTestId('thread-trip-planning').getByRole('button').click();
    await expect.poll(() => page.getByTestId('memory-entries-summary').textContent()).toBe('1–3 of 3 entries, newest first');
    await expect(entries().first().textContent()).resolves.toContain('umbrella');
    await expect(entries().first().textContent()).resolves.toContain('#weather · 1 image');
    await shot('01-threads');
  });

  it('searches memory by keyword, by meaning and both', async () => {
    await page.getByRole('button', { name: 'All threads (4)' }).click();
    await page.getByLabel('Search memory').fill('umbrella');
    await page.getByRole('search', { name: 'Memory search' }).getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.getByTestId('memory-search-summary').textContent()).toMatch(/^1–1 of 1 ·/);
    await expect(entries().first().locator('mark').allTextContents()).resolves.toEqual(['umbrella']);
    await page.getByLabel('Search memory').fill('will it rain on saturday');
    for (const mode of ['Semantic', 'Hybrid', 'Hybrid + rerank']) {
      await page.getByLabel(mode, { exact: true }).check();
      await page.getByRole('search', { name: 'Memory search' }).getByRole('button', { name: 'Search' }).click();
      const strategy = mode === 'Semantic' ? 'vector' : mode === 'Hybrid' ? 'hybrid:rrf' : 'rerank:rrf';
      await expect.poll(() => page.getByTestId('memory-search-summary').textContent(), { timeout: 30_000 }).toMatch(new RegExp(`· ${strategy}$`));
      await expect(entries().first().textContent()).resolves.toContain('umbrella');
    }
    await shot('02-search');
    await page.getByLabel('Keyword', { exact: true }).check();
  }, 120_000);

  it("opens an entry's metadata, tags and image", async () => {
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByRole('button', { name: /· trip-planning · agent/ }).nth(1).click();
    const detail = page.getByTestId('memory-detail');
    await expect.poll(() => detail.textContent()).toContain('seafood');
    await expect(detail.getByTestId('memory-tags').textContent()).resolves.toBe('travel, food');
    expect(JSON.parse((await detail.getByTestId('memory-metadata').textContent())!)).toEqual({ status: 'done', booking: { ref: 'A17' } });
    await page.getByRole('button', { name: /· trip-planning · agent/ }).first().click();
    const img = detail.getByRole('img');
    await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(1);
    await expect(img.getAttribute('alt')).resolves.toMatch(/image\/png, 70 bytes/);
    await shot('03-entry');
  });

  it('deletes an entry, then a thread, only after confirming', async () => {
    const detail = page.getByTestId('memory-detail');
    await detail.getByRole('button', { name: 'Delete…' }).click();
    const confirm = page.getByRole('alertdialog');
    await expect(confirm.textContent()).resolves.toMatch(/Delete entry #3\?.*cannot be undone/);
    await shot('04-delete-confirm');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect(detail.isVisible()).resolves.toBe(true);
    await detail.getByRole('button', { name: 'Delete…' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete entry' }).click();
    await detail.waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('memory-summary').textContent()).toMatch(/^3 entries in 2 threads · 0 images/);

    await page.getByTestId('thread-refactor').getByRole('button').click();
    await page.getByRole('button', { name: 'Delete thread…' }).click();
    await expect(page.getByRole('alertdialog').textContent()).resolves.toContain('Its one entry is removed');
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete thread' }).click();
    await page.getByTestId('thread-refactor').waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('memory-summary').textContent()).toMatch(/^2 entries in 1 thread ·/);
  });

  it('shows what an assistant stores meanwhile once refreshed, embedded by the background stage', async () => {
    const runtime = JSON.parse(fs.readFileSync(path.join(profile, 'runtime.json'), 'utf8')) as { mcpUrl: string; token: string };
    const client = new Client({ name: 'e2e-assistant', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(runtime.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${runtime.token}` } } }));
    const r = await client.callTool({ name: 'store_context', arguments: { thread_id: 'standup', source: 'agent', text: 'Dana is out on Friday.', tags: ['team'] } });
    await client.close();
    expect(r.isError).toBeFalsy();
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => page.getByTestId('thread-standup').textContent()).toBe('standup (1)');
    // trove serve embeds new entries in the background: refreshing shows it catch up
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return page.getByTestId('memory-summary').textContent();
        },
        { timeout: 90_000, interval: 1000 },
      )
      .toMatch(/^3 entries in 2 threads · 0 images · 0 waiting for embeddings/);
    await shot('05-after-assistant');
  });

  it('gives a new token read-only memory from the Tokens panel', async () => {
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('button', { name: 'Connect' }).click();
    const tokens = page.getByTestId('tokens');
    await tokens.getByLabel('New token name').fill('reader');
    await tokens.getByLabel('Agent memory').selectOption('read');
    await tokens.getByRole('button', { name: 'Create token' }).click();
    await expect.poll(() => tokens.getByTestId('token-reader').textContent()).toMatch(/reader.*all.*all.*read only.*never/);
    await shot('06-token');
  });

  it('logged no console errors', () => {
    expect(consoleErrors).toEqual([]);
  });
});
