// One collection: counts, state (from the live index activity), failures with reasons, the
// context note, and reindex / rename / remove. Remove asks first and says what it does.
import { useState } from 'react';
import type { CollectionInfo, CollectionOcrStatus, EmbeddingProgress, FileProblem, IndexActivity, StatusReport } from '../../../src-main/api/results';
import { errorMessage, trove } from '../bridge';
import { ConfirmDialog } from './ConfirmDialog';
import { KindCounts } from './kinds';
import { EmbeddingBar, ProgressBar } from './ProgressBar';

export function collectionState(c: CollectionInfo, activity: IndexActivity | null): { label: string; tone: 'busy' | 'ok' | 'warn' | 'error' | 'idle' } {
  const running = activity?.running;
  if (running?.collection === c.name) return { label: running.state === 'scanning' ? 'Scanning…' : 'Indexing…', tone: 'busy' };
  if (activity?.queued.includes(c.name)) return { label: 'Queued', tone: 'busy' };
  const last = activity?.recent.find((r) => r.collection === c.name);
  if (last?.state === 'failed') return { label: `Indexing failed: ${last.error ?? 'unknown error'}`, tone: 'error' };
  if (!c.lastIndexedAt) return { label: 'Not indexed yet', tone: 'idle' };
  if (c.failed) return { label: `Indexed, ${c.failed} failed`, tone: 'warn' };
  return { label: 'Indexed', tone: 'ok' };
}

type VectorState = NonNullable<StatusReport['embeddings']>['collections'][number];

