// The engine's settings room (Engine.settings): the saved settings file, the per-file limit in
// force and where it comes from, and the redaction policy every face applies to what it returns.
// Reads are cached on the file's mtime and size: the redaction rules are asked for on every call.
import fs from 'node:fs';
import path from 'node:path';
import { TroveError } from '../errors.js';
import type { ChunkOptions } from '../ingest/chunker.js';
import type { RedactionSuggestion, SavedSettings, SettingsApi } from '../types/settings.js';
import { redactValue } from '../redaction/policy.js';
import { UserRuleRunner } from '../redaction/user-rules.js';
import {
  DEFAULT_MAX_FILE_BYTES,
  EMPTY_SETTINGS,
  readSettings,
  REDACTION_SUGGESTIONS,
  SETTINGS_FILE,
  settingsErrors,
  settingsPatchSchema,
  updateSettings,
} from './settings-store.js';

export class EngineSettings implements SettingsApi {
  private cached: { mtimeMs: number; size: number; value: SavedSettings } | null = null;
  private readonly rules: UserRuleRunner;
  /** Said once: a broken file is reported, not repeated on every indexing batch. */
  private warned: string | null = null;
  private readonly savedListeners = new Set<(settings: SavedSettings) => void>();

  constructor(
    private readonly profileDir: string,
    private readonly opts: {
      /** The limit given to the engine (TROVE_MAX_FILE_BYTES); it beats the saved one. */
      maxFileBytes?: number;
      chunking: ChunkOptions;
      /** Each collection's secret-redaction override (lower-case name → null | boolean); a promise where the index is a round trip away. */
      collectionRedaction: () => ReadonlyMap<string, boolean | null> | Promise<ReadonlyMap<string, boolean | null>>;
      /** Time budget of one user rule on one text (default 250 ms). */
      ruleBudgetMs?: number;
    },
  ) {
    this.rules = new UserRuleRunner(opts.ruleBudgetMs);
  }

  saved(): SavedSettings {
    const file = path.join(this.profileDir, SETTINGS_FILE);
    // asked on every call: no file is the usual case, and a throw per call would cost more than the stat
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (!stat) {
      this.cached = null;
      return { ...EMPTY_SETTINGS, redaction: [] };
    }
    const hit = this.cached;
    if (hit && hit.mtimeMs === stat.mtimeMs && hit.size === stat.size) return hit.value;
    const value = readSettings(this.profileDir);
    this.cached = { mtimeMs: stat.mtimeMs, size: stat.size, value };
    return value;
  }

  savedOrDefaults(): SavedSettings {
    try {
      return this.saved();
    } catch (err) {
      const message = (err as Error).message;
      if (this.warned !== message) {
        this.warned = message;
        process.stderr.write(`trove: ignoring saved settings: ${message}\n`);
      }
      return { ...EMPTY_SETTINGS, redaction: [] };
    }
  }

  check(patch: unknown): Record<string, string> | null {
    const parsed = settingsPatchSchema.safeParse(patch);
    return parsed.success ? null : settingsErrors(parsed.error);
  }

  update(patch: unknown): SavedSettings {
    const next = updateSettings(this.profileDir, patch);
    this.cached = null;
    for (const l of this.savedListeners) l(next);
    return next;
  }

  /** Told after every update (the engine applies what takes effect at once: background embedding). */
  onSaved(listener: (settings: SavedSettings) => void): () => void {
    this.savedListeners.add(listener);
    return () => this.savedListeners.delete(listener);
  }

  maxFileBytes(): { value: number; source: 'env' | 'saved' | 'default' } {
    if (this.opts.maxFileBytes !== undefined) return { value: this.opts.maxFileBytes, source: 'env' };
    const saved = this.savedOrDefaults().maxFileBytes;
    return saved !== null ? { value: saved, source: 'saved' } : { value: DEFAULT_MAX_FILE_BYTES, source: 'default' };
  }

  redactionSuggestions(): RedactionSuggestion[] {
    return REDACTION_SUGGESTIONS.map((s) => ({ ...s }));
  }

  chunking(): { targetChars: number; overlapChars: number } {
    return { targetChars: this.opts.chunking.targetChars, overlapChars: this.opts.chunking.overlapChars };
  }

  /**
   * A copy of a result with secret-looking text and the saved rules' matches redacted in its
   * document text. Fails closed: when the file is broken (hand-edited) or a rule runs over its time
   * budget, nothing is returned unredacted — the call fails with the reason until it is fixed.
   */
  async redact<T>(value: T): Promise<T> {
    let saved: SavedSettings;
    try {
      saved = this.saved();
    } catch (err) {
      throw new TroveError('UNAVAILABLE', `redaction rules cannot be read, so no document text is returned: ${(err as Error).message}`);
    }
    this.rules.forgetExcept(saved.redaction);
    return redactValue(value, { secrets: saved.redactSecrets, collections: await this.opts.collectionRedaction(), rules: saved.redaction }, this.rules);
  }

  close(): Promise<void> {
    return this.rules.close();
  }
}
