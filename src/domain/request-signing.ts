// The rules of signed integration requests (docs/api.md, Request signing): when a signed time is
// recent enough, which keys a signature may be made with, and how long a nonce stays used.
import { SIGNATURE_WINDOW_MAX } from './application-settings.js';
import { DomainError } from './errors.js';
import type { Instant } from './time.js';

const SECOND_MS = 1000;

/** A request's x-timestamp as Unix seconds: a decimal integer, or null for anything else. */
export function parseSignedTimestamp(text: string): number | null {
  return /^[0-9]{1,12}$/.test(text) ? Number(text) : null;
}

/** Whether a request's time (Unix seconds) is within `windowSeconds` of the server's, either way. */
export function withinSignatureWindow(timestampSeconds: number, now: Instant, windowSeconds: number): boolean {
  return Math.abs(Math.floor(now / SECOND_MS) - timestampSeconds) <= windowSeconds;
}

/** A request signing key rotated out at `replacedAt` still counts for the signature window after. */
export function previousKeyStillAccepted(replacedAt: Instant, now: Instant, windowSeconds: number): boolean {
  return now - replacedAt < windowSeconds * SECOND_MS;
}

/** Until when a nonce accepted at `now` with a request timestamped `timestampSeconds` counts as seen:
 * long enough that neither a client clock running ahead nor an owner widening the window later can
 * make a replay acceptable again (docs/choices.md, "How long a nonce stays used"). */
export function nonceHeldUntil(now: Instant, timestampSeconds: number): Instant {
  return Math.max(now, timestampSeconds * SECOND_MS) + (SIGNATURE_WINDOW_MAX + 1) * SECOND_MS;
}

export const signatureRequired = (): DomainError => new DomainError('SIGNATURE_REQUIRED', 'this application requires signed requests: x-timestamp, x-nonce and x-signature');

export const signatureExpired = (windowSeconds: number): DomainError => new DomainError('SIGNATURE_EXPIRED', `x-timestamp must be Unix seconds within ${windowSeconds} seconds of the server's time`);

export const signatureInvalid = (): DomainError => new DomainError('SIGNATURE_INVALID', 'the request signature does not match');

export const requestReplayed = (): DomainError => new DomainError('REQUEST_REPLAYED', 'this x-nonce was already used');
