// The live log of MCP client requests: what the host has kept (its last 200), newest first, and
// each new request as the host pushes it. Arguments arrive only as a short preview.
import { useEffect, useState } from 'react';
import type { ClientRequest } from '../../../src-main/api/results';
import { errorMessage, trove } from '../bridge';

const KEEP = 200;

function merge(known: ClientRequest[], incoming: ClientRequest[]): ClientRequest[] {
  const byId = new Map(known.map((r) => [r.id, r]));
  for (const r of incoming) byId.set(r.id, r);
  return [...byId.values()].sort((a, b) => b.id - a.id).slice(0, KEEP);
}

export function RequestLogPanel() {
  const [requests, setRequests] = useState<ClientRequest[]>([]);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const off = trove.onEvent((e) => {
      if (e.type === 'connect.request') setRequests((known) => merge(known, [e.request]));
    });
    trove.call('connect.requests', {}).then(
      (list) => setRequests((known) => merge(known, list)),
      (err) => setError(errorMessage(err)),
    );
    return off;
  }, []);

  return (
    <div className="card" data-testid="request-log">
      <h2>Client requests</h2>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {requests.length === 0 ? (
        <p className="muted">No requests from MCP clients yet. They appear here live, newest first.</p>
      ) : (
        <table aria-label="Client requests, newest first" aria-live="polite">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Client</th>
              <th scope="col">Request</th>
              <th scope="col">Status</th>
              <th scope="col">Took</th>
            </tr>
          </thead>
          <tbody>
            {requests.map((r) => (
              <tr key={r.id} data-testid="request">
                <td>{new Date(r.time).toLocaleTimeString()}</td>
                <td title={`token ${r.token} · protocol ${r.protocol}`}>
                  {r.client}
                  {r.clientVersion ? <span className="muted"> {r.clientVersion}</span> : null}
                  {r.client !== r.token ? <span className="muted"> ({r.token})</span> : null}
                </td>
                <td>
                  <code>{r.tool ? `${r.method} ${r.tool}` : r.method}</code>
                  {r.preview && <span className="muted"> {r.preview}</span>}
                </td>
                <td>
                  <span className={`badge ${r.status === 'ok' ? 'ok' : 'error'}`}>{r.status === 'ok' ? 'ok' : r.httpStatus >= 400 ? `error (HTTP ${r.httpStatus})` : 'error'}</span>
                </td>
                <td>{r.durationMs} ms</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
