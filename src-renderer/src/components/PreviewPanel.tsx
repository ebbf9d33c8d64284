// The preview: exactly what `get` returns for a result (line-numbered), with the result's
// anchor chunk highlighted and scrolled into view.
import { useEffect, useRef, useState } from 'react';
import type { RetrievedDocument, SearchHit } from '../../../src-main/api/results';
import { errorMessage, trove } from '../bridge';
import { highlight } from './highlight';
import { MARKER_LINE, pageLabel } from './kinds';

export function PreviewPanel(props: { hit: SearchHit; terms: string[]; onClose(): void }) {
  const { hit } = props;
  const [doc, setDoc] = useState<RetrievedDocument | null>(null);
  const [error, setError] = useState<string | null>(null);
  const anchorRef = useRef<HTMLSpanElement>(null);

  useEffect(() => {
    let live = true;
    setDoc(null);
    setError(null);
    trove.call('get', { locator: hit.uri, lineNumbers: true }).then(
      (d) => live && setDoc(d),
      (err) => live && setError(errorMessage(err)),
    );
    return () => {
      live = false;
    };
  }, [hit.uri]);

  useEffect(() => {
    anchorRef.current?.scrollIntoView({ block: 'center' });
  }, [doc]);

  const lines = doc ? doc.text.split('\n') : [];
  return (
    <aside className="card preview" aria-label="Document preview" data-testid="preview">
      <header className="row">
        <h2 className="grow">{hit.title || hit.path}</h2>
        <button type="button" onClick={props.onClose} aria-label="Close preview">
          Close
        </button>
      </header>
      <p className="path">
        {hit.uri} · {hit.docid}
        {hit.page !== null && (
          <>
            {' · '}
            <strong data-testid="preview-page">{pageLabel(hit.kind, hit.page)}</strong>
          </>
        )}
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {doc && (
        <>
          <p className="muted">
            Lines {doc.fromLine}–{doc.toLine} of {doc.totalLines} · {doc.kind}
            {doc.tags.length ? ` · tags ${doc.tags.join(', ')}` : ''}
            {doc.truncated ? ' · truncated' : ''} · anchor lines {hit.chunk.lineStart}–{hit.chunk.lineEnd}
          </p>
          <pre className="document">
            {lines.map((line, i) => {
              const n = doc.fromLine + i;
              const inAnchor = n >= hit.chunk.lineStart && n <= hit.chunk.lineEnd;
              const marker = MARKER_LINE.test(line.replace(/^\s*\d+: /, ''));
              const className = [inAnchor ? 'anchor' : '', marker ? 'page-marker' : ''].filter(Boolean).join(' ') || undefined;
              return (
                <span key={n} ref={n === hit.chunk.lineStart ? anchorRef : undefined} className={className}>
                  {inAnchor ? highlight(line, props.terms) : line}
                  {'\n'}
                </span>
              );
            })}
          </pre>
        </>
      )}
      {!doc && !error && <p className="muted">Loading…</p>}
    </aside>
  );
}
