// The saved settings form: port (next start), largest file indexed (next index run) and the
// redaction rules applied to what assistants get over MCP. The host validates; its field errors
// are shown next to the fields they belong to.
import { useState, type FormEvent } from 'react';
import type { SettingSource, SettingsInfo } from '../../../src-main/api/results';
import { errorMessage, trove } from '../bridge';

const MB = 1024 * 1024;

const sourceText: Record<SettingSource, string> = {
  flag: 'from --port',
  env: 'from the environment',
  saved: 'saved here',
  default: 'the default',
};

function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <span id={id} className="error" role="alert">
      {message}
    </span>
  );
}

export function SavedSettingsCard({ info, onSaved }: { info: SettingsInfo; onSaved: (info: SettingsInfo) => void }) {
  const [port, setPort] = useState(info.saved.port === null ? '' : String(info.saved.port));
  const [maxMb, setMaxMb] = useState(info.saved.maxFileBytes === null ? '' : String(+(info.saved.maxFileBytes / MB).toFixed(3)));
  const [rules, setRules] = useState<string[]>(info.saved.redaction);
  const [redactSecrets, setRedactSecrets] = useState(info.saved.redactSecrets);
  const [newRule, setNewRule] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [status, setStatus] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const addRule = (source: string) => {
    const s = source.trim();
    if (s && !rules.includes(s)) setRules([...rules, s]);
    setNewRule('');
  };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setStatus(null);
    const local: Record<string, string> = {};
    const portValue = port.trim() === '' ? null : Number(port);
    if (portValue !== null && !Number.isInteger(portValue)) local.port = 'port must be a whole number';
    const mbValue = maxMb.trim() === '' ? null : Number(maxMb);
    if (mbValue !== null && !Number.isFinite(mbValue)) local.maxFileBytes = 'max file size must be a number of MB';
    if (Object.keys(local).length) return setErrors(local);
    setBusy(true);
    try {
      const maxFileBytes = mbValue === null ? null : Math.round(mbValue * MB);
      const r = await trove.call('settings.update', { port: portValue, maxFileBytes, redaction: rules, redactSecrets });
      setErrors(r.errors ?? {});
      if (!r.errors) {
        onSaved(r.settings);
        setStatus('Saved.');
      }
    } catch (err) {
      setErrors({ settings: errorMessage(err) });
    } finally {
      setBusy(false);
    }
  };

  const ruleError = (i: number) => errors[`redaction.${i}`];
  return (
    <form className="card" data-testid="saved-settings" onSubmit={(e) => void save(e)} noValidate>
      <h2>Server, limits and redaction</h2>
      <label>
        Port
        <input
          name="port"
          inputMode="numeric"
          value={port}
          onChange={(e) => setPort(e.target.value)}
          placeholder="automatic (7077)"
          aria-invalid={!!errors.port}
          aria-describedby="port-help port-error"
        />
      </label>
      <FieldError id="port-error" message={errors.port} />
      <p id="port-help" className="muted">
        1024–65535, empty for automatic. Applies at the next start: the running server keeps its port
        {info.port.running !== null ? ` (${info.port.running}, ${info.port.source ? sourceText[info.port.source] : 'automatic'})` : ''}. --port and TROVE_PORT
        win over the saved port.
      </p>
      <label>
        Largest file indexed (MB)
        <input
          name="maxFileMb"
          inputMode="decimal"
          value={maxMb}
          onChange={(e) => setMaxMb(e.target.value)}
          placeholder="10"
          aria-invalid={!!errors.maxFileBytes}
          aria-describedby="max-help max-error"
        />
      </label>
      <FieldError id="max-error" message={errors.maxFileBytes} />
      <p id="max-help" className="muted" data-testid="max-source">
        In force: {+(info.maxFileBytes / MB).toFixed(3)} MB ({sourceText[info.maxFileBytesSource]}
        {info.maxFileBytesSource === 'env' ? ': TROVE_MAX_FILE_BYTES wins over the saved value' : ''}). Documents (PDF, Office, EPUB, e-mail) may be ten times
        this. Applies from the next index run; bigger files are skipped with the reason. Chunk size is fixed (read-only).
      </p>
      <fieldset>
        <legend>Secrets</legend>
        <label>
          <input type="checkbox" name="redactSecrets" checked={redactSecrets} onChange={(e) => setRedactSecrets(e.target.checked)} />
          Redact secret-looking text
        </label>
        <p className="muted" data-testid="secrets-help">
          API keys and tokens (GitHub, OpenAI, Anthropic, AWS, Slack, Stripe, Google and more), private keys, JWTs, passwords in URLs and random-looking
          values assigned to names like *_KEY, *_TOKEN or password become [redacted secret] in everything assistants get and in this app. On by
          default; a collection can override it. The index is unchanged.
        </p>
      </fieldset>
      <fieldset>
        <legend>Redaction rules</legend>
        <p className="muted">
          Regular expressions (JavaScript syntax). Their matches are replaced by [redacted] in everything assistants get over MCP (search snippets, get,
          multi_get, resources) and in this app&apos;s document preview, which shows what assistants see. The index itself is unchanged.
        </p>
        <ul data-testid="redaction-rules">
          {rules.map((r, i) => (
            <li key={r}>
              <code>{r}</code>{' '}
              <button type="button" aria-label={`Remove rule ${r}`} onClick={() => setRules(rules.filter((x) => x !== r))}>
                Remove
              </button>
              <FieldError id={`rule-error-${i}`} message={ruleError(i)} />
            </li>
          ))}
        </ul>
        {rules.length === 0 && <p className="muted">No rules of your own.</p>}
        <label>
          New rule
          <input name="newRule" value={newRule} onChange={(e) => setNewRule(e.target.value)} placeholder="e.g. \bsk-[A-Za-z0-9]{20,}" />
        </label>
        <button type="button" onClick={() => addRule(newRule)} disabled={!newRule.trim()}>
          Add rule
        </button>
        <FieldError id="redaction-error" message={errors.redaction} />
        <p className="muted">Suggestions (not on until you add them and save):</p>
        <ul data-testid="redaction-suggestions">
          {info.redactionSuggestions.map((s) => (
            <li key={s.source}>
              <button type="button" onClick={() => addRule(s.source)} disabled={rules.includes(s.source)} aria-label={`Add suggested rule: ${s.label}`}>
                Add
              </button>{' '}
              {s.label}: <code>{s.source}</code>
            </li>
          ))}
        </ul>
      </fieldset>
      <FieldError id="settings-error" message={errors.settings} />
      <button className="primary" type="submit" disabled={busy}>
        {busy ? 'Saving…' : 'Save settings'}
      </button>
      {status && (
        <span role="status" data-testid="settings-status">
          {' '}
          {status}
        </span>
      )}
    </form>
  );
}
