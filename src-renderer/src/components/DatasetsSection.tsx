// The Collections screen's datasets: every registered dataset with its state and error, the
// folders scanned for manifests (the profile's own always; added ones can be removed), and a form
// to add a dataset folder (typed, or picked in the folder browser / the native dialog).
import { useEffect, useState, type FormEvent } from 'react';
import { errorMessage, trove } from '../bridge';
import { useApp } from '../store';
import { DatasetCard } from './DatasetCard';
import { FolderBrowser } from './FolderBrowser';

export function DatasetsSection() {
  const { datasets, datasetsError, refreshDatasets } = useApp();
  const [folder, setFolder] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [browsing, setBrowsing] = useState(false);

  useEffect(() => {
    void refreshDatasets();
  }, [refreshDatasets]);

  const act = async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      await fn();
      await refreshDatasets();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  const add = (e: FormEvent) => {
    e.preventDefault();
    void act(async () => {
      const found = await trove.call('datasets.addFolder', { path: folder });
      setNotice(
        found.length
          ? `Found ${found.length} dataset${found.length === 1 ? '' : 's'} in ${folder}.`
          : `No dataset in ${folder} yet: put one in <folder>/<id>/manifest.json; Trove picks it up by itself.`,
      );
      setFolder('');
    });
  };

  const browse = async () => {
    if (trove.pickFolder) {
      const picked = await trove.pickFolder();
      if (picked) setFolder(picked);
    } else setBrowsing(true);
  };

  return (
    <section aria-labelledby="datasets-title" className="datasets">
      <h2 id="datasets-title">Datasets</h2>
      <p className="muted">
        Ready-made knowledge: a FAISS index or a folder of documents, described by <code>datasets/&lt;id&gt;/manifest.json</code>. Assistants search
        them with <code>knowledge.search</code>; a changed manifest is picked up without a restart.
      </p>
      <form className="card add" onSubmit={add} aria-label="Add a dataset folder">
        <div className="row">
          <label className="grow">
            Dataset folder
            <input name="dataset-folder" value={folder} onChange={(e) => setFolder(e.target.value)} placeholder="/home/you/datasets" required />
          </label>
          <button type="button" aria-label="Browse for a dataset folder" onClick={() => void browse()}>
            Browse…
          </button>
          <button className="primary" type="submit" disabled={busy || !folder.trim()}>
            Add dataset folder
          </button>
        </div>
        {notice && <p className="notice" data-testid="dataset-notice">{notice}</p>}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
      </form>
      {datasets && (
        <ul className="folders" aria-label="Dataset folders">
          <li className="path">
            {datasets.profileFolder} <span className="muted">(always scanned)</span>
          </li>
          {datasets.folders.map((f) => (
            <li key={f} className="path">
              {f}{' '}
              <button type="button" className="link" disabled={busy} onClick={() => void act(async () => void (await trove.call('datasets.removeFolder', { path: f })))}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      {datasets === null && datasetsError ? (
        <p className="error" role="alert" data-testid="datasets-unavailable">
          {datasetsError}
        </p>
      ) : datasets === null ? (
        <p className="muted">Loading datasets…</p>
      ) : datasets.datasets.length === 0 ? (
        <p className="muted" data-testid="no-datasets">
          No datasets yet.
        </p>
      ) : (
        datasets.datasets.map((d) => <DatasetCard key={d.manifestPath} d={d} />)
      )}
      {browsing && (
        <FolderBrowser
          start={folder}
          onClose={() => setBrowsing(false)}
          onPick={(p) => {
            setFolder(p);
            setBrowsing(false);
          }}
        />
      )}
    </section>
  );
}
