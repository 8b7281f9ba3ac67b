// The confirmation every destructive action asks for: a modal of our own (not window.confirm), so
// it looks like the rest and a test can click it.
import { useEffect, useRef, useState } from 'preact/hooks';

interface Request {
  title: string;
  message: string;
  confirmLabel: string;
  resolve: (ok: boolean) => void;
}

let show: (r: Request) => void = () => {};

export function confirmAction(title: string, message: string, confirmLabel = 'Delete'): Promise<boolean> {
  return new Promise((resolve) => show({ title, message, confirmLabel, resolve }));
}

export function ConfirmHost() {
  const [request, setRequest] = useState<Request | null>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    show = setRequest;
  }, []);
  const close = (ok: boolean) => {
    request?.resolve(ok);
    setRequest(null);
  };
  useEffect(() => {
    if (!request) return;
    cancelRef.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && close(false);
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [request]);
  if (!request) return null;
  return (
    <div class="modal-backdrop" onClick={(e) => e.target === e.currentTarget && close(false)}>
      <div class="modal" role="dialog" aria-modal="true" aria-labelledby="confirm-title">
        <h2 id="confirm-title">{request.title}</h2>
        <p>{request.message}</p>
        <div class="actions">
          <button ref={cancelRef} type="button" class="btn" onClick={() => close(false)}>
            Cancel
          </button>
          <button type="button" class="btn btn-danger" data-testid="confirm" onClick={() => close(true)}>
            {request.confirmLabel}
          </button>
        </div>
      </div>
    </div>
  );
}
