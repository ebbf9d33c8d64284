// The web UI end to end: `trove serve --ui` on a real engine, driven in real headless Chromium.
// A person signs in, adds a folder (through the folder browser), watches it index, searches,
// opens a preview, finds semantic search ready by itself (background embedding), copies a client
// config, reads settings and switches background embedding off and on, downloads a
// model from a local mirror (on a second server whose models folder is empty) and removes the
// collection. Each screen is screenshotted into test/e2e/artifacts/ and checked by its visible
// text; no console errors are allowed.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelMirror, TINY_MODEL } from '../helpers/model-mirror.js';
import { testModelsDir } from '../helpers/test-models.js';
import { ensureBuilt } from '../helpers/cli.js';
import { buildRendererOnce } from '../helpers/renderer-build.js';
import { openUiBrowser, startUiServe, stopUiServe, watchConsole } from '../helpers/ui-serve.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MODELS = testModelsDir();
const ARTIFACTS = path.join(ROOT, 'test/e2e/artifacts');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trove-e2e-'));
const docs = path.join(tmp, 'field-notes');
// the server's HOME: the config-writing buttons must never touch the real one
const home = path.join(tmp, 'home');
let server: ChildProcess;
let signInUrl = '';
let context: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];

async function shot(name: string, on: Page = page): Promise<void> {
  await on.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** `trove serve --ui` on its own profile (HOME kept out of the real one); resolves with its one-time sign-in link. */
function startServe(profile: string, env: Record<string, string>): Promise<{ child: ChildProcess; signInUrl: string }> {
  return startUiServe([], { cwd: tmp, env: { ...process.env, HOME: home, APPDATA: path.join(home, 'AppData'), TROVE_HOME: profile, TROVE_PORT: '', ...env } });
}

beforeAll(async () => {
  // the CLI (dist/) and the renderer (out/renderer) this test serves are built from the current sources
  ensureBuilt();
  buildRendererOnce();
  fs.mkdirSync(ARTIFACTS, { recursive: true });

  fs.mkdirSync(path.join(docs, 'trips'), { recursive: true });
  fs.writeFileSync(
    path.join(docs, 'trips', 'lighthouse.md'),
    '---\ntags: [coast]\n---\n# Lighthouse visit\n\nThe keeper logs wind, swell and visibility every four hours.\n\n## Lamp\n\nThe Fresnel lens turns once every ten seconds.\n',
  );
  fs.writeFileSync(path.join(docs, 'birds.md'), '# Birds\n\nGannets dive from thirty metres; puffins nest in burrows on the cliff top.\n');
  for (let i = 0; i < 60; i++) fs.writeFileSync(path.join(docs, `log-${i}.txt`), `Day ${i}: tide tables, weather and a short walk.\n`);
  fs.writeFileSync(path.join(docs, 'scan.md'), Buffer.from([0, 159, 146, 150, 0, 0, 1, 2]));
  fs.mkdirSync(home);

  ({ child: server, signInUrl } = await startServe(path.join(tmp, 'profile'), { TROVE_MODELS_DIR: MODELS }));

  ({ context, page } = await openUiBrowser(path.join(tmp, 'chromium'), { width: 1280, height: 860 }, consoleErrors));
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(signInUrl).origin });
}, 240_000);

