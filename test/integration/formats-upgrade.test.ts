// An index made before documents were read: the migration adds chunks.page and documents.warning,
// and a collection still on the old default include list starts reading documents (its next run
// indexes the folder's PDF), while a collection with its own include list is left as it was.
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src-main/engine/index.js';
import { migrations } from '../../src-main/engine/store/migrations.js';
import { tempDir, writeTree } from '../helpers/tmp.js';
import { fixtureFiles } from '../helpers/formats.js';

const OLD_DEFAULT = [
  '**/*.{md,markdown,mdx,mdown,txt,text,rst,adoc,asciidoc,org,tex,log}',
  '**/*.{html,htm,xhtml}',
  '**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs,vue,svelte,py,pyi,rb,go,rs,java,kt,kts,scala,swift,m,mm,c,h,cc,cpp,cxx,hpp,hh,cs,fs,php,pl,lua,r,jl,dart,ex,exs,erl,hs,clj,el,zig,nim,sol}',
  '**/*.{sh,bash,zsh,fish,ps1,psm1,bat,cmd,sql,graphql,proto,css,scss,less}',
  '**/*.{json,jsonc,yaml,yml,toml,ini,cfg,conf,xml,csv,tsv}',
  '**/{README,LICENSE,CHANGELOG,CONTRIBUTING,NOTICE,AUTHORS,Makefile,Dockerfile}',
];

describe('upgrading an index made before documents', () => {
  it('adds the page and warning columns and widens the old default include list only', async () => {
    const profile = tempDir('trove-profile-');
    const folder = tempDir('trove-root-');
    writeTree(folder, { 'notes.md': '# Notes\n\nAbout a moraine.\n', 'report.pdf': fixtureFiles('good')['report.pdf']! });
    // the schema just before this change (found by content: other migrations may follow it)
    const before = migrations.findIndex((m) => m.includes('ALTER TABLE chunks ADD COLUMN page'));
    expect(before).toBeGreaterThan(0);
    const db = new Database(path.join(profile, 'index.sqlite'));
    for (const sql of migrations.slice(0, before)) db.exec(sql);
    db.pragma(`user_version = ${before}`);
    const now = Date.now();
    const insert = db.prepare('INSERT INTO collections (name, root, include_globs, exclude_globs, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)');
    insert.run('old', folder, JSON.stringify(OLD_DEFAULT), '[]', now, now);
    insert.run('own', folder, JSON.stringify(['**/*.md']), '[]', now, now);
    db.close();

    const engine = await Engine.open({ profileDir: profile });
    try {
      const byName = Object.fromEntries((await engine.listCollections()).map((c) => [c.name, c]));
      expect(byName.old!.include).toEqual([...OLD_DEFAULT, '**/*.{pdf,docx,docm,dotx,pptx,pptm,ppsx,xlsx,xlsm,odt,odp,ods,epub,rtf,eml,mbox,doc,ppt,xls}']);
      expect(byName.own!.include).toEqual(['**/*.md']);
      await engine.index();
      const hits = (await engine.search({ query: 'moraine' })).results.map((r) => `${r.collection}/${r.path}:${r.page}`).sort();
      expect(hits).toEqual(['old/notes.md:null', 'old/report.pdf:2', 'own/notes.md:null']);
    } finally {
      await engine.close();
    }
  }, 60_000);
});
