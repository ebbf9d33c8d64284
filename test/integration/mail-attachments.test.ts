// E-mail attachments in a document format are documents of their own, at `<mail>/<name>` (.eml)
// or `<mail>/<message N>/<name>` (.mbox): found by search with their page, readable with get and
// multi_get, listed by their message, and kept in step with their mail through re-indexing,
// edits, renames, deletes, the watcher and freshness; a broken one is reported with its reason
// while the message and the other attachments index.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src-main/engine/index.js';
import { migrations } from '../../src-main/engine/store/migrations.js';
import { describeBackends } from '../helpers/backends.js';
import { troveErrorAsync } from '../helpers/engine.js';
import { FORMATS } from '../helpers/formats.js';
import { tempDir, writeTree } from '../helpers/tmp.js';
import { found, waitFor, watchedFolder } from '../live/live-helpers.js';

const PDF = fs.readFileSync(path.join(FORMATS, 'good/report.pdf')); // "Quarterly Field Report": glacier, Tromsø; albatross on page 3
const DOCX = fs.readFileSync(path.join(FORMATS, 'good/handbook.docx')); // courtyard bicycles
const BROKEN_PDF = Buffer.from('%PDF-1.4\n%this part was cut off in transit');

type Attachment = [name: string, bytes: Buffer, type: string];
const pdf = (name: string, bytes = PDF): Attachment => [name, bytes, 'application/pdf'];
const docx = (name: string): Attachment => [name, DOCX, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'];

/** One MIME message: a text body and base64 attachments. */
function message(subject: string, body: string, attachments: Attachment[]): string {
  const parts = attachments.map(([name, bytes, type]) =>
    [`--b1`, `Content-Type: ${type}; name="${name}"`, `Content-Disposition: attachment; filename="${name}"`, 'Content-Transfer-Encoding: base64', '',
      bytes.toString('base64').replace(/.{76}/g, '$&\r\n')].join('\r\n'));
  return [
    'From: Priya Raman <priya@example.org>', 'To: Team <team@example.org>', `Subject: ${subject}`, 'Date: Tue, 03 Mar 2026 09:30:00 +0000',
    'MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary="b1"', '', '--b1', 'Content-Type: text/plain; charset=utf-8', '', body, '',
    ...parts, '--b1--', '',
  ].join('\r\n');
}
const mbox = (...messages: string[]) => messages.map((m, i) => `From priya@example.org Mon Mar  ${i + 2} 10:00:00 2026\n${m.replace(/\r\n/g, '\n')}`).join('\n');

const paths = async (engine: Engine, query: string) => (await engine.search({ query, limit: 50 })).results.map((h) => h.path).sort();
const problem = async (engine: Engine, p: string) => (await engine.status()).collections[0]!.problems.find((x) => x.path === p);

describeBackends('e-mail attachments as documents of their own', (b) => {
  it('an .eml and an .mbox: each attachment found with its page, readable, listed by its message; a broken one reported alone', async () => {
    const { engine } = await b.indexedFolder({
      'mail/minutes.eml': message('Minutes of the harbour meeting', 'We agreed to repaint the crane.', [pdf('report.pdf'), docx('handbook.docx'), pdf('invoice.pdf', BROKEN_PDF)]),
      'mail/inbox.mbox': mbox(message('Kayak trip', 'The kayak trip starts at the pier.', []), message('Field notes', 'Notes from the survey attached.', [pdf('survey.pdf')])),
    }, 'docs');
    const albatross = (await engine.search({ query: 'albatross', limit: 10 })).results;
    expect(albatross.map((h) => [h.path, h.page, h.kind]).sort()).toEqual([['mail/inbox.mbox/2/survey.pdf', 3, 'pdf'], ['mail/minutes.eml/report.pdf', 3, 'pdf']]);
    expect(await paths(engine, 'courtyard bicycles')).toEqual(['mail/minutes.eml/handbook.docx']);
    // the attachment's text is not the message's: the message lists its attachments by name
    const mail = await engine.get('docs/mail/minutes.eml');
    expect(mail.text).toContain('Attachment: report.pdf');
    expect(mail.text).not.toContain('glacier');
    const att = await engine.get('docs/mail/minutes.eml/report.pdf');
    expect(att).toMatchObject({ title: 'Quarterly Field Report', kind: 'pdf' });
    expect(att.text).toMatch(/^\[page 1\]/);
    expect((await engine.multiGet('docs/mail/**/*.pdf')).documents.map((d) => d.path).sort()).toEqual(['mail/inbox.mbox/2/survey.pdf', 'mail/minutes.eml/report.pdf']);
    // the broken attachment: failed with its reason; the message and the other attachments are indexed
    expect(await problem(engine, 'mail/minutes.eml/invoice.pdf')).toMatchObject({ status: 'failed', reason: expect.stringMatching(/cannot read as pdf/) });
    expect((await troveErrorAsync(() => engine.get('docs/mail/minutes.eml/invoice.pdf'))).message).toMatch(/was not indexed: cannot read as pdf/);
    expect(await problem(engine, 'mail/minutes.eml')).toBeUndefined();
    expect((await engine.status()).totals.kinds).toMatchObject({ email: 2, pdf: 2, docx: 1 });
    // fresh: a child is as fresh as its file
    expect(albatross.every((h) => h.stale === false)).toBe(true);
    // nothing reads outside what was indexed: a made-up path inside the mail is not found
    expect((await troveErrorAsync(() => engine.get('docs/mail/minutes.eml/other.pdf'))).code).toBe('NOT_FOUND');
  });

  it('a changed mail updates its attachments, a renamed one moves them (docids kept), a deleted one removes them', async () => {
    const { engine, root } = await b.indexedFolder({
      'minutes.eml': message('Minutes', 'See attached.', [pdf('report.pdf'), docx('handbook.docx')]),
      'inbox.mbox': mbox(message('First', 'One.', [docx('handbook.docx')]), message('Second', 'Two.', [pdf('survey.pdf')])),
    }, 'docs');
    const abs = (rel: string) => path.join(root, rel);
    const docid = async (p: string) => (await engine.get(`docs/${p}`)).docid;
    const reportId = await docid('minutes.eml/report.pdf');

    // the mailbox loses its second message, the first message's attachment changes; not indexed yet: stale
    fs.writeFileSync(abs('inbox.mbox'), mbox(message('First', 'One.', [pdf('renamed-notes.pdf')])));
    expect((await engine.search({ query: 'courtyard bicycles', limit: 10 })).results.find((h) => h.path === 'inbox.mbox/1/handbook.docx')!.stale).toBe(true);
    await engine.index();
    expect(await paths(engine, 'albatross')).toEqual(['inbox.mbox/1/renamed-notes.pdf', 'minutes.eml/report.pdf']);
    expect(await paths(engine, 'courtyard bicycles')).toEqual(['minutes.eml/handbook.docx']);
    expect((await troveErrorAsync(() => engine.get('docs/inbox.mbox/2/survey.pdf'))).code).toBe('NOT_FOUND');

    // a rename: the attachments follow their mail and keep their docids
    fs.renameSync(abs('minutes.eml'), abs('minutes-2026.eml'));
    await engine.index();
    expect(await paths(engine, 'courtyard bicycles')).toEqual(['minutes-2026.eml/handbook.docx']);
    expect(await docid('minutes-2026.eml/report.pdf')).toBe(reportId);

    // a mail without attachments any more: they go; a deleted mail: its attachments go with it
    fs.writeFileSync(abs('minutes-2026.eml'), message('Minutes', 'Nothing attached now.', []));
    fs.rmSync(abs('inbox.mbox'));
    await engine.index();
    expect(await paths(engine, 'albatross')).toEqual([]);
    expect((await engine.status()).totals.documents).toBe(1);
    expect((await engine.multiGet('docs/**/*.pdf')).documents).toEqual([]);
  });

  it('the watcher: a new mail brings its attachments, a deleted one takes them away', async () => {
    const f = await watchedFolder(b, { 'keep.md': 'nothing here' }, 'notes');
    f.write('drop.eml', message('Report', 'Attached.', [pdf('report.pdf')]));
    await waitFor('attachment searchable', async () => (await found(f.engine, 'albatross')).includes('drop.eml/report.pdf'));
    f.remove('drop.eml');
    await waitFor('attachment gone with its mail', async () => (await found(f.engine, 'albatross')).length === 0);
    expect((await troveErrorAsync(() => f.engine.get('notes/drop.eml/report.pdf'))).code).toBe('NOT_FOUND');
    await f.engine.stopWatching();
  });
});

// SQLite only: the upgrade of a profile's own file from its older schema (PostgreSQL has its own migrations)
describe('upgrading an index whose mail carried its attachments inline', () => {
  it('reads each indexed mail again, so its attachments become documents', async () => {
    const profile = tempDir('trove-profile-');
    const folder = tempDir('trove-root-');
    writeTree(folder, { 'minutes.eml': message('Minutes', 'See attached.', [pdf('report.pdf')]) });
    const st = fs.statSync(path.join(folder, 'minutes.eml'));
    const bytes = fs.readFileSync(path.join(folder, 'minutes.eml'));
    // the schema just before documents inside files (found by content: other migrations may follow it)
    const before = migrations.findIndex((m) => m.includes('ADD COLUMN parent_id'));
    expect(before).toBeGreaterThan(0);
    const db = new Database(path.join(profile, 'index.sqlite'));
    for (const sql of migrations.slice(0, before)) db.exec(sql);
    db.pragma(`user_version = ${before}`);
    const now = Date.now();
    const { lastInsertRowid } = db
      .prepare('INSERT INTO collections (name, root, include_globs, exclude_globs, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run('mail', folder, JSON.stringify(['**/*.eml']), '[]', now, now);
    // the mail as the old index had it: same size, time and bytes, so nothing else would read it again
    db.prepare(
      `INSERT INTO documents (collection_id, path, docid, title, kind, size, mtime_ms, hash, indexed_at, status, error, tags, metadata)
       VALUES (?, 'minutes.eml', 'abc123', 'Minutes', 'email', ?, ?, ?, ?, 'indexed', NULL, '[]', '{}')`,
    ).run(lastInsertRowid, st.size, Math.trunc(st.mtimeMs), createHash('sha256').update(bytes).digest('hex'), now);
    db.close();

    const engine = await Engine.open({ profileDir: profile });
    try {
      await engine.index();
      expect(await paths(engine, 'albatross')).toEqual(['minutes.eml/report.pdf']);
      expect((await engine.get('mail/minutes.eml')).docid).toBe('abc123');
    } finally {
      await engine.close();
    }
  }, 60_000);
});
