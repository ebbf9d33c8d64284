// A Settings switch saved in settings.json: shown at once when flipped, put back with the reason
// if the host refuses. Shared by the background cards (embedding, OCR).
import { useState } from 'react';
import type { SettingsInfo } from '../../../src-main/api/results';
import { errorMessage, trove } from '../bridge';

type SwitchKey = 'backgroundEmbedding' | 'ocr';

export function useSavedSwitch(key: SwitchKey, info: SettingsInfo, onSaved: (info: SettingsInfo) => void) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [on, setOn] = useState(info.saved[key] !== false);

  const toggle = async (next: boolean) => {
    setError(null);
    setBusy(true);
    setOn(next);
    try {
      const r = await trove.call('settings.update', { [key]: next });
      if (r.errors) {
        setError(Object.values(r.errors).join('; '));
        setOn(!next);
      } else onSaved(r.settings);
    } catch (err) {
      setError(errorMessage(err));
      setOn(!next);
    } finally {
      setBusy(false);
    }
  };

  return { on, busy, error, toggle };
}
