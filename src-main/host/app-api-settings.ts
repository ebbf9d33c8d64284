// settings.get / settings.update: the saved settings (Engine.settings), what is in force now and
// where each value comes from, and what the engine can do (search modes). A database URL is
// checked by connecting before it is saved, and shown with its password hidden; it takes effect
// at the host's next start.
import { searchModes, type ValidApiParams } from '../api/methods.js';
import type { SettingSource, SettingsInfo } from '../api/results.js';
import { checkDatabase, isTroveError, redactPostgresUrl, type Engine } from '../engine/index.js';

export interface SettingsDeps {
  engine: Engine;
  /** What chose this host's database: --database, TROVE_DATABASE_URL, the saved setting, or the default (this computer's SQLite file). */
  databaseSource?: SettingSource;
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
  const saved = engine.settings.saved();
  const savedDatabase = saved.database === null ? null : redactPostgresUrl(saved.database);
  return {
    profileDir: engine.profileDir,
    databasePath: engine.location,
    saved: { ...saved, database: savedDatabase },
    database: databaseInfo(deps, savedDatabase),
    port: { running: port?.running ?? null, source: port?.source ?? null },
    maxFileBytes: limit.value,
    maxFileBytesSource: limit.source,
    redactionSuggestions: engine.settings.redactionSuggestions(),
    chunking: engine.settings.chunking(),
    searchModes: searchModeStates,
    backgroundEmbedding: await engine.backgroundEmbedding(),
    backgroundOcr: engine.backgroundOcr(),
    notYet: [{ setting: 'chunk size', reason: 'fixed for now: changing it would mean re-chunking every collection' }],
  };
}

function databaseInfo({ engine, databaseSource }: SettingsDeps, saved: string | null): SettingsInfo['database'] {
  const source = databaseSource ?? (engine.backend === 'sqlite' ? 'default' : 'saved');
  // the flag and the variable win over the saved choice at every start: a saved change would not take effect by restarting
  const overridden = source === 'flag' || source === 'env';
  const differs = engine.backend === 'sqlite' ? saved !== null : saved !== engine.location;
  return { backend: engine.backend, inUse: engine.location, saved, source, restartNeeded: !overridden && differs };
}

export async function updateSettingsCall(deps: SettingsDeps, patch: ValidApiParams<'settings.update'>): Promise<{ settings: SettingsInfo; errors: Record<string, string> | null }> {
  if (typeof patch.database === 'string') patch = { ...patch, database: patch.database.trim() || null }; // an empty field: this computer
  const errors = deps.engine.settings.check(patch);
  if (errors) return { settings: await settingsInfo(deps), errors };
  if (patch.database) {
    try {
      await checkDatabase(patch.database); // a URL that does not work is not saved
    } catch (err) {
      if (!isTroveError(err)) throw err;
      return { settings: await settingsInfo(deps), errors: { database: err.message } };
    }
  }
  try {
    deps.engine.settings.update(patch);
  } catch (err) {
    if (!isTroveError(err)) throw err;
    return { settings: await settingsInfo(deps), errors: { settings: err.message } };
  }
  return { settings: await settingsInfo(deps), errors: null };
}
