// A client written against the knowledge-search spec (../shared/specs/knowledge-search-retrieval.md),
// unchanged, over every way a client reaches Trove (the v1 and v2 SDKs over HTTP on both protocol
// generations, and over stdio through `trove mcp`): its own source names (notes, media, chats —
// characters and prompts skipped with a notice, never an error), its nested per-source filters
// (applied where they mean something, reported as ignored otherwise), its per-source result
// fields, numeric ids, and the aggregator's default page of 20. Real engine, real files (Markdown,
// text, PDF, DOCX, HTML), real memory entries, the real embedding model.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setMtime, writeTree } from '../helpers/tmp.js';
import { FORMATS } from '../helpers/formats.js';
import { CLIENT_KINDS, connectClient, memoryFixture, type MemoryFixture, type ToolClient, type ToolResult } from './memory-helpers.js';

let f: MemoryFixture;
const ids: Record<string, number> = {};

const ENTRIES = [
  { key: 'ask', thread_id: 'trip', source: 'user', text: 'Which glacier did the survey team visit near Tromsø?', created_at: '2025-04-01T09:00:00Z' },
  { key: 'answer', thread_id: 'trip', source: 'agent', text: 'They measured glacier retreat at the lateral moraine, photographing it every week.', created_at: '2025-04-01T09:01:00Z' },
];

interface Item {
  id: string;
  source: string;
  kind: string | null;
  path: string;
  uri: string;
  tags: string[] | null;
  media_type?: string | null;
  url?: string | null;
  conversation_id?: string | null;
  message_id?: string | null;
  sender?: string | null;
}
interface Search {
  results: Item[];
  sources: { source: string; kind: string }[];
  notices: string[];
  limit: number;
}

const sc = <T>(r: ToolResult) => r.structuredContent as T;
const errorText = (r: ToolResult) => r.content.map((c) => c.text).join('\n');

beforeAll(async () => {
  f = await memoryFixture();
  const library = path.join(f.dir, 'library');
  writeTree(library, {
    'glacier-notes.md': '---\ntags: [glaciers, fieldwork]\n---\n# Glacier notes\n\nThe glacier lost mass again this spring.\n',
    'todo.txt': 'Buy a map of the glacier trail.\n',
    'article.html': '<html><head><title>Glaciers in retreat</title></head><body><p>Every glacier in the valley is in retreat.</p></body></html>',
  });
  for (const name of ['report.pdf', 'handbook.docx']) fs.copyFileSync(path.join(FORMATS, 'good', name), path.join(library, name));
  setMtime(path.join(library, 'report.pdf'), new Date('2025-03-01T00:00:00Z'));
  setMtime(path.join(library, 'article.html'), new Date('2024-02-01T00:00:00Z'));
  await f.engine.addCollection({ root: library, name: 'library' });
  await f.engine.index();
  await f.engine.memory.import(ENTRIES.map(({ key: _k, ...e }) => ({ ...e, tags: [], metadata: {}, images: [], updated_at: e.created_at })));
  for (const e of (await f.engine.memory.list({ limit: 100 })).entries) ids[ENTRIES.find((x) => x.text === e.text)!.key] = e.id;
}, 120_000);
afterAll(async () => {
  await f?.cleanup();
});

