// Document kinds as the screens show them: per-kind counts, and what a hit's page counts in
// (mirrors pageUnit in the engine's parser registry: the renderer imports no engine code).
const PAGE_UNITS: Record<string, string> = { pptx: 'slide', odp: 'slide', xlsx: 'sheet', ods: 'sheet', epub: 'chapter', email: 'message' };

/** The kinds a file can be indexed as (the engine's KNOWN_KINDS). */
export const KINDS = ['markdown', 'text', 'html', 'code', 'pdf', 'docx', 'pptx', 'xlsx', 'odt', 'odp', 'ods', 'epub', 'rtf', 'email'];

/** A marker line of a document's extracted text: `[page 3]`, `[slide 2]`, `[sheet 1: Budget]`, `[notes]`… */
export const MARKER_LINE = /^\[(?:page|slide|sheet|chapter|message|notes|attachment|comments|tracked changes)\b[^\]]*\]$/;

export function pageLabel(kind: string, page: number | null): string {
  return page === null ? '' : `${PAGE_UNITS[kind] ?? 'page'} ${page}`;
}

export function KindCounts(props: { kinds: Record<string, number>; testId?: string }) {
  const kinds = Object.entries(props.kinds).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (!kinds.length) return null;
  return (
    <p className="kinds" data-testid={props.testId ?? 'kinds'}>
      <span className="muted">By kind: </span>
      {kinds.map(([kind, n], i) => (
        <span key={kind} data-kind={kind}>
          {i ? ' · ' : ''}
          {kind} {n}
        </span>
      ))}
    </p>
  );
}
