// The preview: exactly what `get` returns for a result (line-numbered), with the result's
// anchor chunk shaded and scrolled into view, and the search's words marked in it (the spans the
// engine returns with the text: the same words the snippet marks).
import { useEffect, useRef, useState } from 'react';
import type { RetrievedDocument, SearchHit } from '../../../src-main/api/results';
import { errorMessage, trove } from '../bridge';
import { highlight, spansWithin } from './highlight';
import { MARKER_LINE, pageLabel } from './kinds';

export interface PreviewHighlight {
  query: string;
  syntax: 'match' | 'phrase' | 'prefix' | 'boolean';
}

export function PreviewPanel(props: { hit: SearchHit; highlight: PreviewHighlight; onClose(): void }) {
  const { hit } = props;
  const { query, syntax } = props.highlight;
  const [doc, setDoc] = useState<RetrievedDocument | null>(null);
  const [error, setError] = useState<string | null>(null);
  const anchorRef = useRef<HTMLSpanElement>(null);

  useEffect(() => {
    let live = true;
    setDoc(null);
    setError(null);
    trove.call('get', { locator: hit.uri, lineNumbers: true, highlight: { query, syntax } }).then(
      (d) => live && setDoc(d),
      (err) => live && setError(errorMessage(err)),
    );
    return () => {
      live = false;
    };
  }, [hit.uri, query, syntax]);

  useEffect(() => {
    anchorRef.current?.scrollIntoView({ block: 'center' });
  }, [doc]);

  const lines = doc ? doc.text.split('\n') : [];
  const starts: number[] = [];
  lines.reduce((at, line) => (starts.push(at), at + line.length + 1), 0);
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
                  {inAnchor ? highlight(line, spansWithin(doc.highlights, starts[i]!, starts[i]! + line.length)) : line}
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
