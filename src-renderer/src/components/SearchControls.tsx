// The controls every search form in the window shares (Search → Collections, Search → All
// sources, Memory): the query row with its submit button, the mode radio group and the
// Previous/Next pager. One place, so the three forms look and behave alike.
import type { ReactNode } from 'react';

export function QueryRow(props: {
  id: string;
  label: ReactNode;
  value: string;
  placeholder: string;
  busy: boolean;
  autoFocus?: boolean;
  onChange(value: string): void;
  children?: ReactNode; // extra buttons after Search (e.g. Clear)
}) {
  return (
    <div className="row">
      <label className="grow">
        {props.label}
        <input id={props.id} value={props.value} onChange={(e) => props.onChange(e.target.value)} placeholder={props.placeholder} autoFocus={props.autoFocus} />
      </label>
      <button className="primary" type="submit" disabled={props.busy}>
        {props.busy ? 'Searching…' : 'Search'}
      </button>
      {props.children}
    </div>
  );
}

export function ModeChoice<M extends string>(props: { name: string; modes: readonly { id: M; label: string }[]; value: M; onChange(mode: M): void }) {
  return (
    <fieldset className="row">
      <legend>Mode</legend>
      {props.modes.map((m) => (
        <label key={m.id} className="inline">
          <input type="radio" name={props.name} value={m.id} checked={props.value === m.id} onChange={() => props.onChange(m.id)} />
          {m.label}
        </label>
      ))}
    </fieldset>
  );
}

/** Previous/Next for an offset-paged result list; `nextOffset` null when there is no next page. */
export function Pager(props: { offset: number; pageSize: number; nextOffset: number | null; onPage(offset: number): void }) {
  return (
    <div className="row">
      {props.offset > 0 && <button onClick={() => props.onPage(Math.max(0, props.offset - props.pageSize))}>Previous</button>}
      {props.nextOffset !== null && <button onClick={() => props.onPage(props.nextOffset!)}>Next</button>}
    </div>
  );
}
