// Connect: where assistants reach this engine, and configs to paste into each client.
import { useEffect, useState } from 'react';
import type { ConnectClient, ConnectInfo, WrittenConfig } from '../../../src-main/api/results';
import { errorMessage, trove } from '../bridge';
import { ClientsPanel } from '../components/ClientsPanel';
import { RequestLogPanel } from '../components/RequestLogPanel';
import { TokensPanel } from '../components/TokensPanel';

async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // no async clipboard (insecure context): the selection way still works
  const area = document.createElement('textarea');
  area.value = text;
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('the browser refused to copy; select the text and copy it by hand');
}

export function ConnectScreen() {
  const [info, setInfo] = useState<ConnectInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState<string | null>(null);
  const [showToken, setShowToken] = useState(false);
  const [written, setWritten] = useState<Partial<Record<ConnectClient, { done: WrittenConfig } | { error: string } | 'busy'>>>({});

  useEffect(() => {
    trove.call('connect.info', {}).then(setInfo, (err) => setError(errorMessage(err)));
  }, []);

  const copy = async (what: string, text: string) => {
    try {
      await copyText(text);
      setCopied(what);
      setError(null);
    } catch (err) {
      setError(errorMessage(err));
    }
  };

  const write = async (client: ConnectClient) => {
    setWritten((w) => ({ ...w, [client]: 'busy' }));
    try {
      const done = await trove.call('connect.writeConfig', { client });
      setWritten((w) => ({ ...w, [client]: { done } }));
    } catch (err) {
      setWritten((w) => ({ ...w, [client]: { error: errorMessage(err) } }));
    }
  };

  return (
    <section aria-labelledby="connect-title">
      <h1 id="connect-title">Connect an assistant</h1>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {copied && (
        <p className="notice" role="status" data-testid="copied">
          Copied the {copied}.
        </p>
      )}
      {info && (
        <>
          <div className="card">
            <h2>Local endpoint</h2>
            <p>
              MCP endpoint: <code data-testid="endpoint">{info.endpoint ?? 'not serving HTTP'}</code>
            </p>
            <p>
              Token:{' '}
              {info.token ? (
                <>
                  <code data-testid="token">{showToken ? info.token : '•'.repeat(12)}</code>{' '}
                  <button type="button" className="link" onClick={() => setShowToken(!showToken)}>
                    {showToken ? 'Hide' : 'Show'}
                  </button>
                </>
              ) : (
                <span className="muted">none handed out by this host</span>
              )}
            </p>
          </div>
          <TokensPanel onCopy={(what, text) => void copy(what, text)} />
          {info.configs.map((c) => (
            <div className="card" key={c.client} data-testid={`config-${c.client}`}>
              <header className="row">
                <h2 className="grow">{c.client}</h2>
                <button type="button" disabled={!c.json} onClick={() => void copy(`${c.client} config`, c.json)}>
                  Copy config
                </button>
                <button type="button" disabled={!c.json || written[c.client] === 'busy'} onClick={() => void write(c.client)}>
                  Write to {c.client} config
                </button>
              </header>
              <WriteResult state={written[c.client]} />
              <p className="muted">
                {c.note} File: <code>{c.file}</code>
              </p>
              {c.json && <pre className="config">{info.token && !showToken ? c.json.replaceAll(info.token, '•'.repeat(12)) : c.json}</pre>}
            </div>
          ))}
          <ClientsPanel />
          <RequestLogPanel />
        </>
      )}
    </section>
  );
}

function WriteResult({ state }: { state: { done: WrittenConfig } | { error: string } | 'busy' | undefined }) {
  if (!state || state === 'busy') return null;
  if ('error' in state) {
    return (
      <p className="error" role="alert" data-testid="write-result">
        Not written: {state.error}
      </p>
    );
  }
  return (
    <p className="notice" role="status" data-testid="write-result">
      Wrote Trove into <code>{state.done.file}</code>.{' '}
      {state.done.backup ? (
        <>
          The previous file is kept as <code>{state.done.backup}</code>.
        </>
      ) : (
        'There was no file before, so no backup was needed.'
      )}{' '}
      Restart {state.done.client} to pick it up.
    </p>
  );
}