export function CollectionCard(props: {
  c: CollectionInfo;
  activity: IndexActivity | null;
  problems: FileProblem[];
  /** null: this engine has no live folders (no pause). */
  paused: boolean | null;
  vectors: VectorState | null;
  /** Its scanned pages and images (null: it has none). */
  ocr?: CollectionOcrStatus | null;
  embedProgress: EmbeddingProgress | null;
}) {
  const { c, activity, problems, paused, vectors, ocr, embedProgress } = props;
  const [languages, setLanguages] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [context, setContext] = useState<string | null>(null);
  const state = paused ? { label: 'Paused', tone: 'warn' as const } : collectionState(c, activity);
  const running = activity?.running?.collection === c.name ? activity.running : null;

  const act = async (fn: () => Promise<unknown>) => {
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(errorMessage(err));
    }
  };

  return (
    <article className="card collection" aria-label={`Collection ${c.name}`} data-testid={`collection-${c.name}`}>
      <header className="row">
        <h3 className="grow">{c.name}</h3>
        <span className={`badge ${state.tone}`} data-testid="collection-state">
          {state.label}
        </span>
      </header>
      <p className="path">{c.root}</p>
      {running && <ProgressBar run={running} />}
      <dl className="counts">
        <div>
          <dt>Documents</dt>
          <dd data-testid="count-documents">{c.documents}</dd>
        </div>
        <div>
          <dt>Chunks</dt>
          <dd>{c.chunks}</dd>
        </div>
        <div>
          <dt>Skipped</dt>
          <dd>{c.skipped}</dd>
        </div>
        <div>
          <dt>Failed</dt>
          <dd>{c.failed}</dd>
        </div>
        <div>
          <dt>Last indexed</dt>
          <dd>{c.lastIndexedAt ? new Date(c.lastIndexedAt).toLocaleString() : 'never'}</dd>
        </div>
      </dl>
      <KindCounts kinds={c.kinds} />
      <details>
        <summary>
          {c.include.length} include and {c.exclude.length} exclude patterns
        </summary>
        <p className="path">Include: {c.include.join(', ')}</p>
        <p className="path">Exclude: {c.exclude.join(', ')}</p>
      </details>
      {vectors && vectors.chunks > 0 && (
        <p data-testid="vectors">
          <span className="muted">Embeddings: </span>
          {vectors.summary}
        </p>
      )}
      {embedProgress && (embedProgress.phase === 'filling' || embedProgress.phase === 'switching') && embedProgress.done < embedProgress.total && (
        <EmbeddingBar progress={embedProgress} />
      )}
      {ocr && (
        <p data-testid="ocr">
          <span className="muted">Scans: </span>
          {ocr.summary}
        </p>
      )}
      {languages === null ? (
        <p>
          <span className="muted">OCR languages: </span>
          {c.ocrLanguages.join(', ')}{' '}
          <button type="button" className="link" onClick={() => setLanguages(c.ocrLanguages.join(','))}>
            Change
          </button>
        </p>
      ) : (
        <div className="row">
          <label className="grow">
            OCR languages for {c.name} (Tesseract codes, comma-separated: eng,deu)
            <input value={languages} onChange={(e) => setLanguages(e.target.value)} />
          </label>
          <button
            type="button"
            onClick={() =>
              void act(async () => {
                const codes = languages.split(',').map((s) => s.trim()).filter(Boolean);
                await trove.call('collections.setOcrLanguages', { name: c.name, languages: codes.length ? codes : null });
                setLanguages(null);
              })
            }
          >
            Save
          </button>
          <button type="button" onClick={() => setLanguages(null)}>Cancel</button>
        </div>
      )}
      {context === null ? (
        <p>
          <span className="muted">Context note: </span>
          {c.context || <em className="muted">none</em>}{' '}
          <button type="button" className="link" onClick={() => setContext(c.context)}>
            Edit
          </button>
        </p>
      ) : (
        <div className="row">
          <label className="grow">
            Context note for {c.name}
            <input value={context} onChange={(e) => setContext(e.target.value)} />
          </label>
          <button type="button" onClick={() => void act(async () => (await trove.call('collections.setContext', { name: c.name, context }), setContext(null)))}>Save</button>
          <button type="button" onClick={() => setContext(null)}>Cancel</button>
        </div>
      )}
      <label className="row">
        <span className="muted">Secret redaction: </span>
        <select
          aria-label={`Secret redaction for ${c.name}`}
          value={c.redactSecrets === null ? 'default' : c.redactSecrets ? 'on' : 'off'}
          onChange={(e) => {
            const v = e.target.value;
            void act(() => trove.call('collections.setRedaction', { name: c.name, redactSecrets: v === 'default' ? null : v === 'on' }));
          }}
        >
          <option value="default">as in Settings</option>
          <option value="on">on for this collection</option>
          <option value="off">off for this collection</option>
        </select>
      </label>
      {problems.length > 0 && (
        <details>
          <summary>
            {problems.length} file{problems.length === 1 ? '' : 's'} not indexed (or only in part), with reasons
          </summary>
          <ul className="problems">
            {problems.map((p) => (
              <li key={p.path}>
                <code>{p.path}</code> <span className={`badge ${p.status === 'failed' ? 'error' : 'warn'}`}>{p.status}</span> {p.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
      {renaming !== null && (
        <div className="row">
          <label className="grow">
            New name for {c.name}
            <input value={renaming} onChange={(e) => setRenaming(e.target.value)} />
          </label>
          <button type="button" onClick={() => void act(async () => (await trove.call('collections.rename', { name: c.name, newName: renaming }), setRenaming(null)))}>Rename</button>
          <button type="button" onClick={() => setRenaming(null)}>Cancel</button>
        </div>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <footer className="row end">
        {paused === null ? (
          <button type="button" disabled title="This engine has no live folders, so there is nothing to pause">
            Pause
          </button>
        ) : (
          <button type="button" onClick={() => void act(() => trove.call(paused ? 'collections.resume' : 'collections.pause', { name: c.name }))}>
            {paused ? 'Resume' : 'Pause'}
          </button>
        )}
        {vectors && (
          <button
            type="button"
            title="Now, with every model worker (background embedding uses one, at low priority), even while paused"
            disabled={(!!embedProgress && embedProgress.phase !== 'done' && embedProgress.phase !== 'paused') || vectors.needsEmbedding === 0}
            onClick={() => void act(() => trove.call('collections.embed', { name: c.name }))}
          >
            Compute embeddings
          </button>
        )}
        <button type="button" onClick={() => void act(() => trove.call('collections.reindex', { name: c.name }))} disabled={state.tone === 'busy'}>
          {c.failed ? 'Retry failed (reindex)' : 'Reindex'}
        </button>
        <button type="button" onClick={() => setRenaming(c.name)}>Rename…</button>
        <button type="button" className="danger" onClick={() => setConfirming(true)}>
          Remove…
        </button>
      </footer>
      {confirming && (
        <ConfirmDialog
          title={`Remove "${c.name}"?`}
          body={`Trove forgets this collection's index (${c.documents} documents). The files in ${c.root} are not touched.`}
          confirmLabel="Remove collection"
          onCancel={() => setConfirming(false)}
          onConfirm={() => {
            setConfirming(false);
            void act(() => trove.call('collections.remove', { name: c.name }));
          }}
        />
      )}
    </article>
  );
}
