// Redaction skips only what cannot change: a result with no document text in it (a write's
// answer, counts, ids) comes back as it is without the settings being read; anything with text
// under one of the policy's keys, at any depth, is still redacted — and still fails closed when
// the settings file is broken.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_CHUNKING } from '../../src-main/engine/ingest/chunker.js';
import { holdsText } from '../../src-main/engine/redaction/policy.js';
import { EngineSettings } from '../../src-main/engine/settings/engine-settings.js';
import { SETTINGS_FILE } from '../../src-main/engine/settings/settings-store.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

afterAll(removeTempDirs);

const SECRET = `api_key = "${'Zq8xW2vN4mK7pL1rT9sY3bH6cJ0dF5gA'}"`;

describe('holdsText', () => {
  it('is false for answers without document text', () => {
    expect(holdsText({ success: true, context_id: 7, thread_id: 't', message: 'Context stored' })).toBe(false);
    expect(holdsText({ results: [{ index: 0, success: true, context_id: 1 }], total: 1, succeeded: 1 })).toBe(false);
    expect(holdsText({ threads: [{ thread_id: 'a', entry_count: 2 }], total_threads: 1 })).toBe(false);
    expect(holdsText(null)).toBe(false);
    expect(holdsText('a bare string has no key')).toBe(false);
  });

  it('finds text under any of the policy keys, at any depth, in arrays too', () => {
    expect(holdsText({ results: [{ id: 1, text_content: 'x' }] })).toBe(true);
    expect(holdsText({ content: [{ type: 'text', text: '{}' }] })).toBe(true);
    expect(holdsText({ a: { b: [[{ snippet: 's' }]] } })).toBe(true);
    expect(holdsText({ hits: [{ highlights: ['fragment'] }] })).toBe(true);
    expect(holdsText({ hits: [{ highlights: [[0, 3]] }] })).toBe(false); // spans are numbers, not text
  });
});

describe('EngineSettings.redact', () => {
  const profile = tempDir();
  const settings = new EngineSettings(profile, { chunking: DEFAULT_CHUNKING, collectionRedaction: () => new Map() });

  it('returns a value without text as it is, even with a broken settings file', async () => {
    fs.writeFileSync(path.join(profile, SETTINGS_FILE), '{ "redaction": [');
    const answer = { success: true, context_id: 3, thread_id: 't', message: 'Context stored' };
    expect(await settings.redact(answer)).toBe(answer);
    // text still fails closed
    await expect(settings.redact({ results: [{ text_content: SECRET }] })).rejects.toThrow(/redaction rules cannot be read/);
    fs.rmSync(path.join(profile, SETTINGS_FILE));
  });

  it('still redacts secrets in text', async () => {
    const out = await settings.redact({ results: [{ text_content: `config: ${SECRET}` }] });
    expect(out.results[0]!.text_content).toContain('[redacted secret]');
    expect(out.results[0]!.text_content).not.toContain('Zq8xW2vN4mK7pL1rT9sY3bH6cJ0dF5gA');
  });
});
