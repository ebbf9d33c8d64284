// `trove migrate --to postgresql://…`: copies this profile's index (collections, documents, chunks,
// keyword rows, vectors, jobs, tokens, dataset tables) into an empty PostgreSQL database with
// pgvector, resumably, and checks every count on both sides (docs/scale-out.md). The SQLite file
// is only read.
import type { Command } from 'commander';
import { migrateProfile, type MigrationReport } from '../../engine/index.js';
import type { CliContext } from '../context.js';

export function registerMigrateCommand(program: Command, ctx: CliContext): void {
  program
    .command('migrate')
    .description('copy this profile’s index into PostgreSQL (resumable; counts checked on both sides)')
    .requiredOption('--to <url>', 'postgresql://user@host:5432/db, or postgresql://user@/db?host=/socket/dir')
    .action(async (o: { to: string }, cmd: Command) => {
      ctx.setJson(cmd);
      let last = '';
      const report = await migrateProfile({
        profileDir: ctx.environment().engine.profileDir,
        url: o.to,
        onProgress: (p) => {
          if (ctx.json || !process.stderr.isTTY) return;
          const line = `${p.table}: ${p.copied}/${p.total}`;
          if (line !== last) process.stderr.write(`\r${(last = line).padEnd(60)}`);
        },
      });
      if (last) process.stderr.write('\n');
      ctx.print(report, () => describe(report));
    });
}

function describe(r: MigrationReport): string {
  const width = Math.max(...r.counts.map((c) => c.what.length));
  const rows = r.counts.map((c) => `  ${c.what.padEnd(width)}  ${String(c.sqlite).padStart(9)}  ${String(c.postgres).padStart(9)}`);
  const note = r.approximateKeywordDocuments
    ? `\n${r.approximateKeywordDocuments} document(s) parsed from HTML or binary formats got keyword rows from their stored text (headings inside a chunk count as body text).`
    : '';
  if (r.finishedEarlier) {
    return [`${r.target} already holds a finished copy of this profile; nothing copied. Counts now (hosts may have used the database since):`, `  ${'table'.padEnd(width)}  ${'SQLite'.padStart(9)}  ${'PostgreSQL'.padStart(9)}`, ...rows].join('\n');
  }
  return [`Copied to ${r.target}; every count matches:`, `  ${'table'.padEnd(width)}  ${'SQLite'.padStart(9)}  ${'PostgreSQL'.padStart(9)}`, ...rows].join('\n') + note;
}
