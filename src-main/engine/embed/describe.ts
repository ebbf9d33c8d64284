// How far embedding has come, in words: shared by search notices, `trove status`, the MCP status
// tool and the app, so a person and an assistant read the same sentence.
import type { BackgroundEmbedding, CollectionEmbeddingStatus, EmbeddingCoverage, EmbeddingProgress } from '../types/models.js';

/** "45 s", "3 min", "2 h 10 min". */
export function formatDuration(seconds: number): string {
  if (seconds < 90) return `${Math.max(1, Math.round(seconds))} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

const count = (n: number) => n.toLocaleString('en-US');

/** What the background stage is doing, as a clause: "background embedding is running (40 chunks/s, about 3 min left)". */
export function describeBackground(bg: BackgroundEmbedding, cov: EmbeddingCoverage): string {
  switch (bg.state) {
    case 'embedding': {
      const pace = cov.chunksPerSecond > 0 ? `${cov.chunksPerSecond} chunks/s` : 'starting';
      return `background embedding is running (${pace}${cov.etaSeconds !== null ? `, about ${formatDuration(cov.etaSeconds)} left` : ''})`;
    }
    case 'waiting':
      return 'background embedding resumes when keyword indexing is done';
    case 'paused':
      return 'background embedding is paused with indexing (resume to continue)';
    case 'idle':
      return 'background embedding has nothing left to do';
    case 'off':
      return bg.source === 'saved'
        ? 'background embedding is switched off in Settings (`trove embed` computes the rest)'
        : 'this process does not embed in the background (`trove serve` and the app do unless told not to; `trove embed` computes the rest)';
  }
}

/** "1,234 of 5,000 chunks embedded (24.6%)". */
export function describeCoverage(cov: EmbeddingCoverage): string {
  return `${count(cov.embedded)} of ${count(cov.chunks)} chunks embedded (${cov.percent}%)`;
}

/** The notice a semantic search carries while its collections are not fully embedded (null when they are). */
export function coverageNotice(cov: EmbeddingCoverage, bg: BackgroundEmbedding): string | null {
  if (cov.embedded >= cov.chunks) return null;
  return `semantic search sees part of the index so far: ${describeCoverage(cov)}; ${describeBackground(bg, cov)}`;
}

/** One collection: "120 of 300 chunks embedded (40%), all-MiniLM-L6-v2; embedding 12 chunks/s, about 1 min left". */
export function describeCollectionEmbedding(c: CollectionEmbeddingStatus & { problem: string | null }, progress: EmbeddingProgress | undefined): string {
  const percent = c.chunks ? Math.floor((Math.min(c.vectors, c.chunks) / c.chunks) * 1000) / 10 : 100;
  const parts = [`${count(Math.min(c.vectors, c.chunks))} of ${count(c.chunks)} chunks embedded (${percent}%)${c.model ? `, ${c.model}` : ''}`];
  if (c.switchingTo) parts.push(`switching to ${c.switchingTo}`);
  if (progress && (progress.phase === 'filling' || progress.phase === 'switching') && progress.done < progress.total) {
    parts.push(`embedding ${progress.chunksPerSecond} chunks/s${progress.etaSeconds !== null ? `, about ${formatDuration(progress.etaSeconds)} left` : ''}`);
  } else if (progress?.phase === 'paused') parts.push('paused');
  if (c.problem) parts.push(`cannot embed: ${c.problem}`);
  return parts.join('; ');
}
