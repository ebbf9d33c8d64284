// The knowledge.get preview: one result read back the way an assistant's knowledge.get would,
// in any retrieval mode, under a token budget, with the token count and what was covered shown.
// `full` pages through long items with the cursor the engine returns.
import { useEffect, useState } from 'react';
import type { KnowledgeGetResponse, KnowledgeItem } from '../../../src-main/api/results';
import { errorMessage, trove } from '../bridge';
import { highlight } from './highlight';

export const RETRIEVAL_MODES = ['snippet', 'chunk', 'chunk_with_siblings', 'full', 'auto'] as const;
type RetrievalMode = (typeof RETRIEVAL_MODES)[number];

export function KnowledgePreview(props: { item: KnowledgeItem; query: string; onClose(): void }) {
  const { item } = props;
  const [mode, setMode] = useState<RetrievalMode>('chunk_with_siblings');
  const [maxTokens, setMaxTokens] = useState(2000);
  const [siblings, setSiblings] = useState(1);
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const [got, setGot] = useState<KnowledgeGetResponse | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => setCursor(undefined), [item.uri, mode, maxTokens, siblings]);

  useEffect(() => {
    let live = true;
    setError(null);
    trove
      .call('knowledge.get', {
        uri: item.uri,
        ...(item.loc ? { loc: { chunk_index: item.loc.chunk_index } } : {}),
        query: props.query,
        ...(cursor ? { cursor } : {}),
        retrieval: { mode, max_tokens: maxTokens, sibling_window: siblings },
      })
      .then(
        (r) => live && setGot(r),
        (err) => {
          if (!live) return;
          setGot(null);
          setError(errorMessage(err));
        },
      );
    return () => {
      live = false;
    };
  }, [item.uri, item.loc, props.query, mode, maxTokens, siblings, cursor]);

  const r = got?.retrieval;
  return (
    <aside className="card preview" aria-label="Knowledge preview" data-testid="knowledge-preview">
      <header className="row">
        <h2 className="grow">{item.title}</h2>
        <button type="button" onClick={props.onClose} aria-label="Close preview">
          Close
        </button>
      </header>
      <p className="path">
        {item.uri} · {item.id}
      </p>
      <div className="row">
        <label>
          Retrieval mode
          <select value={mode} onChange={(e) => setMode(e.target.value as RetrievalMode)} data-testid="retrieval-mode">
            {RETRIEVAL_MODES.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
        <label>
          Max tokens
          <input type="number" min={16} max={100000} value={maxTokens} onChange={(e) => setMaxTokens(Math.max(16, Number(e.target.value) || 16))} data-testid="max-tokens" />
        </label>
        <label>
          Siblings each side
          <input type="number" min={0} max={20} value={siblings} onChange={(e) => setSiblings(Math.max(0, Number(e.target.value) || 0))} />
        </label>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {got && r && (
        <>
          <p className="muted" data-testid="token-count">
            {r.tokens} of {r.max_tokens} tokens ({got.content.length} characters at {r.chars_per_token} a token) · {r.mode}
            {r.chunks.length ? ` · chunk${r.chunks.length > 1 ? 's' : ''} ${[...r.chunks].sort((a, b) => a - b).join(', ')}` : ''} · anchored by {r.anchored_by}
            {r.line_start !== null ? ` · lines ${r.line_start}–${r.line_end}` : ''}
            {r.truncated ? ' · truncated' : ''}
          </p>
          <pre className="document" data-testid="knowledge-content">
            {highlight(got.content, got.highlights)}
          </pre>
          {r.mode === 'full' && (
            <div className="row">
              {cursor && <button onClick={() => setCursor(undefined)}>First page</button>}
              {r.next_cursor && <button onClick={() => setCursor(r.next_cursor!)}>Next page</button>}
            </div>
          )}
        </>
      )}
      {!got && !error && <p className="muted">Loading…</p>}
    </aside>
  );
}
