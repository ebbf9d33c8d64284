// A child process for the crash tests and the soak bench: opens the engine on a profile,
// adds the collection if it is not there yet, indexes, and reports each step on stdout so the
// parent can SIGKILL it at a chosen point.
import { Engine } from '../../src-main/engine/index.js';

const [profileDir, root, batchFiles] = process.argv.slice(2);
if (!profileDir || !root) throw new Error('usage: index-child <profileDir> <root> [batchFiles]');
const engine = await Engine.open({ profileDir, indexing: { batchFiles: Number(batchFiles ?? 256) } });
if (!(await engine.listCollections()).length) await engine.addCollection({ root, name: 'corpus' });
engine.onProgress((e) => process.stdout.write(`progress ${e.phase} ${e.done}\n`));
process.stdout.write('ready\n');
await engine.index();
await engine.close();
process.stdout.write('done\n');
