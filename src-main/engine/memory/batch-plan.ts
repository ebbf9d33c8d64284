// The pure half of memory's batch writes, shared by both backends (MemoryService on SQLite,
// shared/SharedMemory on PostgreSQL): each item checked on its own, an atomic batch failing whole
// with the first bad item named, and the per-item results in input order. Only the write between
// the plan and the result differs (one transaction in each backend).
import { invalidInput, notFound } from '../errors.js';
import type { MemoryBatchItem, MemoryBatchResult, MemoryEntryInput, MemoryUpdateInput } from '../types/memory.js';
import { checkEntry, checkUpdate, MEMORY_LIMITS, type EntryWrite, type UpdateWrite } from './entry-input.js';

/** One item of a batch after its checks: the write, or why it was refused. */
export type Checked<T> = { value: T | null; error: string | null };

export function checkBatch(items: readonly unknown[], name: string): void {
  if (!Array.isArray(items) || !items.length) throw invalidInput(`${name} must be a non-empty list`);
  if (items.length > MEMORY_LIMITS.batch) throw invalidInput(`${name}: a batch holds at most ${MEMORY_LIMITS.batch} items (got ${items.length})`);
}

export function attempt<T>(fn: () => T): Checked<T> {
  try {
    return { value: fn(), error: null };
  } catch (err) {
    return { value: null, error: (err as Error).message };
  }
}

export function tally(results: MemoryBatchItem[]): MemoryBatchResult {
  const succeeded = results.filter((r) => r.success).length;
  return { results, succeeded, failed: results.length - succeeded };
}

/** store_context_batch: the entries to write; an atomic batch with a bad entry is INVALID_INPUT naming it. */
export function planStoreBatch(inputs: readonly MemoryEntryInput[], atomic: boolean): { checked: Checked<EntryWrite>[]; writes: EntryWrite[] } {
  checkBatch(inputs, 'entries');
  const checked = inputs.map((input, i) => attempt(() => checkEntry(input, `entries[${i}]`)));
  const bad = atomic ? checked.find((c) => c.error !== null) : undefined;
  if (bad) throw invalidInput(`nothing was stored (the batch is atomic): ${bad.error}`);
  return { checked, writes: checked.flatMap((c) => (c.error === null ? [c.value!] : [])) };
}

/** Each entry's result, in input order, given the ids the written ones got (in order). */
export function storeBatchResult(checked: readonly Checked<EntryWrite>[], ids: readonly number[]): MemoryBatchResult {
  let next = 0;
  return tally(checked.map((c, index): MemoryBatchItem => (c.error === null ? { index, success: true, id: ids[next++]!, error: null } : { index, success: false, id: null, error: c.error })));
}

/** update_context_batch, first half: every update checked on its own (the caller then asks which ids exist). */
export function checkUpdateBatch(inputs: readonly MemoryUpdateInput[]): Checked<UpdateWrite>[] {
  checkBatch(inputs, 'updates');
  return inputs.map((input, i) => attempt(() => checkUpdate(input, `updates[${i}]`)));
}

/** The updates to write: one of an entry the store does not hold fails; an atomic batch with a failure fails whole (NOT_FOUND or INVALID_INPUT, naming it). */
export function planUpdateBatch(checked: Checked<UpdateWrite>[], present: ReadonlySet<number>, atomic: boolean): UpdateWrite[] {
  for (const [i, c] of checked.entries()) {
    if (c.value && !present.has(c.value.id)) Object.assign(c, { value: null, error: `updates[${i}]: context entry ${c.value.id} not found` });
  }
  const bad = atomic ? checked.find((c) => c.error !== null) : undefined;
  if (bad) throw (/not found/.test(bad.error!) ? notFound : invalidInput)(`nothing was updated (the batch is atomic): ${bad.error}`);
  return checked.flatMap((c) => (c.error === null ? [c.value!] : []));
}

/** Each update's result, in input order, given the changed fields of the written ones (in order). */
export function updateBatchResult(inputs: readonly MemoryUpdateInput[], checked: readonly Checked<UpdateWrite>[], fields: readonly string[][]): MemoryBatchResult {
  let next = 0;
  return tally(
    checked.map((c, index): MemoryBatchItem =>
      c.error !== null ? { index, success: false, id: (inputs[index] as { id?: number })?.id ?? null, error: c.error } : { index, success: true, id: c.value!.id, error: null, updatedFields: fields[next++]! },
    ),
  );
}
