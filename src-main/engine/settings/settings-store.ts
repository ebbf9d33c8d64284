// Saved settings: $TROVE_HOME/settings.json, written atomically (temp file + rename), validated
// with zod on the way in and on the way out. Port (the host's, at its next start), the largest
// file indexed (from the next index run on), redaction rules (applied to what MCP returns) and
// background embedding (hosts only; applied at once).
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { TroveError } from '../errors.js';
import { ensurePrivateDir, tightenFile } from '../profile.js';
import { ruleProblem } from '../redaction/user-rules.js';
import { validatePostgresUrl } from '../store/postgres/url.js';
import type { RedactionSuggestion, SavedSettings } from '../types/settings.js';

export const SETTINGS_FILE = 'settings.json';
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;
export const MAX_REDACTION_RULES = 50;
export const MAX_RULE_LENGTH = 500;

const rule = z
  .string()
  .min(1, 'a rule cannot be empty')
  .max(MAX_RULE_LENGTH, `a rule is at most ${MAX_RULE_LENGTH} characters`)
  .superRefine((source, ctx) => {
    const problem = ruleProblem(source);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export const settingsSchema = z
  .object({
    port: z.number().int('port must be a whole number').min(1024, 'port must be 1024–65535').max(65535, 'port must be 1024–65535').nullable(),
    maxFileBytes: z
      .number()
      .int('max file size must be a whole number of bytes')
      .min(1024, 'max file size must be at least 1 KB')
      .max(1024 * 1024 * 1024, 'max file size must be at most 1 GB')
      .nullable(),
    redaction: z.array(rule).max(MAX_REDACTION_RULES, `at most ${MAX_REDACTION_RULES} redaction rules`),
    redactSecrets: z.boolean(),
    backgroundEmbedding: z.boolean({ error: 'background embedding is on (true), off (false) or the default (null)' }).nullable(),
    ocr: z.boolean({ error: 'OCR is on (true), off (false) or the default (null)' }).nullable(),
    // absent in files written before it existed: this computer's SQLite file (EMPTY_SETTINGS)
    database: z
      .string()
      .max(2000, 'a database URL is at most 2000 characters')
      .superRefine((url, ctx) => {
        try {
          validatePostgresUrl(url, 'the database');
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: (err as Error).message });
        }
      })
      .nullable(),
  })
  .strict();

export type Settings = z.output<typeof settingsSchema>;
// the schema and the public type (types/settings.ts) describe the same file: a drift is a compile error
const sameShape: [SavedSettings, Settings] extends [Settings, SavedSettings] ? true : never = true;
void sameShape;
export const settingsPatchSchema = settingsSchema.partial();
export type SettingsPatch = z.input<typeof settingsPatchSchema>;

export const EMPTY_SETTINGS: Settings = { port: null, maxFileBytes: null, redaction: [], redactSecrets: true, backgroundEmbedding: null, ocr: null, database: null };

/** Ready-made rules the Settings screen offers; none is on until the user adds it (secrets are redacted by default without them). */
export const REDACTION_SUGGESTIONS: readonly RedactionSuggestion[] = [
  { label: 'E-mail addresses', source: '[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}' },
  { label: 'AWS access key IDs', source: '\\bAKIA[0-9A-Z]{16}\\b' },
  { label: 'OpenAI-style API keys', source: '\\bsk-[A-Za-z0-9_-]{20,}' },
  { label: 'GitHub tokens', source: '\\bgh[pousr]_[A-Za-z0-9]{36,}\\b' },
  { label: 'Private key blocks', source: '-----BEGIN [A-Z ]*PRIVATE KEY-----[\\s\\S]*?-----END [A-Z ]*PRIVATE KEY-----' },
];

/** Field → message, for errors shown next to form fields. */
export function settingsErrors(err: z.ZodError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of err.issues) {
    const key = issue.path.map(String).join('.') || 'settings';
    out[key] ??= issue.message;
  }
  return out;
}

function invalid(err: z.ZodError): TroveError {
  const fields = settingsErrors(err);
  return new TroveError('INVALID_INPUT', Object.entries(fields).map(([k, m]) => `${k}: ${m}`).join('; '));
}

/** The saved settings (defaults when there is no file). A broken file is an error, not silently ignored. */
export function readSettings(profileDir: string): Settings {
  return readSettingsFile(path.join(profileDir, SETTINGS_FILE));
}

function readSettingsFile(file: string): Settings {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ...EMPTY_SETTINGS, redaction: [] };
    throw new TroveError('IO', `cannot read ${file}: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new TroveError('INVALID_INPUT', `${file} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = settingsSchema.partial().safeParse(raw);
  if (!parsed.success) throw new TroveError('INVALID_INPUT', `${file}: ${invalid(parsed.error).message}`);
  return { ...EMPTY_SETTINGS, ...parsed.data };
}

/** Validates a partial update, merges it into the saved settings and writes them atomically. */
export function updateSettings(profileDir: string, patch: unknown): Settings {
  const parsed = settingsPatchSchema.safeParse(patch);
  if (!parsed.success) throw invalid(parsed.error);
  const next: Settings = { ...readSettings(profileDir), ...parsed.data };
  const file = path.join(profileDir, SETTINGS_FILE);
  ensurePrivateDir(profileDir);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  tightenFile(tmp); // a leftover temp file of an earlier crash keeps its old mode through writeFileSync
  fs.renameSync(tmp, file); // atomic: a crash mid-write leaves the old file
  return next;
}
