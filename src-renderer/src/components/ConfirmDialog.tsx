// A modal confirmation for destructive actions (remove a collection). Escape or Cancel closes it.
import { useEffect, useRef } from 'react';

export function ConfirmDialog(props: { title: string; body: string; confirmLabel: string; onConfirm(): void; onCancel(): void }) {
  const cancelRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    cancelRef.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && props.onCancel();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [props]);
  return (
    <div className="backdrop">
      <div role="alertdialog" aria-modal="true" aria-labelledby="confirm-title" className="dialog">
        <h2 id="confirm-title">{props.title}</h2>
        <p>{props.body}</p>
        <div className="row end">
          <button type="button" ref={cancelRef} onClick={props.onCancel}>
            Cancel
          </button>
          <button type="button" className="danger" onClick={props.onConfirm}>
            {props.confirmLabel}
          </button>
        </div>
      </div>
    </div>
  );
}
