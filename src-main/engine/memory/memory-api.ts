// Engine.memory on SQLite: the memory room's answers (memory-service.ts, in hand) as MemoryApi's
// promises, so every face awaits memory the same way on every backend. Wraps, adds nothing: each
// method runs the service's code as before, its throws becoming rejections.
import type { MemoryApi, MemoryExportLine } from '../types/memory.js';
import type { MemoryService } from './memory-service.js';

export function memoryApi(service: MemoryService): MemoryApi {
  return {
    store: async (input) => service.store(input),
    storeBatch: async (inputs, opts) => service.storeBatch(inputs, opts),
    get: async (ids, opts) => service.get(ids, opts),
    update: async (input) => service.update(input),
    updateBatch: async (inputs, opts) => service.updateBatch(inputs, opts),
    delete: async (criteria) => service.delete(criteria),
    list: async (request) => service.list(request),
    search: async (request) => service.search(request),
    threads: async () => service.threads(),
    statistics: async () => service.statistics(),
    summary: async () => service.summary(),
    context: async (id, opts) => service.context(id, opts),
    async *export(opts): AsyncGenerator<MemoryExportLine> {
      yield* service.export(opts);
    },
    import: async (lines) => service.import(lines),
  };
}