describe.each(CLIENT_KINDS)("the knowledge spec's vocabulary, %s", (kind) => {
  let client: ToolClient;
  beforeAll(async () => {
    client = await connectClient(kind, f);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('sources notes, media, chats answer with their own names and fields; characters and prompts are skipped with a notice', async () => {
    const r = await client.callTool('knowledge.search', { query: 'glacier', sources: ['notes', 'media', 'chats', 'characters', 'prompts'], mode: 'keyword', dedupe: false });
    expect(r.isError, errorText(r)).toBeFalsy();
    const s = sc<Search>(r);
    expect(s.sources.map((x) => [x.source, x.kind])).toEqual([
      ['notes', 'documents'],
      ['media', 'documents'],
      ['chats', 'memory'],
    ]);
    const by = (source: string) => s.results.filter((x) => x.source === source);
    expect(by('notes').map((x) => x.path).sort()).toEqual(['glacier-notes.md', 'todo.txt']);
    expect(by('media').map((x) => [x.path, x.media_type, x.url])).toEqual(
      expect.arrayContaining([
        ['report.pdf', 'pdf', null],
        ['article.html', 'html', null],
      ]),
    );
    expect(by('chats').map((x) => [x.message_id, x.conversation_id, x.sender]).sort()).toEqual(
      [
        [String(ids.ask), 'trip', 'user'],
        [String(ids.answer), 'trip', 'agent'],
      ].sort(),
    );
    expect(s.results.length).toBe(new Set(s.results.map((x) => x.uri)).size);
    expect(s.notices).toEqual(expect.arrayContaining([expect.stringMatching(/^characters skipped: Trove has no character cards/), expect.stringMatching(/^prompts skipped: Trove has no prompt library/)]));
    // asking only for what Trove does not have is an empty answer that says why, not an error
    const none = await client.callTool('knowledge.search', { query: 'glacier', sources: ['characters', 'prompts'] });
    expect(none.isError, errorText(none)).toBeFalsy();
    expect(sc<Search>(none)).toMatchObject({ results: [], sources: [] });
    expect(sc<Search>(none).notices.join('\n')).toMatch(/characters skipped.*\n.*prompts skipped/);
  });

  it('per-source filters apply where they mean something: notes.keywords (tags), media.media_types and media dates', async () => {
    const r = await client.callTool('knowledge.search', {
      query: 'glacier',
      sources: ['notes', 'media'],
      mode: 'keyword',
      dedupe: false,
      filters: { notes: { keywords: ['fieldwork'] }, media: { media_types: ['pdf', 'article'], date_from: '2025-01-01' } },
    });
    expect(r.isError, errorText(r)).toBeFalsy();
    const s = sc<Search>(r);
    expect(s.results.map((x) => [x.source, x.path]).sort()).toEqual([
      ['media', 'report.pdf'],
      ['notes', 'glacier-notes.md'],
    ]);
    expect(s.results.find((x) => x.source === 'notes')!.tags).toEqual(['glaciers', 'fieldwork']);
    const html = sc<Search>(await client.callTool('knowledge.search', { query: 'glacier retreat', sources: ['media'], mode: 'keyword', dedupe: false, filters: { media: { media_types: ['html'], date_to: '2024-12-31' } } }));
    expect(html.results.map((x) => x.path)).toEqual(['article.html']);
    // a type Trove never indexes matches nothing, and says so
    const video = await client.callTool('knowledge.search', { query: 'glacier', sources: ['media'], filters: { media: { media_types: ['video'] } } });
    expect(video.isError, errorText(video)).toBeFalsy();
    expect(sc<Search>(video).results).toEqual([]);
    expect(sc<Search>(video).notices.join('\n')).toMatch(/Trove indexes no video files/);
  });

  it('filters that mean nothing here are reported as ignored, and what does apply still applies (chats.sender)', async () => {
    const r = await client.callTool('knowledge.search', {
      query: 'glacier',
      sources: ['chats', 'media'],
      mode: 'keyword',
      dedupe: false,
      filters: { chats: { sender: 'assistant', by: 'title', character_id: 3 }, media: { order_by: 'recent', colour: 'blue' }, prompts: { fields: ['name'] }, notes: { keywords: ['x'] } },
    });
    expect(r.isError, errorText(r)).toBeFalsy();
    const s = sc<Search>(r);
    expect(s.results.filter((x) => x.source === 'chats').map((x) => x.message_id)).toEqual([String(ids.answer)]);
    const notices = s.notices.join('\n');
    for (const why of [/filters\.chats\.by ignored/, /filters\.chats\.character_id ignored/, /filters\.media\.order_by ignored/, /filters\.media\.colour ignored/, /filters\.prompts ignored: Trove has no prompts/, /filters\.notes ignored: notes is not among the sources searched/]) {
      expect(notices).toMatch(why);
    }
    // nested filters without `sources`: the spec's default, every source under its own name
    const all = sc<Search>(await client.callTool('knowledge.search', { query: 'glacier', mode: 'keyword', dedupe: false, filters: { media: { media_types: ['pdf'] } } }));
    expect(new Set(all.results.map((x) => x.source))).toEqual(new Set(['notes', 'media', 'chats']));
    expect(all.results.filter((x) => x.source === 'media').map((x) => x.path)).toEqual(['report.pdf']);
  });

  it('knowledge.get takes the spec sources and numeric ids; its meta carries the spec name and fields', async () => {
    const chat = await client.callTool('knowledge.get', { source: 'chats', id: ids.answer, retrieval: { mode: 'chunk' } });
    expect(chat.isError, errorText(chat)).toBeFalsy();
    expect(sc<{ meta: Item; content: string }>(chat).meta).toMatchObject({ source: 'chats', id: String(ids.answer), conversation_id: 'trip', message_id: String(ids.answer), sender: 'agent' });
    expect(sc<{ content: string }>(chat).content).toContain('lateral moraine');
    const pdf = await client.callTool('knowledge.get', { source: 'media', id: 'library/report.pdf', query: 'moraine' });
    expect(sc<{ meta: Item }>(pdf).meta).toMatchObject({ source: 'media', media_type: 'pdf', url: null, path: 'report.pdf' });
    const note = await client.callTool('knowledge.get', { source: 'notes', id: 'library/glacier-notes.md', retrieval: { mode: 'full' } });
    expect(sc<{ meta: Item; content: string }>(note).meta.source).toBe('notes');
    expect(sc<{ content: string }>(note).content).toContain('The glacier lost mass again this spring.');
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ source: 'prompts', id: 1 }, /^Not found: Trove has no prompts/],
      [{ source: 'characters', id: 'x' }, /^Not found: Trove has no characters/],
      [{ source: 'chats', id: 999_999 }, /^Not found: no memory entry 999999/],
      [{ source: 'chats', id: 1.5 }, /id/],
    ];
    for (const [args, why] of cases) {
      const bad = await client.callTool('knowledge.get', args);
      expect(bad.isError, JSON.stringify(args)).toBe(true);
      expect(errorText(bad), JSON.stringify(args)).toMatch(why);
    }
  });

  it("the aggregator's default page is the spec's 20", async () => {
    const s = sc<Search>(await client.callTool('knowledge.search', { query: 'glacier', dedupe: false }));
    expect(s.limit).toBe(20);
    const docs = sc<Search>(await client.callTool('documents.search', { query: 'glacier', dedupe: false }));
    expect(docs.limit).toBe(10);
  });
});

