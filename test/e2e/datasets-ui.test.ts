// The Collections screen's datasets in real headless Chromium on `trove serve --ui`: a broken
// manifest in the profile shows as invalid with its reason; a dataset folder added through the form
// shows each dataset reaching Ready or Error (with the error); a manifest changed on disk updates
// the screen by itself; removing the folder removes its datasets. Screenshots go to
// test/e2e/artifacts/; no console errors are allowed.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES } from '../datasets/fixtures.js';
import { openUiBrowser, startUiServe, stopUiServe } from '../helpers/ui-serve.js';
import { ensureBuilt } from '../helpers/cli.js';
import { buildRendererOnce } from '../helpers/renderer-build.js';
import { testModelsDir } from '../helpers/test-models.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MODELS = testModelsDir();
const ARTIFACTS = path.join(ROOT, 'test/e2e/artifacts');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-e2e-datasets-'));
const profile = path.join(tmp, 'profile');
const holder = path.join(tmp, 'shared-datasets');
let server: ChildProcess | undefined;
let context: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];

beforeAll(async () => {
  ensureBuilt();
  buildRendererOnce();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  fs.mkdirSync(path.join(profile, 'datasets', 'notes'), { recursive: true });
  fs.writeFileSync(path.join(profile, 'datasets', 'notes', 'manifest.json'), JSON.stringify({ id: 'Notes', name: 'My notes', description: ' ', index: './docs', kind: 'folder' }));
  for (const id of ['ip', 'truncated']) fs.cpSync(path.join(FIXTURES, 'datasets', id), path.join(holder, 'datasets', id), { recursive: true });
  const { child, signInUrl } = await startUiServe([], { cwd: tmp, env: { ...process.env, HOME: tmp, TROVE_HOME: profile, TROVE_PORT: '', TROVE_MODELS_DIR: MODELS } });
  server = child;
  ({ context, page } = await openUiBrowser(path.join(tmp, 'chromium'), { width: 1280, height: 900 }, consoleErrors));
  await page.goto(signInUrl);
}, 240_000);

afterAll(async () => {
  await context?.close();
  await stopUiServe(server);
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('datasets on the Collections screen', () => {
  it('shows a broken manifest from the profile folder as invalid, with every reason', async () => {
    const card = page.getByTestId('dataset-Notes');
    await expect.poll(() => card.getByTestId('dataset-state').textContent(), { timeout: 30_000 }).toBe('Invalid manifest');
    await expect(card.getByTestId('dataset-reason').textContent()).resolves.toBe(
      'Invalid: invalid manifest: id may only hold lowercase letters, digits and hyphens; description is only whitespace',
    );
    await expect(page.getByText('(always scanned)').isVisible()).resolves.toBe(true);
  });

  it('adds a dataset folder: each dataset reaches Ready, or Error with the reason', async () => {
    await page.getByLabel('Dataset folder', { exact: true }).fill(holder);
    await page.getByRole('button', { name: 'Add dataset folder' }).click();
    await expect.poll(() => page.getByTestId('dataset-notice').textContent()).toBe(`Found 2 datasets in ${holder}.`);
    const ip = page.getByTestId('dataset-ip');
    await expect.poll(() => ip.getByTestId('dataset-state').textContent(), { timeout: 30_000 }).toBe('Ready');
    await expect(ip.getByTestId('dataset-kind').textContent()).resolves.toBe('FAISS IndexFlatIP · 24 vectors × 384 · all-MiniLM-L6-v2 · top 3');
    const broken = page.getByTestId('dataset-truncated');
    await expect.poll(() => broken.getByTestId('dataset-state').textContent(), { timeout: 30_000 }).toBe('Error');
    await expect(broken.getByTestId('dataset-reason').textContent()).resolves.toMatch(/^Error: index\.faiss cannot be read: the file is truncated/);
    await page.getByTestId('dataset-truncated').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(ARTIFACTS, '12-datasets.png'), fullPage: true });
  });

  it('follows a manifest changed on disk without a reload', async () => {
    const file = path.join(holder, 'datasets', 'ip', 'manifest.json');
    fs.writeFileSync(file, JSON.stringify({ ...(JSON.parse(fs.readFileSync(file, 'utf8')) as object), name: 'Renamed guides' }));
    await expect.poll(() => page.getByTestId('dataset-ip').locator('h3').textContent(), { timeout: 30_000 }).toBe('Renamed guides (ip)');
  });

  it('removes the folder and its datasets', async () => {
    await page.getByRole('list', { name: 'Dataset folders' }).getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => page.getByTestId('dataset-ip').count()).toBe(0);
    await expect(page.getByTestId('dataset-Notes').isVisible()).resolves.toBe(true);
    expect(fs.existsSync(path.join(holder, 'datasets', 'ip', 'docs.index', 'index.faiss'))).toBe(true);
  });

  it('logged no console errors', () => {
    expect(consoleErrors).toEqual([]);
  });
});
