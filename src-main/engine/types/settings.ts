// The saved settings ($TROVE_HOME/settings.json). Types only (see collections.ts); the schema
// that checks them is settings/settings-store.ts.

/** What settings.json holds (null: not set, the default applies). */
export interface SavedSettings {
  port: number | null;
  maxFileBytes: number | null;
  redaction: string[];
  /** Secret-looking text (API keys, tokens, private keys, passwords) redacted in what MCP and the UI return; on by default. */
  redactSecrets: boolean;
  /** Embed new and changed chunks in the background (null: the default, on). Hosts only; `--no-embed` wins. */
  backgroundEmbedding: boolean | null;
  /** Read scanned pages and images by OCR in the background (null: the default, on). Hosts only; `--no-ocr` wins. */
  ocr: boolean | null;
  /** Where a host keeps the index: null, this computer's SQLite file; else a PostgreSQL URL (a host's next start; TROVE_DATABASE_URL and --database win). */
  database: string | null;
}

/** Where a value in force came from. */
export type SettingSource = 'flag' | 'env' | 'saved' | 'default';

export interface RedactionSuggestion {
  label: string;
  source: string;
}

/** Engine.settings: the saved settings, what is in force, and the redaction every face applies. */
export interface SettingsApi {
  /** The saved settings (defaults when there is no file); a broken file is an INVALID_INPUT error. */
  saved(): SavedSettings;
  /** The saved settings, or the defaults (said once on stderr) when the file is broken. */
  savedOrDefaults(): SavedSettings;
  /** What is wrong with a partial update, field → message; null when it is fine. */
  check(patch: unknown): Record<string, string> | null;
  /** Validates a partial update (INVALID_INPUT naming the field), merges and writes it atomically. */
  update(patch: unknown): SavedSettings;
  /** The per-file limit the next index run uses, and where it comes from (the engine's option beats the saved value). */
  maxFileBytes(): { value: number; source: 'env' | 'saved' | 'default' };
  /** Ready-made redaction rules a person can add (none is on by default). */
  redactionSuggestions(): RedactionSuggestion[];
  chunking(): { targetChars: number; overlapChars: number };
  /** A copy of a result with secrets and the saved rules' matches redacted in its document text; fails closed when the rules cannot be read or run. */
  redact<T>(value: T): Promise<T>;
  /** Stops the rule worker (the engine's close calls it). */
  close(): Promise<void>;
}
