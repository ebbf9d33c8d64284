// `trove dataset add|remove|list|search|get`: registered datasets (manifest folders, their states
// and reasons), searching one, and reading a document back by its ref. With --database (or
// TROVE_DATABASE_URL) the same on an index in PostgreSQL: the added folders are the database's,
// folder datasets are indexed into it, FAISS datasets stay files of this profile.
import { type Command, Option } from 'commander';
import type { CliContext } from '../context.js';
import { formatDatasetDocument, formatDatasets, formatDatasetSearch } from '../format.js';
import { integer, UsageError } from '../options.js';
import { runIndex, runSharedIndex } from './index-command.js';
import type { DatasetsApi, IndexReport } from '../../engine/index.js';

const DATABASE = "registered datasets of the index in PostgreSQL (postgresql://…; default TROVE_DATABASE_URL) instead of this profile's SQLite index";

export function registerDatasetCommands(program: Command, ctx: CliContext): void {
  /** The registry of the index this command works on, and how it indexes a folder dataset now. */
  const open = async (database: string | undefined): Promise<{ datasets: DatasetsApi; index: (id: string) => Promise<IndexReport[]> }> => {
    const shared = await ctx.sharedIndex(database);
    if (!shared) {
      const e = await ctx.engine();
      return { datasets: e.datasets, index: (id) => runIndex(e, undefined, ctx.json, id) };
    }
    return {
      datasets: shared.datasets,
      index: async (id) => {
        const indexer = (await ctx.sharedIndexer(database))!;
        shared.trackBackgroundWork(indexer); // its run going idle makes the dataset Ready here
        return runSharedIndex(indexer, undefined, ctx.json, id);
      },
    };
  };
  const dataset = program
    .command('dataset')
    .description('registered datasets: FAISS indexes and folders described by datasets/<id>/manifest.json');
  dataset
    .command('add <dir>')
    .description('look for dataset manifests in this folder too (<dir>/manifest.json, <dir>/<id>/manifest.json or <dir>/datasets/<id>/manifest.json)')
    .option('--no-index', 'do not index folder datasets now (a running host does it by itself)')
    .option('--database <url>', DATABASE)
    .action(async (dir: string, o: { index: boolean; database?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const { datasets: d, index } = await open(o.database);
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
    .option('--database <url>', DATABASE)
    .action(async (dir: string, o: { database?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      await (await open(o.database)).datasets.removeFolder(dir);
      ctx.print({ removed: dir }, () => `Removed ${dir} from the dataset folders; its files are untouched`);
    });
  dataset
    .command('list')
    .description('every dataset with its state, and why it is invalid or in error')
    .option('--database <url>', DATABASE)
    .action(async (o: { database?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const { datasets: d } = await open(o.database);
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
    .option('--database <url>', DATABASE)
    .action(async (id: string, words: string[], o: { topK?: number; offset: number; mode?: 'keyword' | 'semantic' | 'hybrid'; snippetLength: number; database?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      const { datasets: d } = await open(o.database);
      await d.settled();
      const r = await d.search(id, words.join(' '), { topK: o.topK, offset: o.offset, mode: o.mode, snippetLength: o.snippetLength });
      if (!ctx.json) for (const n of r.notices) process.stderr.write(`note: ${n}\n`);
      ctx.print(r, () => formatDatasetSearch(r));
    });
  dataset
    .command('get <id> <ref>')
    .description('print a dataset document by its ref (FAISS: its position in the metadata; folder: its path)')
    .option('--database <url>', DATABASE)
    .action(async (id: string, ref: string, o: { database?: string }, cmd: Command) => {
      ctx.setJson(cmd);
      if (!ref.trim()) throw new UsageError('a document ref is required');
      const { datasets: d } = await open(o.database);
      await d.settled();
      const doc = await d.document(id, ref);
      ctx.print(doc, () => formatDatasetDocument(doc));
    });
}
