// Live progress of one index run: files done of total, rate, ETA, the file being read.
import type { IndexRun } from '../../../src-main/api/results';

export function formatEta(s: number | null): string {
  if (s === null || !Number.isFinite(s)) return 'estimating…';
  if (s < 60) return `${Math.max(1, Math.round(s))} s left`;
  return `${Math.round(s / 60)} min left`;
}

export function ProgressBar({ run }: { run: IndexRun }) {
  const pct = run.total ? Math.min(100, Math.round((run.done / run.total) * 100)) : 0;
  return (
    <div className="progress" data-testid="progress">
      <div
        className="bar"
        role="progressbar"
        aria-label={`Indexing ${run.collection}`}
        aria-valuemin={0}
        aria-valuemax={run.total || 1}
        aria-valuenow={run.done}
      >
        <span style={{ width: `${pct}%` }} />
      </div>
      <small>
        {run.state === 'scanning' ? 'Scanning files' : `${run.done} of ${run.total} files`}
        {run.rate > 0 && ` · ${run.rate.toFixed(1)} files/s · ${formatEta(run.etaSeconds)}`}
        {run.currentFile && ` · ${run.currentFile}`}
      </small>
    </div>
  );
}
