// The web UI's folder picker: a browser cannot see a dropped folder's path, so the host lists
// folders for us (names only) and the person walks to the one they want.
import { useEffect, useState } from 'react';
import type { FolderListing } from '../../../src-main/api/results';
import { errorMessage, trove } from '../bridge';

export function FolderBrowser(props: { start: string; onPick(path: string): void; onClose(): void }) {
  const [listing, setListing] = useState<FolderListing | null>(null);
  const [error, setError] = useState<string | null>(null);

  const open = async (path?: string) => {
    try {
      setListing(await trove.call('folders.list', path ? { path } : {}));
      setError(null);
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  useEffect(() => {
    void open(props.start || undefined);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  return (
    <div className="backdrop">
      <div role="dialog" aria-modal="true" aria-labelledby="browser-title" className="dialog wide">
        <h2 id="browser-title">Choose a folder</h2>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        {listing && (
          <>
            <p className="path" data-testid="browser-path">
              {listing.path}
            </p>
            <ul className="folders" aria-label="Folders">
              {listing.parent && (
                <li>
                  <button type="button" onClick={() => void open(listing.parent!)}>⬑ Up to {listing.parent}</button>
                </li>
              )}
              {listing.folders.map((f) => (
                <li key={f.path}>
                  <button type="button" onClick={() => void open(f.path)}>📁 {f.name}</button>
                </li>
              ))}
              {!listing.folders.length && <li className="muted">No sub-folders here.</li>}
            </ul>
            {listing.hidden > 0 && <p className="muted">{listing.hidden} hidden or unreadable folders not shown (type their path instead).</p>}
          </>
        )}
        <div className="row end">
          <button type="button" onClick={props.onClose}>Cancel</button>
          <button type="button" className="primary" disabled={!listing} onClick={() => listing && props.onPick(listing.path)}>
            Use this folder
          </button>
        </div>
      </div>
    </div>
  );
}
