// A progress bar with rate and ETA on stderr, only when a person is watching (TTY, not --json).
import cliProgress from 'cli-progress';
import type { IndexProgress } from '../engine/index.js';

export interface ProgressReporter {
  update(p: IndexProgress): void;
  stop(): void;
}

export function indexProgressBar(enabled: boolean): ProgressReporter {
  if (!enabled) return { update() {}, stop() {} };
  let bar: cliProgress.SingleBar | null = null;
  let current = '';
  let started = 0;
  const stop = () => {
    bar?.stop();
    bar = null;
  };
  return {
    update(p) {
      if (p.phase === 'scanning' || p.collection !== current) {
        stop();
        current = p.collection;
        started = performance.now();
        return;
      }
      if (!bar && p.total > 0) {
        bar = new cliProgress.SingleBar(
          {
            stream: process.stderr,
            format: `${p.collection} [{bar}] {percentage}% | {value}/{total} files | {rate} files/s | {mb} MB | ETA {eta_formatted}`,
            hideCursor: true,
            etaBuffer: 20,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(p.total, 0, { rate: '0', mb: '0.0' });
      }
      const secs = Math.max((performance.now() - started) / 1000, 1e-3);
      bar?.update(p.done, { rate: Math.round(p.done / secs).toString(), mb: (p.bytes / 1e6).toFixed(1) });
      if (p.phase === 'done') stop();
    },
    stop,
  };
}
