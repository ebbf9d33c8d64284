// One memory entry in full: its text, thread, source, times, tags, metadata (as JSON) and images.
import type { MemoryEntry } from '../../../src-main/api/results';

export function MemoryEntryPanel(props: { entry: MemoryEntry; onClose(): void; onDelete(): void }) {
  const e = props.entry;
  return (
    <aside className="card preview" aria-label={`Entry ${e.id}`} data-testid="memory-detail">
      <div className="row">
        <h2 className="grow">Entry #{e.id}</h2>
        <button type="button" className="danger" onClick={props.onDelete}>
          Delete…
        </button>
        <button type="button" onClick={props.onClose}>
          Close
        </button>
      </div>
      <dl className="pairs">
        <dt>Thread</dt>
        <dd>{e.threadId}</dd>
        <dt>Source</dt>
        <dd>{e.source}</dd>
        <dt>Created</dt>
        <dd>{new Date(e.createdAt).toLocaleString()}</dd>
        <dt>Updated</dt>
        <dd>{new Date(e.updatedAt).toLocaleString()}</dd>
        <dt>Tags</dt>
        <dd data-testid="memory-tags">{e.tags.length ? e.tags.join(', ') : '—'}</dd>
        <dt>Search</dt>
        <dd>{e.pendingEmbedding ? 'keyword now; semantic once embedded' : 'keyword and semantic'}</dd>
      </dl>
      <h3>Text</h3>
      <pre>{e.text}</pre>
      <h3>Metadata</h3>
      <pre className="explain" data-testid="memory-metadata">
        {Object.keys(e.metadata).length ? JSON.stringify(e.metadata, null, 2) : '{}'}
      </pre>
      {e.images.length > 0 && (
        <>
          <h3>Images</h3>
          <div className="images">
            {e.images.map((img, i) =>
              img.data ? (
                <img key={i} src={`data:${img.mime_type};base64,${img.data}`} alt={`Image ${i + 1} of entry ${e.id} (${img.mime_type}, ${img.bytes} bytes)`} />
              ) : (
                <span key={i} className="muted">
                  {img.mime_type}, {img.bytes} bytes
                </span>
              ),
            )}
          </div>
        </>
      )}
    </aside>
  );
}
