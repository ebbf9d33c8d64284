// The process the crash suites SIGKILL: opens the engine on a profile and does one kind of work,
// printing a line at every step so the parent can kill it at a chosen one.
//   index  <profile> <root>          add the collection (once) and index it
//   embed  <profile> <root>          index, then embed every chunk (the default model)
//   switch <profile> <root> <model>  switch the collection to another model and embed (the new space fills, then swaps in)
//   memory <profile> <root>          agent memory: store MEMORY_BATCHES batches of entries (each one transaction; a batch
//                                    already stored is skipped on resume), then embed them
// TROVE_MODELS_DIR names the models. Exit code 3 and one line on stderr when the disk is full.
import { Engine } from '../../../src-main/engine/index.js';

const MEMORY_BATCHES = 8;
const memoryBatch = (b: number) =>
  Array.from({ length: 5 }, (_, i) => ({
    threadId: `thread-${b}`,
    source: (i % 2 ? 'agent' : 'user') as 'agent' | 'user',
    text: `Batch ${b}, entry ${i}: the retry policy backs off exponentially; note ${b * 5 + i} of the crash suite.`,
    tags: [`batch-${b}`, 'crash'],
    metadata: { batch: b, entry: i },
  }));

const [mode, profileDir, root, model] = process.argv.slice(2);
if (!mode || !profileDir || !root) throw new Error('usage: crash-child <index|embed|switch|memory> <profile> <root> [model]');
const engine = await Engine.open({
  profileDir,
  indexing: { batchFiles: 8 },
  embeddings: { modelsDir: process.env.TROVE_MODELS_DIR, workers: 1 },
});
const say = (line: string) => process.stdout.write(`${line}\n`);
try {
  if (mode !== 'memory' && !(await engine.listCollections()).length) await engine.addCollection({ root, name: 'corpus' });
  engine.onProgress((e) => say(`progress index ${e.phase} ${e.done}`));
  engine.onEmbeddingProgress((e) => say(`progress embed ${e.phase} ${e.done}`));
  say('ready');
  if (mode === 'memory') {
    for (let b = 0; b < MEMORY_BATCHES; b++) {
      if ((await engine.memory.list({ threadId: `thread-${b}` })).total) continue; // stored before the kill: a batch is all or nothing
      await engine.memory.storeBatch(memoryBatch(b), { atomic: true });
      say(`progress memory batch ${b}`);
    }
    await engine.embed({ collection: '~memory' });
    await engine.close();
    say('done');
    process.exit(0);
  }
  await engine.index();
  if (mode === 'switch') await engine.setCollectionModel('corpus', model ?? 'test-tiny-embedder');
  if (mode !== 'index') await engine.embed({ collection: 'corpus' });
  await engine.close();
  say('done');
} catch (err) {
  process.stderr.write(`${(err as { code?: string }).code ?? 'ERROR'}: ${(err as Error).message}\n`);
  await engine.close().catch(() => undefined);
  process.exit(/disk|full|space|EFBIG|ENOSPC/i.test((err as Error).message) ? 3 : 1);
}
