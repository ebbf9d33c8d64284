// A child process for the memory crash test: stores atomic batches of 100 entries, each batch in
// its own thread (b0, b1, …), as fast as it can, saying after each one; the parent SIGKILLs it.
import { Engine } from '../../src-main/engine/index.js';

const [profileDir, start] = process.argv.slice(2);
if (!profileDir) throw new Error('usage: memory-child <profileDir> [firstBatch]');
const engine = await Engine.open({ profileDir });
process.stdout.write('ready\n');
for (let b = Number(start ?? 0); ; b++) {
  const entries = Array.from({ length: 100 }, (_, i) => ({
    threadId: `b${b}`,
    source: i % 2 ? ('user' as const) : ('agent' as const),
    text: `Batch ${b} entry ${i}: notes about crash safety, write-ahead logs and atomic commits.`,
    metadata: { batch: b, i },
    tags: ['crash', `b${b}`],
    ...(i === 0 ? { images: [{ data: Buffer.alloc(4096, b % 256).toString('base64') }] } : {}),
  }));
  await engine.memory.storeBatch(entries, { atomic: true });
  process.stdout.write(`batch ${b}\n`);
}
