// Every manifest rule of the dataset-registry spec, each with the reason a person reads, and where
// relative paths point. Real files in a temp folder.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readManifest, resolveDatasetPath } from '../../src-main/engine/datasets/manifest.js';
import { removeTempDirs, tempDir, writeTree } from '../helpers/tmp.js';

afterAll(removeTempDirs);

const valid = { id: 'cherry-docs', name: 'Cherry Studio Documentation', description: 'Embeddings built from the docs', index: './datasets/cherry-docs/docs.index', metadata: './datasets/cherry-docs/metadata.json', model: 'all-MiniLM-L6-v2' };

function check(content: unknown): ReturnType<typeof readManifest> {
  const dir = tempDir('trove-manifest-');
  const file = path.join(dir, 'manifest.json');
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return readManifest(file);
}

function reason(content: unknown): string {
  const r = check(content);
  if (r.ok) throw new Error(`expected an invalid manifest: ${JSON.stringify(content)}`);
  return r.reason;
}

describe('readManifest', () => {
  it('accepts the spec example (plus the model) and defaults defaultTopK to 5', () => {
    const r = check(valid);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.manifest).toMatchObject({ ...valid, defaultTopK: 5, kind: 'faiss' });
    const top = check({ ...valid, defaultTopK: 100 });
    expect(top.ok && top.manifest.defaultTopK).toBe(100);
  });

  it.each([
    [`id: 'Cherry-Docs'`, { id: 'Cherry-Docs' }, 'id may only hold lowercase letters, digits and hyphens'],
    [`id: 'cherry_docs'`, { id: 'cherry_docs' }, 'id may only hold lowercase letters, digits and hyphens'],
    [`id: 'cherry docs'`, { id: 'cherry docs' }, 'id may only hold lowercase letters, digits and hyphens'],
    [`id: 'a'.repeat(65)`, { id: 'a'.repeat(65) }, 'id is longer than 64 characters'],
    [`id: ''`, { id: '' }, 'id is empty'],
    [`id: 7`, { id: 7 }, 'id must be a string'],
    [`name: undefined`, { name: undefined }, 'name is required'],
    [`name: 'n'.repeat(129)`, { name: 'n'.repeat(129) }, 'name is longer than 128 characters'],
    [`name: '   '`, { name: '   ' }, 'name is only whitespace'],
    [`name: ''`, { name: '' }, 'name is empty'],
    [`description: undefined`, { description: undefined }, 'description is required'],
    [`description: 'd'.repeat(513)`, { description: 'd'.repeat(513) }, 'description is longer than 512 characters'],
    [`description: ' \t\n'`, { description: ' \t\n' }, 'description is only whitespace'],
    [`index: undefined`, { index: undefined }, 'index is required'],
    [`index: '  '`, { index: '  ' }, 'index is only whitespace'],
    [`metadata: '\t'`, { metadata: '\t' }, 'metadata is only whitespace'],
    [`metadata: undefined`, { metadata: undefined }, 'metadata is required (the JSON file of the documents, in vector order)'],
    [`model: '  '`, { model: '  ' }, 'model is only whitespace'],
    [`defaultTopK: 0`, { defaultTopK: 0 }, 'defaultTopK must be at least 1'],
    [`defaultTopK: 101`, { defaultTopK: 101 }, 'defaultTopK must be at most 100'],
    [`defaultTopK: 2.5`, { defaultTopK: 2.5 }, 'defaultTopK must be a whole number'],
    [`defaultTopK: '5'`, { defaultTopK: '5' }, 'defaultTopK must be a number'],
    [`kind: 'pinecone'`, { kind: 'pinecone' }, 'kind must be "faiss" or "folder"'],
  ])('%s is invalid: %s', (_label, patch, why) => {
    expect(reason({ ...valid, ...patch })).toContain(why);
  });

  it('lists every problem at once, and keeps what the manifest says about itself for the list', () => {
    const r = check({ id: 'x', name: ' ', description: '' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toBe('invalid manifest: name is only whitespace; description is empty; index is required');
    expect(r.label).toMatchObject({ id: 'x', defaultTopK: 5 });
  });

  it('the spec example exactly as the spec shows it (no model) is valid: loading infers the model', () => {
    const { model: _model, ...spec } = valid;
    const r = check(spec);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.manifest.model).toBeUndefined();
  });

  it('a folder dataset needs neither metadata nor a model', () => {
    const r = check({ id: 'handbook', name: 'Handbook', description: 'Policies', index: './docs', kind: 'folder' });
    expect(r.ok && r.manifest.kind).toBe('folder');
  });

  it('refuses what is not a readable JSON object under 10 KB', () => {
    expect(reason('{ "id": "a", ')).toMatch(/^the manifest is not valid JSON: /);
    expect(reason('[1, 2]')).toBe('the manifest must be a JSON object');
    expect(reason('"just a string"')).toBe('the manifest must be a JSON object');
    expect(reason({ ...valid, description: 'x'.repeat(10_300) })).toMatch(/^the manifest is \d+ bytes; a manifest must be smaller than 10 KB \(10240 bytes\)$/);
    expect(check(`\uFEFF${JSON.stringify(valid)}`).ok).toBe(true); // a BOM from a Windows editor is fine
    const dir = tempDir('trove-manifest-');
    fs.mkdirSync(path.join(dir, 'manifest.json'));
    expect(readManifest(path.join(dir, 'manifest.json'))).toMatchObject({ ok: false, reason: 'manifest.json is not a file' });
    expect(readManifest(path.join(dir, 'gone', 'manifest.json'))).toMatchObject({ ok: false, reason: 'the manifest cannot be read (ENOENT)' });
  });
});

describe('resolveDatasetPath', () => {
  it('resolves against the folder holding datasets/ (the spec example), else against the manifest folder', () => {
    const root = tempDir('trove-paths-');
    writeTree(root, {
      'datasets/cherry/manifest.json': '{}',
      'datasets/cherry/docs.index/index.faiss': 'x',
      'datasets/cherry/metadata.json': '[]',
    });
    const manifest = path.join(root, 'datasets', 'cherry', 'manifest.json');
    expect(resolveDatasetPath('./datasets/cherry/docs.index', manifest).path).toBe(path.join(root, 'datasets', 'cherry', 'docs.index'));
    expect(resolveDatasetPath('metadata.json', manifest).path).toBe(path.join(root, 'datasets', 'cherry', 'metadata.json'));
    expect(resolveDatasetPath(path.join(root, 'datasets', 'cherry', 'metadata.json'), manifest).path).toBe(path.join(root, 'datasets', 'cherry', 'metadata.json'));
    const missing = resolveDatasetPath('./nowhere.json', manifest);
    expect(missing.path).toBeNull();
    expect(missing.tried).toEqual([path.join(root, 'nowhere.json'), path.join(root, 'datasets', 'cherry', 'nowhere.json')]);
  });
});
