// Paged documents in the knowledge toolset: a real PDF (parsed by the formats room) found by
// knowledge.search carries its page in loc, and knowledge.get anchors on a page; a PDF attached to an
// e-mail is an item of its own, with its page.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import type { Engine } from '../../src-main/engine/index.js';
import { describeBackends } from '../helpers/backends.js';
import { tempDir } from '../helpers/tmp.js';

const PDF = path.resolve(import.meta.dirname, '..', 'fixtures', 'formats', 'good', 'report.pdf');
const MAIL = [
  'From: Priya <priya@example.org>', 'Subject: The field report', 'MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary="b1"', '',
  '--b1', 'Content-Type: text/plain', '', 'The report is attached.', '', '--b1', 'Content-Type: application/pdf; name="field.pdf"',
  'Content-Disposition: attachment; filename="field.pdf"', 'Content-Transfer-Encoding: base64', '', fs.readFileSync(PDF).toString('base64'), '--b1--', '',
].join('\r\n');
describeBackends('knowledge pages', (b) => {
  let engine: Engine;

  beforeAll(async () => {
    const root = tempDir('trove-root-');
    fs.copyFileSync(PDF, path.join(root, 'report.pdf'));
    fs.writeFileSync(path.join(root, 'report.eml'), MAIL);
    engine = await b.open();
    await engine.addCollection({ root, name: 'reports' });
    await engine.index();
  }, 60_000);

  it('a hit in a PDF says its page in loc, and knowledge.get anchors on a page', async () => {
    const r = await engine.knowledge.search({ query: 'moraine photogrammetry' });
    const hit = r.results.find((h) => h.path === 'report.pdf')!;
    expect(hit.kind).toBe('pdf');
    expect(hit.loc).toMatchObject({ page: 2 });
    const byLoc = await engine.knowledge.get({ source: 'documents', id: hit.id, loc: hit.loc!, retrieval: { mode: 'chunk' } });
    expect(byLoc.meta.loc).toMatchObject({ page: 2 });
    expect(byLoc.content).toMatch(/moraine/i);
    const byPage = await engine.knowledge.get({ uri: hit.uri, loc: { page: 3 }, retrieval: { mode: 'chunk' } });
    expect(byPage.meta.loc!.page).toBe(3);
    await expect(engine.knowledge.get({ uri: hit.uri, loc: { page: 40 } })).rejects.toThrow(/loc\.page 40 is not a page of this item/);
  });

  it("an e-mail's PDF attachment is an item of its own, with its page", async () => {
    const r = await engine.knowledge.search({ query: 'moraine photogrammetry' });
    const hit = r.results.find((h) => h.path === 'report.eml/field.pdf')!;
    expect(hit).toMatchObject({ kind: 'pdf', loc: { page: 2 } });
    const got = await engine.knowledge.get({ uri: hit.uri, loc: { page: 2 }, retrieval: { mode: 'chunk' } });
    expect(got.content).toMatch(/moraine/i);
  });
});
