// Live progress of one index run (files done of total, rate, ETA, the file being read) and of the
// embedding stage (chunks done of total, rate, ETA).
import type { EmbeddingProgress, IndexRun } from '../../../src-main/api/results';

export function formatEta(s: number | null): string {
  if (s === null || !Number.isFinite(s)) return 'estimating…';
  if (s < 60) return `${Math.max(1, Math.round(s))} s left`;
  return `${Math.round(s / 60)} min left`;
}

/** The bar alone: `value` of `max` (max null or 0: not known yet, shown empty). */
export function Bar({ label, value, max }: { label: string; value: number; max: number | null }) {
  const pct = max ? Math.min(100, Math.round((value / max) * 100)) : 0;
  return (
    <div className="bar" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={max || 1} aria-valuenow={value}>
      <span style={{ width: `${pct}%` }} />
    </div>
  );
}

export function ProgressBar({ run }: { run: IndexRun }) {
  return (
    <div className="progress" data-testid="progress">
      <Bar label={`Indexing ${run.collection}`} value={run.done} max={run.total} />
      <small>
        {run.state === 'scanning' ? 'Scanning files' : `${run.done} of ${run.total} files`}
        {run.rate > 0 && ` · ${run.rate.toFixed(1)} files/s · ${formatEta(run.etaSeconds)}`}
        {run.currentFile && ` · ${run.currentFile}`}
      </small>
    </div>
  );
}

/** Live progress of the embedding stage over one collection: chunks done of total, rate, ETA. */
export function EmbeddingBar({ progress: p }: { progress: EmbeddingProgress }) {
  return (
    <div className="progress" data-testid="embed-progress">
      <Bar label={`Embedding ${p.collection}`} value={p.done} max={p.total} />
      <small>
        {p.phase === 'switching' ? 'Re-embedding' : 'Embedding'} with {p.model}: {p.done} of {p.total} chunks
        {p.chunksPerSecond > 0 && ` · ${p.chunksPerSecond.toFixed(0)} chunks/s`} · {formatEta(p.etaSeconds)}
      </small>
    </div>
  );
}
