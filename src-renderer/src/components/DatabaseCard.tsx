// Settings → Database: where this computer's Trove host keeps its index. Empty is this
// computer's SQLite file; a PostgreSQL URL shares one index with a team. The host checks a URL by
// connecting before it saves it (the error is shown at the field) and uses it from its next start.
import { useState, type FormEvent } from 'react';
import type { SettingSource, SettingsInfo } from '../../../src-main/api/results';
import { errorMessage, trove } from '../bridge';

const chosenBy: Record<SettingSource, string> = {
  flag: 'from --database, which wins over the saved choice',
  env: 'from TROVE_DATABASE_URL, which wins over the saved choice',
  saved: 'saved here',
  default: 'the default',
};

export function DatabaseCard({ info, onSaved }: { info: SettingsInfo; onSaved: (info: SettingsInfo) => void }) {
  // the saved URL comes back with its password hidden: the field starts empty rather than holding "***"
  const [url, setUrl] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const save = async (e: FormEvent, value: string | null) => {
    e.preventDefault();
    setStatus(null);
    setError(null);
    setBusy(true);
    try {
      const r = await trove.call('settings.update', { database: value });
      if (r.errors) return setError(r.errors.database ?? Object.values(r.errors).join('; '));
      onSaved(r.settings);
      setUrl('');
      setStatus(
        r.settings.database.restartNeeded
          ? 'Saved. It takes effect when Trove restarts (quit and reopen the app, or restart `trove serve`).'
          : 'Saved: that is the database in use.',
      );
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  const d = info.database;
  return (
    <form className="card" data-testid="database" onSubmit={(e) => void save(e, url.trim() || null)} noValidate>
      <h2>Database</h2>
      <p data-testid="database-in-use">
        In use: {d.backend === 'sqlite' ? 'this computer (SQLite)' : 'PostgreSQL'} <code>{d.inUse}</code> ({chosenBy[d.source]})
      </p>
      <p className="muted" data-testid="database-saved">
        Saved for the next start: {d.saved === null ? 'this computer (SQLite)' : <code>{d.saved}</code>}
        {d.restartNeeded ? ' — takes effect when Trove restarts' : ''}. TROVE_DATABASE_URL and --database win over it.
      </p>
      <label>
        Database
        <input
          name="database"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          placeholder="empty: this computer (SQLite); or postgresql://user@host:5432/db"
          aria-invalid={!!error}
          aria-describedby="database-error"
          autoComplete="off"
        />
      </label>
      {error && (
        <span id="database-error" className="error" role="alert">
          {error}
        </span>
      )}
      <p>
        <button className="primary" type="submit" disabled={busy}>
          {busy ? 'Checking…' : 'Check and save'}
        </button>
        {d.saved !== null && (
          <button type="button" disabled={busy} onClick={(e) => void save(e, null)}>
            Use this computer (SQLite)
          </button>
        )}
      </p>
      {status && (
        <p className="muted" role="status" data-testid="database-status">
          {status}
        </p>
      )}
    </form>
  );
}
