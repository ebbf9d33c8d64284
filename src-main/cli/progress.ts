// A progress bar with rate and ETA on stderr, only when a person is watching (TTY, not --json).
import cliProgress from 'cli-progress';
import type { IndexProgress, OcrProgress } from '../engine/index.js';

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

/** OCR after an index run: pages read (recognised, from the cache, failed) of the pages left, per collection. */
export function ocrProgressBar(enabled: boolean): { update(p: OcrProgress): void; stop(): void } {
  if (!enabled) return { update() {}, stop() {} };
  let bar: cliProgress.SingleBar | null = null;
  let current = '';
  const stop = () => {
    bar?.stop();
    bar = null;
  };
  return {
    update(p) {
      if (p.collection !== current) {
        stop();
        current = p.collection;
      }
      if (!bar && p.total > 0) {
        bar = new cliProgress.SingleBar(
          { stream: process.stderr, format: `${p.collection} OCR [{bar}] {value}/{total} pages | {cached} cached | {failed} failed | {file} | ETA {eta_formatted}`, hideCursor: true, etaBuffer: 10 },
          cliProgress.Presets.shades_classic,
        );
        bar.start(p.total, 0, { cached: 0, failed: 0, file: '' });
      }
      bar?.setTotal(p.total);
      bar?.update(p.done, { cached: p.cached, failed: p.failed, file: p.current ?? '' });
      if (p.phase !== 'reading') stop();
    },
    stop,
  };
}