afterAll(async () => {
  await context?.close();
  await stopUiServe(server);
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('web UI on trove serve --ui', () => {
  it('signs in with the one-time link and shows the empty collections screen', async () => {
    await page.goto(signInUrl);
    expect(new URL(page.url()).pathname).toBe('/');
    await page.getByTestId('no-collections').waitFor();
    await expect(page.getByRole('heading', { name: 'Collections', level: 1 }).isVisible()).resolves.toBe(true);
    await shot('01-collections-empty');
  });

  it('adds a folder picked in the folder browser and watches it finish indexing', async () => {
    await page.getByLabel('Folder path').fill(tmp);
    await page.getByRole('button', { name: 'Browse…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Choose a folder' });
    await expect.poll(() => dialog.getByTestId('browser-path').textContent()).toBe(tmp);
    await dialog.getByRole('button', { name: '📁 field-notes' }).click();
    await expect.poll(() => dialog.getByTestId('browser-path').textContent()).toBe(docs);
    await expect(dialog.getByRole('button', { name: '📁 trips' }).isVisible()).resolves.toBe(true);
    await shot('02-folder-browser');
    await dialog.getByRole('button', { name: 'Use this folder' }).click();
    await expect(page.getByLabel('Folder path').inputValue()).resolves.toBe(docs);
    await page.getByLabel('Context note (optional, shown to assistants)').fill('Notes from the coast');
    await page.getByRole('button', { name: 'Add and index' }).click();

    const card = page.getByTestId('collection-field-notes');
    await expect.poll(() => card.getByTestId('collection-state').textContent(), { timeout: 30_000 }).toBe('Indexed');
    await expect.poll(() => card.getByTestId('count-documents').textContent()).toBe('62');
    await expect(card.textContent()).resolves.toContain('Notes from the coast');
    await card.getByText('1 file not indexed (or only in part), with reasons').click();
    await expect(card.getByText('scan.md').isVisible()).resolves.toBe(true);
    await shot('03-collections-indexed');
  });

  it('sets the collection’s OCR languages on its card, refusing an unknown code and one not installed next to the field, keeping what was typed', async () => {
    const card = page.getByTestId('collection-field-notes');
    await expect(card.textContent()).resolves.toContain('OCR languages: eng');
    await card.getByRole('button', { name: 'Change' }).click();
    const field = card.getByLabel('OCR languages for field-notes (Tesseract codes, comma-separated: eng,deu)');
    await expect(field.inputValue()).resolves.toBe('eng');
    await field.fill('eng, klingon');
    await card.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => card.getByRole('alert').textContent()).toContain('"klingon" is not an OCR language Trove knows');
    await expect(field.inputValue()).resolves.toBe('eng, klingon');
    // German is in the catalogue but its data is not on this machine: the card says how to fetch it
    await field.fill('eng,deu');
    await card.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => card.getByRole('alert').textContent()).toMatch(/OCR language "deu" is not available.*trove models pull tesseract-deu/);
    await shot('03b-ocr-languages-refused');
    await field.fill('eng');
    await card.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => field.count()).toBe(0);
    await expect(card.getByRole('alert').count()).resolves.toBe(0);
    await expect(card.textContent()).resolves.toContain('OCR languages: eng');
  });

  it('shows the finished run on the index status screen', async () => {
    await page.getByRole('button', { name: 'Index status' }).click();
    await page.getByTestId('idle').waitFor();
    const row = page.getByTestId('recent').getByRole('row').filter({ hasText: 'field-notes' });
    await expect(row.textContent()).resolves.toMatch(/done.*63.*62/);
    await expect.poll(() => page.getByTestId('total-documents').textContent()).toBe('62');
    await shot('04-status');
  });

  it('searches from the keyboard, highlights the match and previews what get returns', async () => {
    await page.keyboard.press('Control+k');
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('search-query');
    await page.keyboard.type('fresnel lens');
    await page.keyboard.press('Enter');
    const first = page.getByTestId('result').first();
    await first.waitFor();
    await expect(first.textContent()).resolves.toContain('Lighthouse visit');
    await expect(first.locator('mark').allTextContents()).resolves.toEqual(expect.arrayContaining(['Fresnel', 'lens']));
    await expect(first.locator('.score').textContent()).resolves.toMatch(/^\d\.\d{3}$/);
    await first.getByRole('button', { name: 'Lighthouse visit' }).click();
    const preview = page.getByTestId('preview');
    await preview.locator('pre.document').waitFor();
    const text = await preview.locator('pre.document').textContent();
    expect(text).toContain('4: # Lighthouse visit');
    expect(text).toContain('The Fresnel lens turns once every ten seconds.');
    await expect(preview.locator('.anchor').first().textContent()).resolves.toMatch(/^\d+: /);
    await expect(preview.locator('.anchor mark').allTextContents()).resolves.toEqual(['Fresnel', 'lens']);
    await expect(preview.textContent()).resolves.toContain('trove://field-notes/trips/lighthouse.md');
    await shot('05-search-preview');

    // a question as a person types it: only the words it searched for are marked, whole words
    // ("turns" for "turn"), never "the" (a stop word) nor the "the" inside "there"
    await page.getByLabel('Query').fill('how often does the lens turn there');
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.getByTestId('result').first().locator('mark').allTextContents()).toEqual(['lens', 'turns']);
    await expect(page.getByTestId('result').first().locator('pre.snippet').textContent()).resolves.toContain('The Fresnel lens');
  });

  it('explains scores on request', async () => {
    await page.getByLabel('Explain scores').check();
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    const first = page.getByTestId('result').first();
    await first.getByText('Why this score').click();
    await expect(first.locator('pre.explain').textContent()).resolves.toContain('bm25');
  });

  it('pages through many results with Next and Previous', async () => {
    await page.getByLabel('Explain scores').uncheck();
    await page.getByLabel('Query').fill('tide tables');
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    const summary = page.getByTestId('search-summary');
    await expect.poll(() => summary.textContent()).toMatch(/^1–20 of about 6\d/);
    await expect(page.getByRole('button', { name: 'Previous' }).count()).resolves.toBe(0);
    const firstPage = await page.getByTestId('result').locator('.path').allTextContents();
    await page.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => summary.textContent()).toMatch(/^21–40 /);
    const secondPage = await page.getByTestId('result').locator('.path').allTextContents();
    expect(secondPage).toHaveLength(20);
    expect(secondPage.filter((p) => firstPage.includes(p))).toEqual([]);
    await page.getByRole('button', { name: 'Previous' }).click();
    await expect.poll(() => summary.textContent()).toMatch(/^1–20 /);
    await expect(page.getByTestId('result').locator('.path').allTextContents()).resolves.toEqual(firstPage);
  });

  it('semantic search arrives by itself: the server embeds in the background, with progress, and semantic and hybrid answer', async () => {
    await page.getByRole('button', { name: 'Collections' }).click();
    const card = page.getByTestId('collection-field-notes');
    await expect.poll(() => card.getByTestId('vectors').textContent(), { timeout: 120_000 }).toMatch(/^Embeddings: 63 of 63 chunks embedded \(100%\), .+$/);
    await expect(card.getByRole('button', { name: 'Compute embeddings' }).isDisabled()).resolves.toBe(true); // nothing left to compute
    await page.getByRole('button', { name: 'Index status' }).click();
    await expect.poll(() => page.getByTestId('embedding-summary').textContent()).toBe('63 of 63 chunks embedded (100%); background embedding has nothing left to do.');
    await shot('06-status-embedded');

    await page.getByRole('button', { name: 'Search' }).first().click();
    await page.getByLabel('Query').fill('how often does the lamp rotate');
    for (const mode of ['Semantic', 'Hybrid']) {
      await page.getByLabel(mode, { exact: true }).check();
      await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
      await expect.poll(() => page.getByTestId('result').first().textContent(), { timeout: 20_000 }).toContain('Lighthouse visit');
      await expect(page.getByTestId('search-notice').count()).resolves.toBe(0); // everything is embedded: nothing to say
      await shot(`06-search-${mode.toLowerCase()}`);
    }
    await page.getByLabel('Keyword').check();
  }, 180_000);

  it('indexes a PDF dropped into the folder, counts it by kind, and previews a hit at its page', async () => {
    fs.copyFileSync(path.join(ROOT, 'test/fixtures/formats/good/report.pdf'), path.join(docs, 'report.pdf'));
    await page.getByRole('button', { name: 'Collections' }).click();
    const card = page.getByTestId('collection-field-notes');
    // the watcher indexes it in the background, and the card's counts follow without a reindex
    await expect.poll(() => card.getByTestId('kinds').textContent(), { timeout: 30_000 }).toContain('pdf 1');
    await expect(card.getByTestId('kinds').textContent()).resolves.toContain('text 60');
    await page.getByRole('button', { name: 'Search' }).first().click();
    await page.getByLabel('Query').fill('moraine photogrammetry');
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    const first = page.getByTestId('result').first();
    await expect.poll(() => first.textContent()).toContain('Quarterly Field Report');
    await expect(first.getByTestId('result-page').textContent()).resolves.toBe(' · page 2');
    await first.getByRole('button', { name: 'Quarterly Field Report' }).click();
    const preview = page.getByTestId('preview');
    await preview.locator('pre.document').waitFor();
    await expect(preview.getByTestId('preview-page').textContent()).resolves.toBe('page 2');
    await expect(preview.locator('.page-marker').allTextContents()).resolves.toEqual([expect.stringMatching(/^1: \[page 1\]/), expect.stringMatching(/\[page 2\]/), expect.stringMatching(/\[page 3\]/)]);
    await expect(preview.locator('.anchor mark').allTextContents()).resolves.toEqual(expect.arrayContaining(['moraine', 'photogrammetry']));
    await shot('07-search-preview-pdf-page');
  });

  it('searches every source with knowledge.search and previews knowledge.get in each retrieval mode with its token count', async () => {
    await page.getByRole('tab', { name: 'All sources (knowledge.search)' }).click();
    await page.locator('#knowledge-query').fill('how often does the lamp rotate');
    await page.getByRole('search', { name: 'Search all sources' }).getByRole('button', { name: 'Search' }).click();
    const first = page.getByTestId('knowledge-result').first();
    await expect.poll(() => first.textContent(), { timeout: 20_000 }).toContain('Lighthouse visit');
    await expect(first.locator('.score').textContent()).resolves.toMatch(/^0\.\d{3} hybrid$/);
    await expect(page.getByTestId('knowledge-summary').textContent()).resolves.toMatch(/hybrid · documents:field-notes: hybrid \(\d+\)/);
    await first.getByRole('button', { name: 'Lighthouse visit' }).click();
    const preview = page.getByTestId('knowledge-preview');
    for (const mode of ['snippet', 'chunk', 'chunk_with_siblings', 'full', 'auto']) {
      await preview.getByTestId('retrieval-mode').selectOption(mode);
      const shown = mode === 'auto' ? 'chunk_with_siblings' : mode; // auto with a budget set
      await expect.poll(() => preview.getByTestId('token-count').textContent()).toMatch(new RegExp(`^\\d+ of 2000 tokens \\(\\d+ characters at 4 a token\\) · ${shown} · `));
      const [, tokens, chars] = /^(\d+) of 2000 tokens \((\d+) characters at 4 a token\)/.exec((await preview.getByTestId('token-count').textContent())!)!.map(Number);
      expect(tokens).toBe(Math.ceil(chars! / 4));
      expect((await preview.getByTestId('knowledge-content').textContent())!.length).toBe(chars);
      await shot(`06b-knowledge-${mode}`);
    }
    await preview.getByTestId('retrieval-mode').selectOption('chunk_with_siblings');
    await preview.getByTestId('max-tokens').fill('20');
    await expect.poll(() => preview.getByTestId('token-count').textContent()).toMatch(/^(1?\d|20) of 20 tokens /);
  });

  it('pauses and resumes a collection', async () => {
    await page.getByRole('button', { name: 'Collections' }).click();
    const card = page.getByTestId('collection-field-notes');
    await card.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => card.getByTestId('collection-state').textContent()).toBe('Paused');
    await card.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => card.getByTestId('collection-state').textContent()).toBe('Indexed');
  });

  it('creates a scoped token, shows it once, and revokes it after confirmation', async () => {
    await page.getByRole('button', { name: 'Connect' }).click();
    const tokens = page.getByTestId('tokens');
    await tokens.getByLabel('New token name').fill('cursor-laptop');
    await tokens.getByLabel('field-notes').check();
    await tokens.getByLabel('search', { exact: true }).check();
    await tokens.getByRole('button', { name: 'Create token' }).click();
    const secret = await tokens.getByTestId('new-token').locator('code').textContent();
    expect(secret).toMatch(/^trove_/);
    const row = tokens.getByTestId('token-cursor-laptop');
    await expect(row.textContent()).resolves.toMatch(/cursor-laptop.*field-notes.*search.*never/);
    await expect(row.textContent()).resolves.not.toContain(secret!);
    await shot('07-tokens');
    await row.getByRole('button', { name: 'Revoke…' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke token' }).click();
    await row.waitFor({ state: 'detached' });
    await expect(tokens.getByTestId('new-token').count()).resolves.toBe(0);
  });

  it('copies a ready-made client config', async () => {
    await page.getByRole('button', { name: 'Connect' }).click();
    const endpoint = await page.getByTestId('endpoint').textContent();
    expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    await page.getByTestId('config-Cursor').getByRole('button', { name: 'Copy config' }).click();
    await page.getByTestId('copied').waitFor();
    const copied = JSON.parse(await page.evaluate(() => navigator.clipboard.readText())) as { mcpServers: { trove: { url: string; headers: { Authorization: string } } } };
    expect(copied.mcpServers.trove.url).toBe(endpoint);
    expect(copied.mcpServers.trove.headers.Authorization).toMatch(/^Bearer trove_/);
    await expect(page.getByTestId('config-Claude Desktop').textContent()).resolves.toContain('"mcp"');
    await shot('08-connect');
  });

  it('writes a config into the client’s own file, backing up the one already there', async () => {
    const card = page.getByTestId('config-Cursor');
    const file = path.join(home, '.cursor', 'mcp.json');
    await card.getByRole('button', { name: 'Write to Cursor config' }).click();
    await expect.poll(() => card.getByTestId('write-result').textContent()).toContain(`Wrote Trove into ${file}.`);
    await expect(card.getByTestId('write-result').textContent()).resolves.toContain('no backup was needed');
    const written = JSON.parse(fs.readFileSync(file, 'utf8')) as { mcpServers: { trove: { url: string } } };
    expect(written.mcpServers.trove.url).toBe(await page.getByTestId('endpoint').textContent());

    fs.writeFileSync(file, JSON.stringify({ mcpServers: { other: { command: 'other-mcp' } } }));
    await card.getByRole('button', { name: 'Write to Cursor config' }).click();
    await expect.poll(() => card.getByTestId('write-result').textContent()).toContain(`The previous file is kept as ${file}.trove-backup-`);
    expect(Object.keys((JSON.parse(fs.readFileSync(file, 'utf8')) as { mcpServers: object }).mcpServers)).toEqual(['other', 'trove']);

    const claude = page.getByTestId('config-Claude Desktop');
    const claudeFile = path.join(home, '.config', 'Claude', 'claude_desktop_config.json');
    fs.mkdirSync(path.dirname(claudeFile), { recursive: true });
    fs.writeFileSync(claudeFile, '{ not json');
    await claude.getByRole('button', { name: 'Write to Claude Desktop config' }).click();
    await expect.poll(() => claude.getByRole('alert').textContent()).toContain('is not valid JSON');
    expect(fs.readFileSync(claudeFile, 'utf8')).toBe('{ not json');
    await shot('08-connect-written');
  });

  it('shows each MCP client request in the live log as it happens', async () => {
    const log = page.getByTestId('request-log');
    const config = JSON.parse(fs.readFileSync(path.join(home, '.cursor', 'mcp.json'), 'utf8')) as { mcpServers: { trove: { url: string; headers: Record<string, string> } } };
    const client = new Client({ name: 'e2e-assistant', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(config.mcpServers.trove.url), { requestInit: { headers: config.mcpServers.trove.headers } }));
    await client.callTool({ name: 'search', arguments: { query: 'puffins' } });
    await client.callTool({ name: 'knowledge.search', arguments: { query: 'puffins' } });
    // the Connect screen names the client as it introduced itself while its session lives
    await expect.poll(() => page.getByTestId('clients').textContent()).toMatch(/e2e-assistant 1runtime2025/);
    await client.close();
    const newest = log.getByTestId('request').first();
    await expect.poll(() => newest.textContent()).toMatch(/e2e-assistant 1 \(runtime\).*tools\/call knowledge\.search.*puffins.*ok.*ms/);
    await expect(log.getByTestId('request').nth(1).textContent()).resolves.toMatch(/e2e-assistant.*tools\/call search.*puffins.*ok.*ms/);
    await expect(log.textContent()).resolves.not.toContain(config.mcpServers.trove.headers.Authorization!.slice(7));
    await shot('08-connect-request-log');
  });

  it('shows the settings the engine reports, and what is not adjustable yet', async () => {
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByTestId('modes').waitFor();
    await expect(page.getByTestId('modes').textContent()).resolves.toContain('keyword: available');
    await expect(page.getByText('Not adjustable here yet').isVisible()).resolves.toBe(true);
    await expect(page.locator('main').textContent()).resolves.toContain(path.join(tmp, 'profile'));
    // the model catalogue, and the model each collection's vectors come from
    const models = page.getByTestId('models');
    await expect.poll(() => models.getByTestId('model-all-MiniLM-L6-v2').textContent()).toMatch(/embed.*ready/);
    await expect(models.getByLabel('field-notes').inputValue()).resolves.toMatch(/MiniLM|e5/);
    await expect(models.getByTestId('model-state-field-notes').textContent()).resolves.toMatch(/\d+ vectors/);
    // background embedding: on by default, switched off and on again without a restart
    const bg = page.getByTestId('background-embedding');
    const box = bg.getByLabel('Embed new and changed files in the background');
    await expect(box.isChecked()).resolves.toBe(true);
    await expect(bg.getByTestId('background-state').textContent()).resolves.toBe('Every chunk has a vector.');
    await shot('09-settings');
    await box.uncheck();
    await expect.poll(() => bg.getByTestId('background-state').textContent()).toMatch(/^Off: /);
    await box.check();
    await expect.poll(() => bg.getByTestId('background-state').textContent()).toBe('Every chunk has a vector.');
    // OCR: on by default with nothing to read here, switched off and on again without a restart; the
    // card follows the stage after a switch is saved (it looks, finds nothing, and says so)
    const ocr = page.getByTestId('ocr-settings');
    const ocrBox = ocr.getByLabel('Read scanned PDF pages and images in the background');
    await expect(ocrBox.isChecked()).resolves.toBe(true);
    await expect.poll(() => ocr.getByTestId('ocr-state').textContent(), { timeout: 10_000 }).toBe('Every scanned page has been read.');
    await ocrBox.uncheck();
    await expect.poll(() => ocr.getByTestId('ocr-state').textContent()).toMatch(/^Off: /);
    await ocrBox.check();
    await expect.poll(() => ocr.getByTestId('ocr-state').textContent(), { timeout: 10_000 }).toBe('Every scanned page has been read.');
  });

  it('adds a redaction rule in Settings, refuses a bad one next to it, and keeps the saved rule', async () => {
    const form = page.getByTestId('saved-settings');
    await form.getByRole('button', { name: 'Add suggested rule: E-mail addresses' }).click();
    await form.getByLabel('New rule').fill('a*');
    await form.getByRole('button', { name: 'Add rule', exact: true }).click();
    await form.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => form.getByTestId('redaction-rules').textContent()).toContain('matches empty text');
    await form.getByRole('button', { name: 'Remove rule a*' }).click();
    await form.getByLabel('Port').fill('80');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => form.locator('#port-error').textContent()).toContain('port must be 1024–65535');
    await form.getByLabel('Port').fill('');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => form.getByTestId('settings-status').textContent()).toContain('Saved.');
    await shot('09a-settings-redaction');
    await page.reload();
    await page.getByRole('button', { name: 'Settings' }).click();
    await expect.poll(() => page.getByTestId('redaction-rules').textContent()).toContain('@[A-Za-z0-9.-]+');
    await expect(page.getByTestId('max-source').textContent()).resolves.toMatch(/In force: 10 MB \(the default\)/);
  });

  it('downloads a missing model from Settings with live progress, shows a failed one, and lists it as ready (second server: empty models folder, local mirror)', async () => {
    const { id } = TINY_MODEL;
    const empty = path.join(tmp, 'models-empty');
    fs.mkdirSync(empty);
    const mirror = await startModelMirror(path.join(tmp, 'mirror'), { slow: true });
    mirror.fill(MODELS, id, TINY_MODEL.files);
    mirror.corrupt(id, TINY_MODEL.weights);
    const second = await startServe(path.join(tmp, 'profile-models'), { TROVE_MODELS_DIR: empty, TROVE_MODELS_MIRROR: mirror.url });
    // cookies ignore the port: signing in to the second server would replace the first one's session
    const cookies = await context.cookies();
    const p2 = await context.newPage();
    watchConsole(p2, consoleErrors);
    try {
      await p2.goto(second.signInUrl);
      await p2.getByRole('button', { name: 'Settings' }).click();
      const row = p2.getByTestId(`model-${id}`);
      const download = row.getByRole('button', { name: `Download ${id}` });
      await expect.poll(() => row.textContent()).toContain('missing');

      // the mirror's weights are corrupt: the download fails with the reason, and can be tried again
      await download.click();
      await expect.poll(() => p2.getByTestId(`model-error-${id}`).textContent(), { timeout: 30_000 }).toMatch(/failed.*sha256.*try again/);
      await expect(download.isVisible()).resolves.toBe(true);
      await shot('09c-model-download-failed', p2);

      mirror.fill(MODELS, id, TINY_MODEL.files);
      await download.click();
      await p2.getByRole('progressbar', { name: `Downloading ${id}` }).waitFor();
      await expect.poll(() => p2.getByTestId(`model-download-${id}`).textContent()).toMatch(/onnx\/model\.onnx: [\d.]+ of 1\.6 MB from mirror http:\/\/127\.0\.0\.1:\d+\//);
      await expect(p2.getByTestId(`model-error-${id}`).count()).resolves.toBe(0);
      await shot('09d-model-downloading', p2);
      await expect.poll(() => row.locator('td').nth(3).textContent(), { timeout: 30_000 }).toBe('ready');
      await expect(download.count()).resolves.toBe(0);
      await expect(p2.getByTestId(`model-served-${id}`).textContent()).resolves.toBe(`${id} downloaded from mirror ${mirror.url} and verified.`);
      expect(fs.readdirSync(empty)).toEqual([]); // downloads go to the profile's cache
      expect(fs.existsSync(path.join(tmp, 'profile-models', 'models', id, TINY_MODEL.weights))).toBe(true);
    } finally {
      await p2.close();
      await context.clearCookies();
      await context.addCookies(cookies);
      await stopUiServe(second.child);
      await mirror.close();
    }
  });

  it('switches between light and dark, and remembers the choice', async () => {
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const theme = page.getByTestId('theme');
    await expect(theme.getByLabel('Follow the system').isChecked()).resolves.toBe(true);
    await expect(background()).resolves.toBe('rgb(246, 247, 249)'); // headless Chromium reports a light system
    await theme.getByLabel('Dark').check();
    await expect.poll(background).toBe('rgb(21, 24, 29)');
    await shot('09b-settings-dark');
    await page.reload();
    await expect.poll(background).toBe('rgb(21, 24, 29)');
    await page.getByRole('button', { name: 'Settings' }).click();
    await expect(page.getByTestId('theme').getByLabel('Dark').isChecked()).resolves.toBe(true);
    await page.getByTestId('theme').getByLabel('Follow the system').check();
    await expect.poll(background).toBe('rgb(246, 247, 249)');
  });

  it('removes a collection only after confirmation, leaving the files alone', async () => {
    await page.getByRole('button', { name: 'Collections' }).click();
    const card = page.getByTestId('collection-field-notes');
    await card.getByRole('button', { name: 'Remove…' }).click();
    const confirm = page.getByRole('alertdialog');
    await expect(confirm.textContent()).resolves.toContain('are not touched');
    await shot('10-remove-confirm');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect(card.isVisible()).resolves.toBe(true);
    await card.getByRole('button', { name: 'Remove…' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Remove collection' }).click();
    await page.getByTestId('no-collections').waitFor();
    expect(fs.existsSync(path.join(docs, 'trips', 'lighthouse.md'))).toBe(true);
  });

  it('logged no console errors on any screen', () => {
    expect(consoleErrors).toEqual([]);
  });

  it('sends a browser without a session to the sign-in notice', async () => {
    await context.clearCookies();
    await page.reload();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('not signed in');
    await shot('11-signed-out');
  });
});
