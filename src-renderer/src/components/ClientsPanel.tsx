// The clients connected now: the knowledge sessions MCP clients hold (a 2025 protocol session or a
// 2026-07-28 handle), each with the client's own name and version as it introduced itself, its
// token, and how much it has searched. Refreshed whenever a request arrives. Handles a stateless
// client never sent back (one call each) are counted, not listed.
import { useEffect, useState } from 'react';
import type { ClientSession } from '../../../src-main/api/results';
import { errorMessage, trove } from '../bridge';

export function ClientsPanel() {
  const [all, setSessions] = useState<ClientSession[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const load = () => trove.call('connect.sessions', {}).then(setSessions, (err) => setError(errorMessage(err)));
    void load();
    return trove.onEvent((e) => {
      if (e.type === 'connect.request') void load();
    });
  }, []);

  const sessions = all && all.filter((s) => s.kind === 'mcp-session' || s.uses > 1);
  const oneOff = all ? all.length - sessions!.length : 0;
  return (
    <div className="card" data-testid="clients">
      <h2>Connected clients</h2>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {sessions && sessions.length === 0 && <p className="muted">No client holds a knowledge session right now. One appears when it calls the knowledge tools.</p>}
      {oneOff > 0 && (
        <p className="muted" data-testid="one-off">
          {oneOff} stateless call{oneOff === 1 ? '' : 's'} did not send {oneOff === 1 ? 'its' : 'their'} session handle back.
        </p>
      )}
      {sessions && sessions.length > 0 && (
        <table aria-label="Connected clients">
          <thead>
            <tr>
              <th scope="col">Client</th>
              <th scope="col">Token</th>
              <th scope="col">Protocol</th>
              <th scope="col">Session</th>
              <th scope="col">Searches</th>
              <th scope="col">Results returned</th>
              <th scope="col">Last seen</th>
            </tr>
          </thead>
          <tbody>
            {sessions.map((s) => (
              <tr key={`${s.kind}:${s.session}`} data-testid="client-session">
                <td>
                  {s.client?.name ?? 'unnamed client'}
                  {s.client?.version ? <span className="muted"> {s.client.version}</span> : null}
                </td>
                <td>{s.token}</td>
                <td>{s.protocol}</td>
                <td>
                  <code>{s.session}</code> <span className="muted">{s.kind === 'handle' ? 'handle' : 'Mcp-Session-Id'}</span>
                </td>
                <td>{s.queries}</td>
                <td>{s.seen}</td>
                <td>{new Date(s.lastSeen).toLocaleTimeString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
