// The search playground, two ways: "Collections" — a query with mode, syntax and filters, ranked
// results with scores, the engine's explanation, highlighted snippets and a preview of what `get`
// returns; "All sources" — knowledge.search's merged results over every source, previewed the
// way knowledge.get returns them in each retrieval mode (components/KnowledgeSearchPanel.tsx).
import { useState, type FormEvent } from 'react';
import type { SearchHit } from '../../../src-main/api/results';
import { highlight } from '../components/highlight';
import { KnowledgeSearchPanel } from '../components/KnowledgeSearchPanel';
import { PreviewPanel } from '../components/PreviewPanel';
import { ModeChoice, Pager, QueryRow } from '../components/SearchControls';
import { KINDS, pageLabel } from '../components/kinds';
import { useApp, type SearchForm } from '../store';

const MODES: { id: SearchForm['mode']; label: string }[] = [
  { id: 'keyword', label: 'Keyword' },
  { id: 'vector', label: 'Semantic' },
  { id: 'hybrid', label: 'Hybrid' },
  { id: 'rerank', label: 'Hybrid + rerank' },
];

export function SearchScreen() {
  const [kind, setKind] = useState<'collections' | 'knowledge'>('collections');
  return (
    <section aria-labelledby="search-title">
      <h1 id="search-title">Search</h1>
      <div className="row tabs" role="tablist" aria-label="What to search">
        <button role="tab" aria-selected={kind === 'collections'} className={kind === 'collections' ? 'primary' : ''} onClick={() => setKind('collections')}>
          Collections
        </button>
        <button role="tab" aria-selected={kind === 'knowledge'} className={kind === 'knowledge' ? 'primary' : ''} onClick={() => setKind('knowledge')}>
          All sources (knowledge.search)
        </button>
      </div>
      {kind === 'collections' ? <CollectionSearch /> : <KnowledgeSearchPanel />}
    </section>
  );
}

function CollectionSearch() {
  const { search, collections, setSearchForm, runSearch, selectResult } = useApp();
  const { form, response, error, busy, selected } = search;
  const selectedHit = response?.results.find((r) => r.uri === selected) ?? null;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void runSearch();
  };

  return (
    <div className={selectedHit ? 'split' : ''}>
      <div>
        <form className="card" onSubmit={submit} role="search">
          <QueryRow id="search-query" label="Query" value={form.query} onChange={(query) => setSearchForm({ query })} placeholder="Search your collections (Ctrl+K)" busy={busy} autoFocus />
          <ModeChoice name="mode" modes={MODES} value={form.mode} onChange={(mode) => setSearchForm({ mode })} />
          <details>
            <summary>Syntax and filters</summary>
            <div className="row">
              <label>
                Syntax
                <select value={form.syntax} onChange={(e) => setSearchForm({ syntax: e.target.value as SearchForm['syntax'] })}>
                  <option value="match">match (ranked words)</option>
                  <option value="phrase">phrase</option>
                  <option value="prefix">prefix</option>
                  <option value="boolean">boolean (AND OR NOT)</option>
                </select>
              </label>
              <label>
                Path glob
                <input value={form.path} onChange={(e) => setSearchForm({ path: e.target.value })} placeholder="notes/**/*.md" />
              </label>
              <label>
                Kind
                <input value={form.kind} onChange={(e) => setSearchForm({ kind: e.target.value })} placeholder="markdown, pdf, docx…" list="known-kinds" />
                <datalist id="known-kinds">
                  {KINDS.map((k) => (
                    <option key={k} value={k} />
                  ))}
                </datalist>
              </label>
              <label>
                Tag
                <input value={form.tag} onChange={(e) => setSearchForm({ tag: e.target.value })} />
              </label>
            </div>
            {collections && collections.length > 0 && (
              <fieldset className="row">
                <legend>Collections (none checked: all)</legend>
                {collections.map((c) => (
                  <label key={c.name} className="inline">
                    <input
                      type="checkbox"
                      checked={form.collections.includes(c.name)}
                      onChange={(e) =>
                        setSearchForm({ collections: e.target.checked ? [...form.collections, c.name] : form.collections.filter((n) => n !== c.name) })
                      }
                    />
                    {c.name}
                  </label>
                ))}
              </fieldset>
            )}
          </details>
          <label className="inline">
            <input type="checkbox" checked={form.explain} onChange={(e) => setSearchForm({ explain: e.target.checked })} />
            Explain scores
          </label>
        </form>
        {error && (
          <p className="error" role="alert" data-testid="search-error">
            {error}
          </p>
        )}
        {response && (
          <>
            <p className="muted" data-testid="search-summary">
              {response.results.length ? `${response.offset + 1}–${response.offset + response.results.length} of about ${response.total_estimated}` : 'No results'} ·{' '}
              {response.took_ms} ms · {response.plan.strategy}
              {response.plan.dropped.length ? ` · left out common words: ${response.plan.dropped.join(', ')}` : ''}
            </p>
            {response.notices?.map((n) => (
              <p key={n} className="muted" data-testid="search-notice">
                Note: {n}
              </p>
            ))}
            <ol className="results" start={response.offset + 1}>
              {response.results.map((hit) => (
                <Result key={hit.uri} hit={hit} selected={hit.uri === selected} onOpen={() => selectResult(hit.uri)} />
              ))}
            </ol>
            <Pager offset={response.offset} pageSize={response.limit} nextOffset={response.has_more ? response.next_offset : null} onPage={(o) => void runSearch(o)} />
          </>
        )}
      </div>
      {selectedHit && response && (
        <PreviewPanel hit={selectedHit} highlight={{ query: response.query, syntax: response.syntax as SearchForm['syntax'] }} onClose={() => selectResult(null)} />
      )}
    </div>
  );
}

function Result(props: { hit: SearchHit; selected: boolean; onOpen(): void }) {
  const { hit } = props;
  return (
    <li className={`card result ${props.selected ? 'selected' : ''}`} data-testid="result">
      <header className="row">
        <button className="link title grow" onClick={props.onOpen}>
          {hit.title || hit.path}
        </button>
        <span className="score" title="Score normalised to 0..1 over this result set">
          {hit.score.toFixed(3)}
        </span>
      </header>
      <p className="path">
        {hit.collection}/{hit.path}:{hit.line}
        {hit.page !== null && <span data-testid="result-page">{` · ${pageLabel(hit.kind, hit.page)}`}</span>}
        {hit.chunk.headingPath.length ? ` · ${hit.chunk.headingPath.join(' › ')}` : ''}
      </p>
      <pre className="snippet">{highlight(hit.snippet, hit.highlights)}</pre>
      {hit.explain && (
        <details>
          <summary>Why this score</summary>
          <pre className="explain">{JSON.stringify(hit.explain, null, 2)}</pre>
        </details>
      )}
    </li>
  );
}
