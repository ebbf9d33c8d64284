// A host process runs for days beside the person's other apps, so it should hold about what it
// uses rather than what its busiest minute left behind. Two allowances were most of the gap under
// a sustained load (bench/RESULTS.md, issue 29, reliability:load):
// - V8 lets the old generation grow to a multiple of its live size (up to 4× when collecting is
//   cheap) before the next full collection: 247 MB committed for 95 MB in use at the end of a run.
//   A fixed step of 30% bounds it; V8 reads the flag at each collection, so setting it once the
//   process runs takes effect from the next one.
// - glibc's malloc gives busy threads arenas of their own (up to 8 per core) whose freed memory
//   only that arena reuses; the host's threads (event loop, SQLite readers, model workers, libuv's
//   pool) allocate in bursts. And it raises its mmap threshold whenever a large block is freed, so
//   after ONNX Runtime releases a session, large blocks stay in the arenas. native/trove_memory.c
//   caps new arenas at two and fixes the threshold at 1 MiB, as MALLOC_ARENA_MAX=2 and
//   MALLOC_MMAP_THRESHOLD_ would from an environment `trove serve` does not control.
// - Pages freed between blocks still in use stay with the process: glibc returns only a heap's free
//   top by itself. The host has glibc give every free page back every few seconds (malloc_trim):
//   2-9 ms of the event loop each time, 30-45 MB less at the end of a load run.
// Optional: without the addon (not built, not Linux) the host runs at glibc's defaults.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';

/** How far (percent over the live size) the old generation may grow before the next full collection. */
export const HOST_HEAP_GROWING_PERCENT = 30;
/** glibc malloc arenas a host makes at most (from the call on). */
export const HOST_MALLOC_ARENAS = 2;
/** Blocks this large or larger are mapped on their own and returned to the system when freed. */
export const HOST_MMAP_THRESHOLD_BYTES = 1 << 20;
/** How often the host hands malloc's free pages back to the system. */
export const HOST_MALLOC_TRIM_MS = 10_000;

export interface MemoryPolicy {
  heapGrowingPercent: number;
  /** Whether the arena cap and mmap threshold applied, and free pages are given back every HOST_MALLOC_TRIM_MS (false: no addon here, or not glibc). */
  mallocTuned: boolean;
}

let applied: MemoryPolicy | null = null;

/** The addon's folder: the one given (TROVE_NATIVE_DIR: the packaged app's resources), else native/build in the project. */
function addonFile(dir: string | undefined): string | undefined {
  const here = path.dirname(fileURLToPath(import.meta.url)); // src-main/host, dist/host or out/main
  return [dir, path.resolve(here, '..', '..', 'native', 'build')]
    .filter((d): d is string => !!d)
    .map((d) => path.join(d, 'trove_memory.node'))
    .find((f) => fs.existsSync(f));
}

function tuneMalloc(nativeDir: string | undefined): boolean {
  if (process.platform !== 'linux') return false;
  const file = addonFile(nativeDir);
  if (!file) return false;
  try {
    const addon = createRequire(import.meta.url)(file) as { tuneMalloc(arenas: number, mmapThreshold: number): boolean; trimMalloc?: () => boolean };
    if (!addon.tuneMalloc(HOST_MALLOC_ARENAS, HOST_MMAP_THRESHOLD_BYTES)) return false;
    const trim = addon.trimMalloc; // absent from an addon built before it (npm run build:native makes it again)
    if (trim) setInterval(() => trim(), HOST_MALLOC_TRIM_MS).unref();
    return true;
  } catch (err) {
    process.stderr.write(`trove: ${file} did not load (${(err as Error).message}); the host keeps glibc's default malloc settings\n`);
    return false;
  }
}

/**
 * For the process a host runs in (`trove serve`, the desktop app's host process), called before the
 * engine starts its threads; never for a library user's process. Applies once.
 */
export function keepHostMemoryLean(opts: { nativeDir?: string } = {}): MemoryPolicy {
  if (applied) return applied;
  v8.setFlagsFromString(`--heap-growing-percent=${HOST_HEAP_GROWING_PERCENT}`);
  applied = { heapGrowingPercent: HOST_HEAP_GROWING_PERCENT, mallocTuned: tuneMalloc(opts.nativeDir) };
  return applied;
}
