// The Memory screen: what assistants stored. Threads with their counts, the chosen thread's
// entries newest first (or every thread's), search across memory with the same modes as
// documents, an entry's metadata, tags and images, and deleting an entry or a thread after a
// confirmation.
import { useEffect, useState, type FormEvent } from 'react';
import type { MemoryEntry, Span } from '../../../src-main/api/results';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { highlight } from '../components/highlight';
import { MemoryEntryPanel } from '../components/MemoryEntryPanel';
import { ModeChoice, Pager, QueryRow } from '../components/SearchControls';
import { useMemory, type MemoryMode } from '../memory-store';

const MODES: { id: MemoryMode; label: string }[] = [
  { id: 'keyword', label: 'Keyword' },
  { id: 'vector', label: 'Semantic' },
  { id: 'hybrid', label: 'Hybrid' },
  { id: 'rerank', label: 'Hybrid + rerank' },
];

type Deleting = { kind: 'entry'; entry: MemoryEntry } | { kind: 'thread'; thread: string; entries: number };

export function MemoryScreen() {
  const m = useMemory();
  const [deleting, setDeleting] = useState<Deleting | null>(null);
  const { load } = m;
  useEffect(() => {
    void load();
  }, [load]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void m.runSearch();
  };
  const stats = m.statistics;
  const response = m.search.response;
  const confirmDelete = () => {
    const d = deleting!;
    setDeleting(null);
    void m.remove(d.kind === 'entry' ? { ids: [d.entry.id] } : { thread: d.thread });
  };

  return (
    <section aria-labelledby="memory-title">
      <div className="row">
        <h1 id="memory-title" className="grow">
          Memory
        </h1>
        <button type="button" onClick={() => void m.load()}>
          Refresh
        </button>
      </div>
      {stats && (
        <p className="muted" data-testid="memory-summary">
          {plural(stats.entries, 'entry', 'entries')} in {plural(stats.threads, 'thread', 'threads')} · {plural(stats.images, 'image', 'images')} · {stats.semantic.pendingChunks} waiting for embeddings
          {stats.semantic.model ? ` · ${stats.semantic.model}` : ''}
        </p>
      )}
      {m.error && (
        <p className="error" role="alert">
          {m.error}
        </p>
      )}
      <form className="card" role="search" aria-label="Memory search" onSubmit={submit}>
        <QueryRow id="memory-query" label={`Search memory${m.thread ? ` (thread ${m.thread})` : ''}`} value={m.search.query} onChange={m.setQuery} placeholder="What did an assistant note about…" busy={m.search.busy}>
          {response && (
            <button type="button" onClick={m.clearSearch}>
              Clear
            </button>
          )}
        </QueryRow>
        <ModeChoice name="memory-mode" modes={MODES} value={m.search.mode} onChange={m.setMode} />
      </form>
      <div className={`memory ${m.selected ? 'with-detail' : ''}`}>
        <nav className="card threads" aria-label="Threads">
          <h2>Threads</h2>
          <ul>
            <li>
              <button type="button" className={m.thread === null ? 'active' : ''} onClick={() => void m.openThread(null)}>
                All threads {stats ? `(${stats.entries})` : ''}
              </button>
            </li>
            {m.threads?.map((t) => (
              <li key={t.threadId} data-testid={`thread-${t.threadId}`}>
                <button type="button" className={m.thread === t.threadId ? 'active' : ''} onClick={() => void m.openThread(t.threadId)}>
                  {t.threadId} <span className="muted">({t.entries})</span>
                </button>
              </li>
            ))}
          </ul>
          {m.threads?.length === 0 && <p className="muted">Memory is empty. Assistants add entries with the store_context tool.</p>}
          {m.thread && (
            <button type="button" className="danger" onClick={() => setDeleting({ kind: 'thread', thread: m.thread!, entries: m.threads?.find((t) => t.threadId === m.thread)?.entries ?? 0 })}>
              Delete thread…
            </button>
          )}
        </nav>
        <div>
          {response ? (
            <>
              <p className="muted" data-testid="memory-search-summary">
                {response.hits.length ? `${m.search.offset + 1}–${m.search.offset + response.hits.length} of ${response.hasMore ? 'more than ' : ''}${response.total}` : 'No entries found'} · {response.timings.totalMs} ms ·{' '}
                {response.plan.strategy}
              </p>
              {response.notices.map((n) => (
                <p key={n} className="notice">
                  {n}
                </p>
              ))}
              <ol className="results">
                {response.hits.map((h) => (
                  <EntryCard key={h.entry.id} entry={h.entry} text={h.snippet} score={h.score} spans={h.highlights} selected={m.selected?.id === h.entry.id} onOpen={() => void m.select(h.entry.id)} onDelete={() => setDeleting({ kind: 'entry', entry: h.entry })} />
                ))}
              </ol>
              <Pager offset={m.search.offset} pageSize={20} nextOffset={response.nextOffset} onPage={(o) => void m.runSearch(o)} />
            </>
          ) : (
            m.entries && (
              <>
                <p className="muted" data-testid="memory-entries-summary">
                  {m.entries.total ? `${m.entries.offset + 1}–${m.entries.offset + m.entries.list.length} of ${m.entries.total} entries, newest first` : 'No entries'}
                </p>
                <ol className="results">
                  {m.entries.list.map((e) => (
                    <EntryCard key={e.id} entry={e} text={e.text.length > 400 ? `${e.text.slice(0, 400)}…` : e.text} spans={[]} selected={m.selected?.id === e.id} onOpen={() => void m.select(e.id)} onDelete={() => setDeleting({ kind: 'entry', entry: e })} />
                  ))}
                </ol>
                <div className="row">
                  {m.entries.offset > 0 && <button onClick={() => void m.openThread(m.thread, Math.max(0, m.entries!.offset - 30))}>Newer</button>}
                  {m.entries.hasMore && <button onClick={() => void m.openThread(m.thread, m.entries!.offset + m.entries!.list.length)}>Older</button>}
                </div>
              </>
            )
          )}
        </div>
        {m.selected && <MemoryEntryPanel entry={m.selected} onClose={() => void m.select(null)} onDelete={() => setDeleting({ kind: 'entry', entry: m.selected! })} />}
      </div>
      {deleting && (
        <ConfirmDialog
          title={deleting.kind === 'entry' ? `Delete entry #${deleting.entry.id}?` : `Delete thread "${deleting.thread}"?`}
          body={
            deleting.kind === 'entry'
              ? 'The entry, its tags, images and search index rows are removed. Assistants will not find it again. This cannot be undone.'
              : `${deleting.entries === 1 ? 'Its one entry is' : `All ${deleting.entries} entries of this thread are`} removed, with their tags, images and search index rows. This cannot be undone.`
          }
          confirmLabel={deleting.kind === 'entry' ? 'Delete entry' : 'Delete thread'}
          onCancel={() => setDeleting(null)}
          onConfirm={confirmDelete}
        />
      )}
    </section>
  );
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function EntryCard(props: { entry: MemoryEntry; text: string; score?: number; spans: readonly Span[]; selected: boolean; onOpen(): void; onDelete(): void }) {
  const e = props.entry;
  return (
    <li className={`card result ${props.selected ? 'selected' : ''}`} data-testid="memory-entry">
      <header className="row">
        <button className="link title grow" onClick={props.onOpen}>
          #{e.id} · {e.threadId} · {e.source}
        </button>
        {props.score !== undefined && <span className="score">{props.score.toFixed(3)}</span>}
        <button type="button" className="danger" onClick={props.onDelete} aria-label={`Delete entry ${e.id}`}>
          Delete…
        </button>
      </header>
      <p className="path">
        {new Date(e.createdAt).toLocaleString()}
        {e.tags.length ? ` · ${e.tags.map((t) => `#${t}`).join(' ')}` : ''}
        {e.images.length ? ` · ${e.images.length} image${e.images.length === 1 ? '' : 's'}` : ''}
      </p>
      <pre className="snippet">{highlight(props.text, props.spans)}</pre>
    </li>
  );
}
