// "All sources": knowledge.search over every source (collections, datasets, memory) or the ones
// ticked, merged by calibrated score, each result with its source, score type and snippet; a
// result opens the knowledge.get preview.
import { useEffect, type FormEvent } from 'react';
import type { KnowledgeItem } from '../../../src-main/api/results';
import { useKnowledge, type KnowledgeForm } from '../knowledge-store';
import { highlight } from './highlight';
import { KnowledgePreview } from './KnowledgePreview';
import { ModeChoice, Pager, QueryRow } from './SearchControls';

const MODES: { id: KnowledgeForm['mode']; label: string }[] = [
  { id: 'auto', label: 'Default (hybrid where there are vectors)' },
  { id: 'keyword', label: 'Keyword' },
  { id: 'semantic', label: 'Semantic' },
  { id: 'hybrid', label: 'Hybrid' },
];

export function KnowledgeSearchPanel() {
  const { form, sources, response, error, busy, selected, setForm, loadSources, run, select } = useKnowledge();

  useEffect(() => {
    void loadSources();
  }, [loadSources]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run();
  };

  return (
    <div className={selected ? 'split' : ''}>
      <div>
        <form className="card" onSubmit={submit} role="search" aria-label="Search all sources">
          <QueryRow id="knowledge-query" label="Query" value={form.query} onChange={(query) => setForm({ query })} placeholder="Search every source" busy={busy} autoFocus />
          <ModeChoice name="knowledge-mode" modes={MODES} value={form.mode} onChange={(mode) => setForm({ mode })} />
          {sources && sources.length > 0 && (
            <fieldset className="row">
              <legend>Sources (none ticked: all)</legend>
              {sources.map((s) => (
                <label key={s.source} className="inline" title={s.unavailable ?? `${s.items ?? '?'} items · ${s.modes.join(', ')}`}>
                  <input
                    type="checkbox"
                    disabled={!!s.unavailable}
                    checked={form.sources.includes(s.source)}
                    onChange={(e) => setForm({ sources: e.target.checked ? [...form.sources, s.source] : form.sources.filter((x) => x !== s.source) })}
                  />
                  {s.source}
                  {s.unavailable ? ' (unavailable)' : ''}
                </label>
              ))}
            </fieldset>
          )}
          <label className="inline">
            <input type="checkbox" checked={form.orderBy === 'recent'} onChange={(e) => setForm({ orderBy: e.target.checked ? 'recent' : 'relevance' })} />
            Newest first
          </label>
        </form>
        {error && (
          <p className="error" role="alert" data-testid="knowledge-error">
            {error}
          </p>
        )}
        {response && (
          <>
            <p className="muted" data-testid="knowledge-summary">
              {response.results.length ? `${response.offset + 1}–${response.offset + response.results.length}${response.total_estimated !== null ? ` of about ${response.total_estimated}` : ''}` : 'No results'} ·{' '}
              {response.took_ms} ms · {response.mode ?? 'nothing ran'} · {response.sources.map((s) => `${s.source}: ${s.mode ?? 'skipped'} (${s.results})`).join(', ')}
            </p>
            {response.notices.length > 0 && (
              <ul className="notice" data-testid="knowledge-notices">
                {response.notices.map((n) => (
                  <li key={n}>{n}</li>
                ))}
              </ul>
            )}
            <ol className="results" start={response.offset + 1}>
              {response.results.map((item) => (
                <Result key={item.uri} item={item} selected={item.uri === selected?.uri} onOpen={() => select(item)} />
              ))}
            </ol>
            <Pager offset={response.offset} pageSize={response.limit} nextOffset={response.has_more ? response.next_offset : null} onPage={(o) => void run(o)} />
          </>
        )}
      </div>
      {selected && <KnowledgePreview item={selected} query={response?.query ?? ''} onClose={() => select(null)} />}
    </div>
  );
}

function Result(props: { item: KnowledgeItem; selected: boolean; onOpen(): void }) {
  const { item } = props;
  const where = item.collection ?? item.dataset ?? ''; // a memory entry's path is already thread/entry id
  return (
    <li className={`card result ${props.selected ? 'selected' : ''}`} data-testid="knowledge-result">
      <header className="row">
        <button className="link title grow" onClick={props.onOpen}>
          {item.title}
        </button>
        <span className="badge idle">{item.source}</span>
        <span className="score" title={`Calibrated score (${item.score_type}): comparable across sources and modes`}>
          {item.score?.toFixed(3)} {item.score_type}
        </span>
      </header>
      <p className="path">
        {where ? `${where}/` : ''}
        {item.path}
        {item.loc?.line_start ? `:${item.loc.line_start}` : ''}
        {item.loc?.page ? ` · page ${item.loc.page}` : ''}
        {item.loc?.heading_path?.length ? ` · ${item.loc.heading_path.join(' › ')}` : ''}
      </p>
      {item.snippet && <p className="knowledge-snippet">{highlight(item.snippet, item.highlights)}</p>}
    </li>
  );
}
