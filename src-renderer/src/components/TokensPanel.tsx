// MCP access tokens: create one limited to some collections and tools, with a grant on agent
// memory (the secret is shown once), see when each was last used, revoke with confirmation.
import { useEffect, useState, type FormEvent } from 'react';
import type { TokenList } from '../../../src-main/api/results';
import { errorMessage, trove } from '../bridge';
import { useApp } from '../store';
import { ConfirmDialog } from './ConfirmDialog';

export function TokensPanel(props: { onCopy(what: string, text: string): void }) {
  const collections = useApp((s) => s.collections) ?? [];
  const [list, setList] = useState<TokenList | null>(null);
  const [name, setName] = useState('');
  const [scopeCollections, setScopeCollections] = useState<string[]>([]);
  const [tools, setTools] = useState<string[]>([]);
  const [profile, setProfile] = useState<'standard' | 'deep-research'>('standard');
  const [memory, setMemory] = useState<'' | 'none' | 'read' | 'write'>('');
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const [revoking, setRevoking] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = () => trove.call('tokens.list', {}).then(setList, (err) => setError(errorMessage(err)));
  useEffect(() => {
    void load();
  }, []);

  const toggle = (list: string[], v: string, on: boolean) => (on ? [...list, v] : list.filter((x) => x !== v));

  const create = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      const r = await trove.call('tokens.create', {
        name: name.trim(),
        ...(scopeCollections.length ? { collections: scopeCollections } : {}),
        ...(tools.length ? { tools } : {}),
        ...(profile !== 'standard' ? { profile } : {}),
        ...(memory ? { memory } : {}),
      });
      setCreated({ name: r.info.name, token: r.token });
      setName('');
      setScopeCollections([]);
      setTools([]);
      setProfile('standard');
      setMemory('');
      await load();
    } catch (err) {
      setError(errorMessage(err));
    }
  };

  const revoke = async (token: string) => {
    setRevoking(null);
    try {
      await trove.call('tokens.revoke', { name: token });
      if (created?.name === token) setCreated(null);
      await load();
    } catch (err) {
      setError(errorMessage(err));
    }
  };

  return (
    <div className="card" data-testid="tokens">
      <h2>Access tokens</h2>
      <p className="muted">Give each assistant its own token, limited to the collections and tools it needs. Revoking one cuts that client off at once.</p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {created && (
        <div className="notice" data-testid="new-token">
          <p>
            Token <strong>{created.name}</strong> created. Copy it now: it is shown only once.
          </p>
          <div className="row">
            <code className="grow">{created.token}</code>
            <button type="button" onClick={() => props.onCopy(`${created.name} token`, created.token)}>
              Copy token
            </button>
          </div>
        </div>
      )}
      {list && list.tokens.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Starts with</th>
              <th>Collections</th>
              <th>Tools</th>
              <th>Profile</th>
              <th>Memory</th>
              <th>Last used</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.tokens.map((t) => (
              <tr key={t.name} data-testid={`token-${t.name}`}>
                <td>{t.name}</td>
                <td>
                  <code>{t.hint}…</code>
                </td>
                <td>{t.collections?.join(', ') ?? 'all'}</td>
                <td>{t.tools?.join(', ') ?? 'all'}</td>
                <td>{t.profile === 'deep-research' ? 'deep research (search + fetch)' : 'standard'}</td>
                <td>{t.memory === 'write' ? 'read and write' : t.memory === 'read' ? 'read only' : 'none'}</td>
                <td>{t.lastUsedAt ? new Date(t.lastUsedAt).toLocaleString() : 'never'}</td>
                <td>
                  <button type="button" className="danger" onClick={() => setRevoking(t.name)}>
                    Revoke…
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list && list.tokens.length === 0 && <p className="muted">No named tokens yet; clients use the host token above.</p>}
      <form onSubmit={(e) => void create(e)} aria-label="Create a token">
        <div className="row">
          <label className="grow">
            New token name
            <input value={name} onChange={(e) => setName(e.target.value)} placeholder="e.g. cursor-laptop" />
          </label>
          <label>
            Agent memory
            <select value={memory} onChange={(e) => setMemory(e.target.value as typeof memory)}>
              <option value="">default ({scopeCollections.length ? 'none: scoped to collections' : 'read and write'})</option>
              <option value="none">none</option>
              <option value="read">read only (search, get)</option>
              <option value="write">read and write (store, update, delete)</option>
            </select>
          </label>
          <button type="submit" className="primary" disabled={!name.trim()}>
            Create token
          </button>
        </div>
        {collections.length > 0 && (
          <fieldset className="row">
            <legend>Only these collections (none checked: all)</legend>
            {collections.map((c) => (
              <label key={c.name} className="inline">
                <input type="checkbox" checked={scopeCollections.includes(c.name)} onChange={(e) => setScopeCollections(toggle(scopeCollections, c.name, e.target.checked))} />
                {c.name}
              </label>
            ))}
          </fieldset>
        )}
        <label>
          Tool profile
          <select value={profile} onChange={(e) => setProfile(e.target.value as 'standard' | 'deep-research')} data-testid="token-profile">
            <option value="standard">Standard: QMD&apos;s tools and the knowledge toolset</option>
            <option value="deep-research">Deep research (ChatGPT connectors): exactly search and fetch</option>
          </select>
        </label>
        {list && (
          <fieldset className="row">
            <legend>Only these tools (none checked: all)</legend>
            {list.toolNames.map((t) => (
              <label key={t} className="inline">
                <input type="checkbox" checked={tools.includes(t)} onChange={(e) => setTools(toggle(tools, t, e.target.checked))} />
                {t}
              </label>
            ))}
          </fieldset>
        )}
      </form>
      {revoking && (
        <ConfirmDialog
          title={`Revoke "${revoking}"?`}
          body="Clients using this token lose access immediately. This cannot be undone; create a new token to reconnect them."
          confirmLabel="Revoke token"
          onCancel={() => setRevoking(null)}
          onConfirm={() => void revoke(revoking)}
        />
      )}
    </div>
  );
}
