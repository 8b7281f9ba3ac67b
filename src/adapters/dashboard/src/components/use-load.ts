// Loads something from the API for a page: the value, the error to show, and a way to reload.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { confirmAction } from './confirm.js';

export interface Loaded<T> {
  data: T | null;
  error: ApiError | null;
  reload: () => Promise<void>;
  setData: (value: T) => void;
}

export function asApiError(e: unknown): ApiError {
  return e instanceof ApiError ? e : new ApiError(0, 'CLIENT', e instanceof Error ? e.message : String(e));
}

export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const run = useCallback(load, deps);
  // Only the newest request may set state: when the deps change (another filter, page or
  // application) or the page unmounts, an answer still on its way is dropped, so a slow old
  // answer never overwrites a newer one.
  const latest = useRef(0);
  const reload = useCallback(async () => {
    const call = ++latest.current;
    try {
      const value = await run();
      if (call !== latest.current) return;
      setData(value);
      setError(null);
    } catch (e) {
      if (call === latest.current) setError(asApiError(e));
    }
  }, [run]);
  useEffect(() => {
    void reload();
    return () => {
      latest.current += 1;
    };
  }, [reload]);
  return { data, error, reload, setData };
}

/** Runs an action (a form's submit, a button) with its own busy flag and error. */
export function useAction(): {
  busy: boolean;
  error: ApiError | null;
  setError: (e: ApiError | null) => void;
  run: (action: () => Promise<void>) => Promise<boolean>;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const run = useCallback(async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
      return true;
    } catch (e) {
      setError(asApiError(e));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, setError, run };
}

export interface Ask {
  title: string;
  message: string;
  /** The confirm button's label (default "Delete"). */
  label?: string;
}

/** A destructive action: asks in the confirmation modal, then runs it under the action's busy flag and error. */
export async function runConfirmed(action: { run: (work: () => Promise<void>) => Promise<boolean> }, ask: Ask, work: () => Promise<void>): Promise<void> {
  if (await confirmAction(ask.title, ask.message, ask.label)) await action.run(work);
}
