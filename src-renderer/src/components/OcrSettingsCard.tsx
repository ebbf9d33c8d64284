// The OCR switch: saved in settings.json and applied at once (the host starts or stops reading
// scanned pages and images in the background), with what the stage is doing now. `trove serve
// --no-ocr` wins over it, and the card says so. Languages are chosen per collection (its card).
import type { BackgroundOcr, SettingsInfo } from '../../../src-main/api/results';
import { useSavedSwitch } from './use-saved-switch';

const stateText: Record<BackgroundOcr['state'], string> = {
  reading: 'Reading scans in the background now (see Index status for progress).',
  waiting: 'Waiting: indexing and searches go first.',
  paused: 'Paused with indexing: resume to continue.',
  idle: 'Every scanned page has been read.',
  off: 'Off: scanned PDFs and images are found by their names and text layers only.',
};

export function OcrSettingsCard({ info, onSaved }: { info: SettingsInfo; onSaved: (info: SettingsInfo) => void }) {
  const bg = info.backgroundOcr;
  const { on, busy, error, toggle } = useSavedSwitch('ocr', info, onSaved);

  return (
    <div className="card" data-testid="ocr-settings">
      <h2>Text from scans (OCR)</h2>
      <label className="inline">
        <input type="checkbox" name="ocr" checked={on} disabled={busy} onChange={(e) => void toggle(e.target.checked)} />
        Read scanned PDF pages and images in the background
      </label>
      <p className="muted">
        Recognised on this computer, at low priority: indexing and searches go first, pausing indexing pauses it too, and a page is never read twice. Each
        collection's languages are on its card. Applies at once.
      </p>
      <p data-testid="ocr-state">{bg.source === 'option' && !bg.enabled ? 'Off for this server: it was started with --no-ocr, which wins over this switch.' : stateText[bg.state]}</p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
