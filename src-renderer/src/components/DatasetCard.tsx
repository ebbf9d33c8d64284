// One registered dataset: its state (and the reason when it is invalid or in error), what it is
// (a FAISS index with its type, vectors and model, or a folder of documents), and where its
// manifest is. Datasets are read-only here: they change when their manifest does.
import type { DatasetInfo, DatasetState } from '../../../src-main/api/results';

const TONES: Record<DatasetState, { label: string; tone: 'ok' | 'busy' | 'error' | 'idle' }> = {
  ready: { label: 'Ready', tone: 'ok' },
  loading: { label: 'Loading…', tone: 'busy' },
  validating: { label: 'Validating…', tone: 'busy' },
  unloaded: { label: 'Not loaded', tone: 'idle' },
  invalid: { label: 'Invalid manifest', tone: 'error' },
  error: { label: 'Error', tone: 'error' },
};

export function DatasetCard({ d }: { d: DatasetInfo }) {
  const state = TONES[d.state];
  const what =
    d.kind === 'faiss'
      ? d.indexType
        ? `FAISS ${d.indexType} · ${d.documents} vectors${d.dims ? ` × ${d.dims}` : ''} · ${d.model ?? 'no model'}${d.modelInferred ? ' (inferred)' : ''}`
        : `FAISS index (not loaded) · ${d.model ?? 'model to be inferred'}`
      : d.kind === 'folder'
        ? `Folder of documents · ${d.documents} indexed${d.model ? ` · ${d.model}` : ''}`
        : 'Not validated';
  return (
    <article className="card dataset" aria-label={`Dataset ${d.id}`} data-testid={`dataset-${d.id}`}>
      <header className="row">
        <h3 className="grow">
          {d.name} <span className="muted">({d.id})</span>
        </h3>
        <span className={`badge ${state.tone}`} data-testid="dataset-state">
          {state.label}
        </span>
      </header>
      {d.description && <p>{d.description}</p>}
      <p className="muted" data-testid="dataset-kind">
        {what} · top {d.defaultTopK}
      </p>
      {d.reason && (
        <p className="error" data-testid="dataset-reason">
          {d.state === 'invalid' ? 'Invalid: ' : 'Error: '}
          {d.reason}
        </p>
      )}
      {d.warnings.map((w) => (
        <p key={w} className="notice">
          {w}
        </p>
      ))}
      <p className="path">Manifest: {d.manifestPath}</p>
    </article>
  );
}
