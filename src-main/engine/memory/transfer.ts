// Backing memory up and moving it: export writes one JSON object per entry (oldest first, images
// included), import reads them back. Import checks every line before writing any, keeps each
// entry's creation and update times, and skips entries already present (same thread, source,
// creation time and text), so importing the same file twice changes nothing.
import { invalidInput } from '../errors.js';
import type { MemoryExportLine } from '../types/memory.js';
import { isoTime, parseMemoryDate } from './dates.js';
import { checkEntry, type EntryWrite } from './entry-input.js';
import type { EntryRow, ImageRow } from '../store/memory-rows.js';

/** Creation and update times an import keeps; new entries take the clock. */
export interface EntryTimes {
  createdAt: number;
  updatedAt: number;
}

/** One entry as an export line (its images with their bytes). */
export function exportLine(row: EntryRow, images: readonly ImageRow[]): MemoryExportLine {
  return {
    id: row.id,
    thread_id: row.thread_id,
    source: row.source,
    text: row.text,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    tags: JSON.parse(row.tags) as string[],
    images: images.map((i) => ({ data: i.data!.toString('base64'), mime_type: i.mime_type })),
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  };
}

export const IMPORT_BATCH = 500;
const MAX_REPORTED = 10;

/** Every line checked before any is written: a bad one is INVALID_INPUT naming it (up to ten), nothing written. */
export function checkImportLines(lines: readonly unknown[]): { write: EntryWrite; times: EntryTimes }[] {
  const checked: { write: EntryWrite; times: EntryTimes }[] = [];
  const problems: string[] = [];
  lines.forEach((line, i) => {
    try {
      checked.push(checkLine(line, `line ${i + 1}`));
    } catch (err) {
      problems.push((err as Error).message);
    }
  });
  if (problems.length) {
    const more = problems.length > MAX_REPORTED ? `\n… and ${problems.length - MAX_REPORTED} more` : '';
    throw invalidInput(`nothing was imported: ${problems.length} line${problems.length === 1 ? '' : 's'} cannot be read\n${problems.slice(0, MAX_REPORTED).join('\n')}${more}`);
  }
  return checked;
}


export function sameEntry(a: { write: EntryWrite; times: EntryTimes }, b: { write: EntryWrite; times: EntryTimes }): boolean {
  return a.write.threadId === b.write.threadId && a.times.createdAt === b.times.createdAt && a.write.source === b.write.source && a.write.text === b.write.text;
}

function checkLine(line: unknown, at: string): { write: EntryWrite; times: EntryTimes } {
  if (typeof line !== 'object' || line === null || Array.isArray(line)) throw invalidInput(`${at}: not a JSON object`);
  const l = line as Partial<Record<keyof MemoryExportLine, unknown>>;
  const write = checkEntry(
    {
      threadId: l.thread_id as string,
      source: l.source as 'user',
      text: l.text as string,
      metadata: l.metadata as Record<string, unknown> | null,
      tags: l.tags as string[] | null,
      images: l.images as { data: string; mime_type: string }[] | null,
    },
    at,
  );
  const now = Date.now();
  const createdAt = l.created_at == null ? now : parseMemoryDate(String(l.created_at), `${at}.created_at`);
  const updatedAt = l.updated_at == null ? createdAt : parseMemoryDate(String(l.updated_at), `${at}.updated_at`);
  return { write, times: { createdAt, updatedAt } };
}
