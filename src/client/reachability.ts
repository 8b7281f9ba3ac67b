// Whether a failed call reached the server at all: what the SDK's offline fallback (docs/sdk.md,
// Offline license files in the SDK) asks before it opens a stored license file instead.
import { GatehouseError, SignatureError } from './errors.js';

/** Answers that say the server is not there (a proxy in front of a stopped server, or the server
 * without its database): the offline fallback treats them as a failed connection. That gives an
 * attacker nothing a cut cable does not: the license file must still verify. */
const UNREACHABLE_STATUSES = new Set([502, 503, 504]);

/** Errors thrown by fetch itself: no answer came. */
const connectionFailures = new WeakSet<object>();

export function unreachable(error: unknown): boolean {
  if (typeof error === 'object' && error !== null && connectionFailures.has(error)) return true;
  return (error instanceof GatehouseError || error instanceof SignatureError) && UNREACHABLE_STATUSES.has(error.status);
}

/** fetch, remembering a failure to connect as such for the offline fallback. */
export async function fetchAnswer(url: URL, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    if (typeof error === 'object' && error !== null) connectionFailures.add(error);
    throw error;
  }
}
