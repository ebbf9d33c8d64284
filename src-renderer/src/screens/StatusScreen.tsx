// Index status: what is running now (live: indexing, and the embedding stage with rate and ETA),
// what waits, how much is embedded, what finished recently, and the totals. Pausing here pauses
// indexing and background embedding of everything.
import { useEffect, useState } from 'react';
import { errorMessage, trove } from '../bridge';
import { EmbeddingBar, ProgressBar } from '../components/ProgressBar';
import { useApp } from '../store';
import { KindCounts } from '../components/kinds';

const formatBytes = (n: number) => (n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`);

export function StatusScreen() {
  const { activity, status, embedding, refreshStatus } = useApp();
  const [pauseError, setPauseError] = useState<string | null>(null);
  const embeddingRuns = Object.values(embedding.progress).filter((p) => (p.phase === 'filling' || p.phase === 'switching') && p.done < p.total);
  useEffect(() => {
    void refreshStatus();
  }, [activity?.running, activity?.recent.length, refreshStatus]);
  const allPaused = !!status?.indexing?.paused;
  const togglePause = async () => {
    setPauseError(null);
    try {
      await trove.call(allPaused ? 'collections.resume' : 'collections.pause', {});
      await refreshStatus();
    } catch (err) {
      setPauseError(errorMessage(err));
    }
  };

  return (
    <section aria-labelledby="status-title">
      <h1 id="status-title">Index status</h1>
      <div className="card">
        <h2>Now</h2>
        {activity?.running ? (
          <>
            <p>
              <strong>{activity.running.collection}</strong>: {activity.running.state === 'scanning' ? 'scanning the folder' : 'reading and indexing files'}
            </p>
            <ProgressBar run={activity.running} />
          </>
        ) : (
          <p data-testid="idle">Idle: nothing is being indexed.</p>
        )}
        {embeddingRuns.map((p) => (
          <div key={p.collection} data-testid="embedding-now">
            <p>
              <strong>{p.collection}</strong>: {p.phase === 'switching' ? 're-embedding with a new model' : 'computing embeddings'}
            </p>
            <EmbeddingBar progress={p} />
          </div>
        ))}
        {embedding.finished?.error && (
          <p className="error" role="alert">
            Embedding {embedding.finished.collection ?? 'all collections'} failed: {embedding.finished.error}
          </p>
        )}
        <p className="muted">
          Run queue: {activity?.queued.length ? activity.queued.join(', ') : 'empty'}
          {status?.indexing && ` · live folders: ${status.indexing.watching ? 'watching for changes' : 'not watching'}${status.indexing.paused ? ' (all paused)' : ''}`}
        </p>
        {status?.indexing && (
          <button type="button" onClick={() => void togglePause()} data-testid="pause-all">
            {allPaused ? 'Resume indexing and embedding' : 'Pause indexing and embedding'}
          </button>
        )}
        {pauseError && (
          <p className="error" role="alert">
            {pauseError}
          </p>
        )}
      </div>
      {status?.embeddings && (
        <div className="card">
          <h2>Embeddings</h2>
          <p data-testid="embedding-summary">{status.embeddings.summary}.</p>
          <table>
            <thead>
              <tr>
                <th>Collection</th>
                <th>Model</th>
                <th>Vectors</th>
                <th>Embedded</th>
                <th>Waiting</th>
                <th>Queued files</th>
                <th>Retrying</th>
                <th>Problem</th>
              </tr>
            </thead>
            <tbody>
              {status.embeddings.collections.map((e) => {
                const live = status.indexing?.collections.find((a) => a.collection === e.collection);
                return (
                  <tr key={e.collection}>
                    <td>{e.collection}</td>
                    <td>{e.model ?? 'none yet'}{e.switchingTo ? ` → ${e.switchingTo}` : ''}</td>
                    <td>{e.vectors}</td>
                    <td>{e.chunks ? `${Math.floor((Math.min(e.vectors, e.chunks) / e.chunks) * 1000) / 10}%` : '–'}</td>
                    <td>{e.needsEmbedding}</td>
                    <td>{live?.queued ?? '–'}</td>
                    <td>{live ? live.retrying : '–'}</td>
                    <td>{e.problem ?? ''}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <div className="card" data-testid="recent">
        <h2>Recent activity</h2>
        {activity?.recent.length ? (
          <table>
            <thead>
              <tr>
                <th>Collection</th>
                <th>Result</th>
                <th>Scanned</th>
                <th>Added</th>
                <th>Updated</th>
                <th>Removed</th>
                <th>Skipped</th>
                <th>Failed</th>
                <th>Took</th>
                <th>Finished</th>
              </tr>
            </thead>
            <tbody>
              {activity.recent.map((r, i) => (
                <tr key={`${r.collection}-${r.finishedAt}-${i}`}>
                  <td>{r.collection}</td>
                  <td>{r.state === 'failed' ? `failed: ${r.error}` : 'done'}</td>
                  <td>{r.summary?.scanned ?? '–'}</td>
                  <td>{r.summary?.added ?? '–'}</td>
                  <td>{r.summary?.updated ?? '–'}</td>
                  <td>{r.summary?.removed ?? '–'}</td>
                  <td>{r.summary?.skipped ?? '–'}</td>
                  <td>{r.summary?.failed ?? '–'}</td>
                  <td>{r.summary ? `${(r.summary.durationMs / 1000).toFixed(1)} s` : '–'}</td>
                  <td>{r.finishedAt ? new Date(r.finishedAt).toLocaleTimeString() : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p className="muted">No index runs since the engine started.</p>
        )}
      </div>
      {status && (
        <div className="card">
          <h2>Totals</h2>
          <dl className="counts">
            <div>
              <dt>Collections</dt>
              <dd>{status.totals.collections}</dd>
            </div>
            <div>
              <dt>Documents</dt>
              <dd data-testid="total-documents">{status.totals.documents}</dd>
            </div>
            <div>
              <dt>Chunks</dt>
              <dd>{status.totals.chunks}</dd>
            </div>
            <div>
              <dt>Skipped</dt>
              <dd>{status.totals.skipped}</dd>
            </div>
            <div>
              <dt>Failed</dt>
              <dd>{status.totals.failed}</dd>
            </div>
            <div>
              <dt>Index size</dt>
              <dd>{formatBytes(status.database.bytes)}</dd>
            </div>
          </dl>
          <KindCounts kinds={status.totals.kinds} testId="total-kinds" />
          <p className="path">{status.database.path}</p>
        </div>
      )}
    </section>
  );
}
