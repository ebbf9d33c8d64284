// Adding a collection: drop a folder (Electron gives its real path), pick one (native dialog in
// Electron, the host's folder browser on the web), or type the path. Include/exclude patterns
// and the context note are optional; the engine validates everything and its message is shown.
import { useState, type DragEvent, type FormEvent } from 'react';
import { errorMessage, trove } from '../bridge';
import { FolderBrowser } from './FolderBrowser';

const splitPatterns = (s: string) =>
  s
    .split(/[\n,]/)
    .map((p) => p.trim())
    .filter(Boolean);

export function AddCollectionForm(props: { onAdded(name: string): void }) {
  const [root, setRoot] = useState('');
  const [name, setName] = useState('');
  const [include, setInclude] = useState('');
  const [exclude, setExclude] = useState('');
  const [context, setContext] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [browsing, setBrowsing] = useState(false);
  const [dragging, setDragging] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const info = await trove.call('collections.add', {
        root,
        ...(name.trim() ? { name: name.trim() } : {}),
        ...(include.trim() ? { include: splitPatterns(include) } : {}),
        ...(exclude.trim() ? { exclude: splitPatterns(exclude) } : {}),
        ...(context.trim() ? { context: context.trim() } : {}),
      });
      setRoot('');
      setName('');
      setInclude('');
      setExclude('');
      setContext('');
      props.onAdded(info.name);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    const file = e.dataTransfer.files[0];
    if (!file) return;
    if (trove.pathForFile) {
      setRoot(trove.pathForFile(file));
      setNotice(null);
    } else {
      setNotice(`A browser does not tell pages where "${file.name}" lives. Type its path or use Browse….`);
    }
  };

  const browse = async () => {
    if (trove.pickFolder) {
      const picked = await trove.pickFolder();
      if (picked) setRoot(picked);
    } else setBrowsing(true);
  };

  return (
    <>
    <form
      className={`card add ${dragging ? 'dragging' : ''}`}
      onSubmit={(e) => void submit(e)}
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
      aria-label="Add a collection"
    >
      <h2>Add a folder</h2>
      <p className="muted">Drop a folder here, browse for one, or type its path. Trove only reads your files; it never changes them.</p>
      <div className="row">
        <label className="grow">
          Folder path
          <input name="root" value={root} onChange={(e) => setRoot(e.target.value)} placeholder="/home/you/notes" required />
        </label>
        <button type="button" onClick={() => void browse()}>
          Browse…
        </button>
      </div>
      <div className="row">
        <label>
          Name (optional)
          <input name="name" value={name} onChange={(e) => setName(e.target.value)} placeholder="defaults to the folder's name" />
        </label>
        <label className="grow">
          Context note (optional, shown to assistants)
          <input name="context" value={context} onChange={(e) => setContext(e.target.value)} placeholder="e.g. my meeting notes since 2021" />
        </label>
      </div>
      <details>
        <summary>Include / exclude patterns</summary>
        <div className="row">
          <label className="grow">
            Include (replaces the defaults; comma or one per line)
            <textarea name="include" value={include} onChange={(e) => setInclude(e.target.value)} placeholder="**/*.md, **/*.txt" rows={2} />
          </label>
          <label className="grow">
            Exclude (added to the defaults)
            <textarea name="exclude" value={exclude} onChange={(e) => setExclude(e.target.value)} placeholder="drafts/**" rows={2} />
          </label>
        </div>
      </details>
      {notice && <p className="notice">{notice}</p>}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="row end">
        <button className="primary" type="submit" disabled={busy || !root.trim()}>
          {busy ? 'Adding…' : 'Add and index'}
        </button>
      </div>
    </form>
    {/* outside the form: its buttons must never submit it */}
    {browsing && (
      <FolderBrowser
        start={root}
        onClose={() => setBrowsing(false)}
        onPick={(p) => {
          setRoot(p);
          setBrowsing(false);
        }}
      />
    )}
    </>
  );
}
