// The background embedding switch: saved in settings.json and applied at once (the host starts or
// stops the stage without a restart), with what the stage is doing now. `trove serve --no-embed`
// wins over it, and the card says so.
import type { BackgroundEmbedding, SettingsInfo } from '../../../src-main/api/results';
import { useSavedSwitch } from './use-saved-switch';

const stateText: Record<BackgroundEmbedding['state'], string> = {
  embedding: 'Embedding in the background now (see Index status for progress).',
  waiting: 'Waiting: keyword indexing goes first.',
  paused: 'Paused with indexing: resume to continue.',
  idle: 'Every chunk has a vector.',
  off: 'Off: semantic and hybrid search see only what “Compute embeddings” or `trove embed` computed.',
};

export function BackgroundEmbeddingCard({ info, onSaved }: { info: SettingsInfo; onSaved: (info: SettingsInfo) => void }) {
  const bg = info.backgroundEmbedding;
  const { on, busy, error, toggle } = useSavedSwitch('backgroundEmbedding', info, onSaved);

  return (
    <div className="card" data-testid="background-embedding">
      <h2>Semantic search</h2>
      <label className="inline">
        <input type="checkbox" name="backgroundEmbedding" checked={on} disabled={busy} onChange={(e) => void toggle(e.target.checked)} />
        Embed new and changed files in the background
      </label>
      <p className="muted">
        Vectors for semantic and hybrid search follow the folders by themselves, at low priority: keyword indexing goes first, searches stay fast, and
        pausing indexing pauses it too. Applies at once.
      </p>
      <p data-testid="background-state">
        {bg.source === 'option' && !bg.enabled ? 'Off for this server: it was started with --no-embed, which wins over this switch.' : stateText[bg.state]}
        {info.database.backend === 'postgres' ? ' On PostgreSQL the switch applies when this server starts next.' : ''}
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