describe.each(['v2 http 2026-07-28', 'v1 stdio'] as const)("the spec's per-source tools, %s", (kind) => {
  let client: ToolClient;
  beforeAll(async () => {
    client = await connectClient(kind, f);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('notes.search / notes.get, media.search / media.get by their own inputs', async () => {
    const notes = sc<Search>(await client.callTool('notes.search', { query: 'glacier', keywords: ['fieldwork'], dedupe: false }));
    expect(notes.results.map((x) => [x.source, x.path])).toEqual([['notes', 'glacier-notes.md']]);
    const note = await client.callTool('notes.get', { note_id: notes.results[0]!.id, retrieval: { mode: 'full' } });
    expect(sc<{ meta: Item; content: string }>(note).content).toContain('The glacier lost mass again this spring.');
    const media = sc<Search>(await client.callTool('media.search', { query: 'glacier', media_types: ['pdf', 'html'], date_from: '2025-01-01', dedupe: false }));
    expect(media.results.map((x) => [x.source, x.path, x.media_type])).toEqual([['media', 'report.pdf', 'pdf']]);
    const pdf = await client.callTool('media.get', { media_id: media.results[0]!.id, query: 'moraine', retrieval: { mode: 'chunk' } });
    expect(sc<{ meta: Item; content: string }>(pdf)).toMatchObject({ meta: { source: 'media', media_type: 'pdf' } });
    expect(sc<{ content: string }>(pdf).content).toContain('moraine');
  });

  it('chats.search finds messages; chats.get pages through a conversation, oldest first', async () => {
    const found = sc<Search>(await client.callTool('chats.search', { query: 'glacier', sender: 'user', dedupe: false }));
    expect(found.results.map((x) => [x.source, x.message_id, x.conversation_id])).toEqual([['chats', String(ids.ask), 'trip']]);
    const all = await client.callTool('chats.get', { conversation_id: 'trip' });
    expect(all.isError, errorText(all)).toBeFalsy();
    const page = sc<{ meta: Item; content: string; attachments: { message_id: string; sender: string }[]; total_messages: number; has_more: boolean }>(all);
    expect(page.attachments.map((m) => [m.message_id, m.sender])).toEqual([
      [String(ids.ask), 'user'],
      [String(ids.answer), 'agent'],
    ]);
    expect(page).toMatchObject({ total_messages: 2, has_more: false, meta: { source: 'chats', conversation_id: 'trip', uri: `trove://~memory/${ids.ask}` } });
    expect(page.content).toMatch(/^\[user · 2025-04-01T09:00:00\.000Z\]\nWhich glacier .*\n\n\[agent · 2025-04-01T09:01:00\.000Z\]\nThey measured/s);
    const second = sc<{ attachments: { message_id: string }[]; has_more: boolean }>(await client.callTool('chats.get', { conversation_id: 'trip', page: 2, page_size: 1 }));
    expect(second).toMatchObject({ attachments: [{ message_id: String(ids.answer) }], has_more: false });
    const first = sc<{ attachments: { message_id: string }[]; has_more: boolean }>(await client.callTool('chats.get', { conversation_id: 'trip', page: 1, page_size: 1 }));
    expect(first).toMatchObject({ attachments: [{ message_id: String(ids.ask) }], has_more: true });
    const missing = await client.callTool('chats.get', { conversation_id: 'nowhere' });
    expect(missing.isError).toBe(true);
    expect(errorText(missing)).toMatch(/^Not found: no conversation "nowhere"/);
  });
});
