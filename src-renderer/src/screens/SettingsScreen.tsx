// Settings: theme, background embedding, embedding models, the saved settings (port, file size
// limit, redaction), the database (next start), what this engine reports about itself, and, plainly, what cannot be changed yet.
import { useEffect, useRef, useState } from 'react';
import type { SettingsInfo } from '../../../src-main/api/results';
import { errorMessage, trove } from '../bridge';
import { BackgroundEmbeddingCard } from '../components/BackgroundEmbeddingCard';
import { OcrSettingsCard } from '../components/OcrSettingsCard';
import { DatabaseCard } from '../components/DatabaseCard';
import { ModelsCard } from '../components/ModelsCard';
import { SavedSettingsCard } from '../components/SavedSettingsCard';
import { applyTheme, savedTheme, themeChoices, type ThemeChoice } from '../theme';

const themeLabels: Record<ThemeChoice, string> = { system: 'Follow the system', light: 'Light', dark: 'Dark' };

/** When the background stages' states are read again after a switch is saved. */
const LOOK_AGAIN_MS = [500, 1500, 4000];

export function SettingsScreen() {
  const [info, setInfo] = useState<SettingsInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [theme, setTheme] = useState<ThemeChoice>(savedTheme);
  const pickTheme = (t: ThemeChoice) => {
    applyTheme(t);
    setTheme(t);
  };
  // a switch saved: the background stages settle a moment later (no event carries their state), so
  // their states are read again a few times; only those two cards take them, so a form being
  // edited is never reset under the user
  const [live, setLive] = useState<Pick<SettingsInfo, 'backgroundEmbedding' | 'backgroundOcr'> | null>(null);
  const looks = useRef<ReturnType<typeof setTimeout>[]>([]);
  useEffect(() => {
    trove.call('settings.get', {}).then(setInfo, (err) => setError(errorMessage(err)));
    return () => looks.current.forEach(clearTimeout);
  }, []);
  const saved = (i: SettingsInfo) => {
    setInfo(i);
    setLive(null);
    looks.current.forEach(clearTimeout);
    looks.current = LOOK_AGAIN_MS.map((ms) =>
      setTimeout(() => {
        trove.call('settings.get', {}).then(
          (next) => setLive({ backgroundEmbedding: next.backgroundEmbedding, backgroundOcr: next.backgroundOcr }),
          () => undefined, // the next look tries again; the card keeps what it shows
        );
      }, ms),
    );
  };
  const background = info && live ? { ...info, ...live } : info;

  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <fieldset className="card" data-testid="theme">
        <legend>Theme</legend>
        {themeChoices.map((t) => (
          <label key={t} className="inline">
            <input type="radio" name="theme" value={t} checked={theme === t} onChange={() => pickTheme(t)} /> {themeLabels[t]}
          </label>
        ))}
      </fieldset>
      {background && <BackgroundEmbeddingCard info={background} onSaved={saved} />}
      {background && <OcrSettingsCard info={background} onSaved={saved} />}
      <ModelsCard />
      {info && (
        <>
          <SavedSettingsCard info={info} onSaved={setInfo} />
          <DatabaseCard info={info} onSaved={setInfo} />
          <div className="card">
            <h2>Engine</h2>
            <dl className="pairs">
              <dt>Profile folder</dt>
              <dd className="path">{info.profileDir}</dd>
              <dt>Index database</dt>
              <dd className="path">{info.databasePath}</dd>
              <dt>Largest file indexed</dt>
              <dd>
                {+(info.maxFileBytes / 1024 / 1024).toFixed(3)} MB ({info.maxFileBytesSource === 'env' ? 'TROVE_MAX_FILE_BYTES' : info.maxFileBytesSource}); documents ten times it
              </dd>
              {info.chunking && (
                <>
                  <dt>Chunk size (read-only)</dt>
                  <dd>
                    {info.chunking.targetChars} characters, {info.chunking.overlapChars} overlap
                  </dd>
                </>
              )}
            </dl>
          </div>
          <div className="card">
            <h2>Search modes</h2>
            <ul data-testid="modes">
              {info.searchModes.map((m) => (
                <li key={m.mode}>
                  <strong>{m.mode}</strong>: {m.available ? 'available' : `unavailable: ${m.reason}`}
                </li>
              ))}
            </ul>
          </div>
          <div className="card">
            <h2>Not adjustable here yet</h2>
            <ul>
              {info.notYet.map((n) => (
                <li key={n.setting}>
                  <strong>{n.setting}</strong>: {n.reason}
                </li>
              ))}
            </ul>
          </div>
        </>
      )}
    </section>
  );
}
