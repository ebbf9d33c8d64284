// `trove dataset add|remove|list|search|get`: registered datasets (manifest folders, their states
// and reasons), searching one, and reading a document back by its ref. On a shared index in
// PostgreSQL the added folders are the database's, folder datasets are indexed into it, FAISS
// datasets stay files of this profile.
import { type Command, Option } from 'commander';
import type { CliContext } from '../context.js';
import { formatDatasetDocument, formatDatasets, formatDatasetSearch } from '../format.js';
import { integer, UsageError } from '../options.js';
import { runIndex } from './index-command.js';
import type { DatasetsApi, IndexReport } from '../../engine/index.js';

export function registerDatasetCommands(program: Command, ctx: CliContext): void {
  /** The registry of the index this command works on, and how it indexes a folder dataset now. */
  const open = async (cmd: Command): Promise<{ datasets: DatasetsApi; index: (id: string) => Promise<IndexReport[]> }> => {
    const e = await ctx.engine(cmd);
    return { datasets: e.datasets, index: (id) => runIndex(e, undefined, ctx.json, id) };
  };
  const dataset = program
    .command('dataset')
    .description('registered datasets: FAISS indexes and folders described by datasets/<id>/manifest.json');
  dataset
    .command('add <dir>')
    .description('look for dataset manifests in this folder too (<dir>/manifest.json, <dir>/<id>/manifest.json or <dir>/datasets/<id>/manifest.json)')
    .option('--no-index', 'do not index folder datasets now (a running host does it by itself)')
    .action(async (dir: string, o: { index: boolean }, cmd: Command) => {
      ctx.setJson(cmd);
      const { datasets: d, index } = await open(cmd);
      const found = await d.addFolder(dir);
      await d.settled();
      const folders = found.filter((f) => f.kind === 'folder' && f.state === 'loading');
      const reports = [];
      if (o.index) for (const f of folders) reports.push(...(await index(f.id)));
      const ids = new Set(found.map((f) => f.manifestPath));
      const datasets = (await d.settled()).filter((f) => ids.has(f.manifestPath));
      ctx.print({ folder: (await d.folders()).at(-1) ?? dir, datasets, index: reports }, () =>
        datasets.length
          ? `Added ${dir}: ${datasets.length} dataset${datasets.length === 1 ? '' : 's'}\n${formatDatasets(datasets)}`
          : `Added ${dir}, but it holds no dataset yet: put one in <dir>/<id>/manifest.json (or <dir>/datasets/<id>/manifest.json); a running host picks it up by itself`,
      );
    });
  dataset
    .command('remove <dir>')
    .description('stop looking in an added folder (its files are not touched)')
    .action(async (dir: string, _o: unknown, cmd: Command) => {
      ctx.setJson(cmd);
      await (await open(cmd)).datasets.removeFolder(dir);
      ctx.print({ removed: dir }, () => `Removed ${dir} from the dataset folders; its files are untouched`);
    });
  dataset
    .command('list')
    .description('every dataset with its state, and why it is invalid or in error')
    .action(async (_o: unknown, cmd: Command) => {
      ctx.setJson(cmd);
      const { datasets: d } = await open(cmd);
      const datasets = await d.settled();
      ctx.print({ datasets, folders: [d.profileFolder(), ...(await d.folders())] }, () =>
        datasets.length ? formatDatasets(datasets) : `No datasets. Put one in ${d.profileFolder()}/<id>/manifest.json, or: trove dataset add <folder>`,
      );
    });
  dataset
    .command('search <id> <query...>')
    .description('search one dataset (FAISS: by its vectors; folder: keyword, semantic or hybrid)')
    .option('--top-k <k>', 'results (1-100; default: the dataset\'s defaultTopK)', integer('--top-k'))
    .option('--offset <n>', 'skip this many results', integer('--offset'), 0)
    .addOption(new Option('--mode <mode>', 'folder datasets: how to search (default hybrid with vectors, else keyword)').choices(['keyword', 'semantic', 'hybrid']))
    .option('--snippet-length <n>', 'snippet length in characters', integer('--snippet-length'), 300)
    .action(async (id: string, words: string[], o: { topK?: number; offset: number; mode?: 'keyword' | 'semantic' | 'hybrid'; snippetLength: number }, cmd: Command) => {
      ctx.setJson(cmd);
      const { datasets: d } = await open(cmd);
      await d.settled();
      const r = await d.search(id, words.join(' '), { topK: o.topK, offset: o.offset, mode: o.mode, snippetLength: o.snippetLength });
      if (!ctx.json) for (const n of r.notices) process.stderr.write(`note: ${n}\n`);
      ctx.print(r, () => formatDatasetSearch(r));
    });
  dataset
    .command('get <id> <ref>')
    .description('print a dataset document by its ref (FAISS: its position in the metadata; folder: its path)')
    .action(async (id: string, ref: string, _o: unknown, cmd: Command) => {
      ctx.setJson(cmd);
      if (!ref.trim()) throw new UsageError('a document ref is required');
      const { datasets: d } = await open(cmd);
      await d.settled();
      const doc = await d.document(id, ref);
      ctx.print(doc, () => formatDatasetDocument(doc));
    });
}
