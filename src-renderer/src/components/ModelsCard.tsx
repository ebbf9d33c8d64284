// Embedding models in Settings: the catalogue (which models are here, with a download for those
// that are not, and its live progress) and, per collection, the model its vectors come from, with
// a choice that re-embeds in the background and swaps when done.
import { useEffect, useState } from 'react';
import type { ModelEntry } from '../../../src-main/api/results';
import { errorMessage, trove } from '../bridge';
import { useApp, type ModelDownload } from '../store';
import { Bar } from './ProgressBar';

const AUTO = 'auto';

export function ModelsCard() {
  const status = useApp((s) => s.status);
  const refreshStatus = useApp((s) => s.refreshStatus);
  const progress = useApp((s) => s.embedding.progress);
  const downloads = useApp((s) => s.downloads);
  const pullModel = useApp((s) => s.pullModel);
  const [models, setModels] = useState<ModelEntry[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    void refreshStatus();
  }, [refreshStatus]);
  // again after each download ends, so a downloaded model becomes choosable
  useEffect(() => {
    trove.call('models.list', {}).then(setModels, (err) => setError(errorMessage(err)));
  }, [downloads.finished]);

  const choose = async (collection: string, value: string) => {
    setError(null);
    setNotice(null);
    try {
      const r = await trove.call('collections.setModel', { name: collection, model: value === AUTO ? null : value });
      const chosen = value === AUTO ? 'the automatic choice' : value;
      setNotice(
        r.model && r.model !== value
          ? `${collection}: embedding with ${chosen}; searches keep using ${r.model} until it is done`
          : `${collection}: ${chosen}; missing vectors are being computed`,
      );
      await refreshStatus();
    } catch (err) {
      setError(errorMessage(err));
    }
  };

  const embedders = models?.filter((m) => m.role === 'embed') ?? [];
  return (
    <div className="card" data-testid="models">
      <h2>Embedding models</h2>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {notice && <p role="status">{notice}</p>}
      {Object.entries(downloads.served).map(([id, source]) => (
        <p key={id} role="status" data-testid={`model-served-${id}`}>
          {id} downloaded from {source} and verified.
        </p>
      ))}
      {Object.entries(downloads.errors).map(([id, message]) => (
        <p key={id} className="error" role="alert" data-testid={`model-error-${id}`}>
          Downloading {id} failed: {message}
        </p>
      ))}
      {models && (
        <table>
          <thead>
            <tr>
              <th>Model</th>
              <th>Role</th>
              <th>Languages</th>
              <th>State</th>
              <th>Download</th>
            </tr>
          </thead>
          <tbody>
            {models.map((m) => (
              <tr key={m.id} data-testid={`model-${m.id}`}>
                <td>
                  {m.id}
                  {m.testOnly ? ' (tests only)' : ''}
                </td>
                <td>{m.role}</td>
                <td>{m.languages.join(', ')}</td>
                <td className={m.ready ? 'ok' : 'muted'}>{m.state}</td>
                <td>
                  {downloads.progress[m.id] ? (
                    <DownloadProgress id={m.id} d={downloads.progress[m.id]!} />
                  ) : (
                    !m.ready && (
                      <button type="button" aria-label={`Download ${m.id}`} onClick={() => void pullModel(m.id)}>
                        Download
                      </button>
                    )
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {status?.embeddings && status.embeddings.collections.length > 0 && (
        <>
          <h3>Per collection</h3>
          <dl className="pairs">
            {status.embeddings.collections.map((c) => {
              const live = progress[c.collection];
              return (
                <div key={c.collection} className="model-choice">
                  <dt>
                    <label htmlFor={`model-for-${c.collection}`}>{c.collection}</label>
                  </dt>
                  <dd>
                    <select id={`model-for-${c.collection}`} value={c.switchingTo ?? c.model ?? AUTO} onChange={(e) => void choose(c.collection, e.target.value)}>
                      <option value={AUTO}>Automatic (by language)</option>
                      {embedders.map((m) => (
                        <option key={m.id} value={m.id} disabled={!m.ready}>
                          {m.id}
                          {m.ready ? '' : ' (not here: download it above)'}
                        </option>
                      ))}
                    </select>{' '}
                    <span data-testid={`model-state-${c.collection}`}>
                      {c.model ?? 'no vectors yet'}, {c.vectors} vectors
                      {c.switchingTo ? `; switching to ${c.switchingTo}` : ''}
                      {live ? ` — embedding ${live.done}/${live.total}` : ''}
                    </span>
                  </dd>
                </div>
              );
            })}
          </dl>
        </>
      )}
    </div>
  );
}

const mb = (bytes: number) => (bytes / 1e6).toFixed(1);

function DownloadProgress({ id, d }: { id: string; d: ModelDownload }) {
  return (
    <div className="progress" data-testid={`model-download-${id}`}>
      <Bar label={`Downloading ${id}`} value={d.received} max={d.total} />
      <small>
        {d.file ? `${d.file}: ${mb(d.received)}${d.total !== null ? ` of ${mb(d.total)}` : ''} MB${d.source ? ` from ${d.source}` : ''}` : 'Starting…'}
      </small>
    </div>
  );
}
