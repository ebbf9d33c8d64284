// settings.get / settings.update: the saved settings (Engine.settings), what is in force now and
// where each value comes from, and what the engine can do (search modes).
import { searchModes, type ValidApiParams } from '../api/methods.js';
import type { SettingSource, SettingsInfo } from '../api/results.js';
import { isTroveError, type AppIndex } from '../engine/index.js';

export interface SettingsDeps {
  engine: AppIndex;
  /** The running server's port and where its preferred port came from (none: no server). */
  port?: () => { running: number; source: SettingSource };
}

export async function settingsInfo(deps: SettingsDeps): Promise<SettingsInfo> {
  const { engine } = deps;
  const searchModeStates = [];
  for (const mode of searchModes) {
    if (mode === 'keyword') {
      searchModeStates.push({ mode, available: true, reason: null });
      continue;
    }
    try {
      // the engine is the authority on what it can do: ask it with a tiny query
      await engine.search({ query: 'trove', mode, limit: 1 });
      searchModeStates.push({ mode, available: true, reason: null });
    } catch (err) {
      searchModeStates.push({ mode, available: false, reason: err instanceof Error ? err.message : String(err) });
    }
  }
  const limit = engine.settings.maxFileBytes();
  const port = deps.port?.();
  return {
    profileDir: engine.profileDir,
    databasePath: engine.databaseFile,
    saved: engine.settings.saved(),
    port: { running: port?.running ?? null, source: port?.source ?? null },
    maxFileBytes: limit.value,
    maxFileBytesSource: limit.source,
    redactionSuggestions: engine.settings.redactionSuggestions(),
    chunking: engine.settings.chunking(),
    searchModes: searchModeStates,
    backgroundEmbedding: await engine.backgroundEmbedding(),
    notYet: [{ setting: 'chunk size', reason: 'fixed for now: changing it would mean re-chunking every collection' }],
  };
}

export async function updateSettingsCall(deps: SettingsDeps, patch: ValidApiParams<'settings.update'>): Promise<{ settings: SettingsInfo; errors: Record<string, string> | null }> {
  const errors = deps.engine.settings.check(patch);
  if (errors) return { settings: await settingsInfo(deps), errors };
  try {
    deps.engine.settings.update(patch);
  } catch (err) {
    if (!isTroveError(err)) throw err;
    return { settings: await settingsInfo(deps), errors: { settings: err.message } };
  }
  return { settings: await settingsInfo(deps), errors: null };
}
