// Signed integration requests (docs/api.md, Request signing): an application with request_signing on
// accepts a request only with a recent signed time, an HMAC under its request signing key and a
// nonce it has not seen. The HTTP adapter builds the signed bytes (src/signing/request-signature.ts).
import { addressBucket } from '../../domain/ip-address.js';
import { isDomainError } from '../../domain/errors.js';
import {
  nonceHeldUntil,
  parseSignedTimestamp,
  previousKeyStillAccepted,
  requestReplayed,
  signatureExpired,
  signatureInvalid,
  signatureRequired,
  withinSignatureWindow,
} from '../../domain/request-signing.js';
import type { Caller, Deps } from '../deps.js';
import type { ApplicationStore } from '../ports/application-store.js';
import type { RequestNonceStore } from '../ports/request-nonce-store.js';
import type { EventStore } from '../ports/event-store.js';
import { requestRefused } from '../events/refusals.js';
import type { ThrottleStore } from '../ports/throttle-store.js';
import type { ApplicationRecord } from '../records.js';
import { withSigningKeys } from '../signing-keys.js';
import type { Actor } from '../events/actor.js';

/** The signature headers of a request as sent (absent or empty: undefined), and the bytes it signs. */
export interface PresentedSignature {
  timestamp: string | undefined;
  nonce: string | undefined;
  signature: string | undefined;
  /** The signed text built from the request as received; only called when signing is on. */
  base(): string;
}

export type RequestSignatureDeps = Pick<Deps, 'clock' | 'limits' | 'secrets' | 'responseKeys' | 'requestSignatures'> & {
  store: RequestNonceStore & ThrottleStore & ApplicationStore & EventStore;
};

const SIGNATURE_FAILURES = new Set(['SIGNATURE_REQUIRED', 'SIGNATURE_EXPIRED', 'SIGNATURE_INVALID', 'REQUEST_REPLAYED']);

// The throttle scope of signature failures: counted per address with the same limit as failed
// credential checks, but apart from them.
export const signatureThrottleScope = (applicationId: string): string => `request-signatures:${applicationId}`;

/** The checks, in the order docs/api.md (Request signing) gives them; each refusal is a DomainError. */
async function verify(deps: RequestSignatureDeps, app: ApplicationRecord, presented: PresentedSignature): Promise<void> {
  const { timestamp, nonce, signature } = presented;
  if (timestamp === undefined || nonce === undefined || signature === undefined) throw signatureRequired();
  const now = deps.clock.now();
  const windowSeconds = app.settings.signatureWindowSeconds;
  const seconds = parseSignedTimestamp(timestamp);
  if (seconds === null || !withinSignatureWindow(seconds, now, windowSeconds)) throw signatureExpired(windowSeconds);
  const { requestSealed, previousRequest } = (await withSigningKeys(deps, app)).signing;
  const base = presented.base();
  const keys = [requestSealed, previousRequest !== null && previousKeyStillAccepted(previousRequest.replacedAt, now, windowSeconds) ? previousRequest.sealed : null];
  // Every accepted key is tried, so the time taken does not tell which one matched.
  const matched = keys.map((key) => key !== null && deps.requestSignatures.matches(key, base, signature));
  if (!matched.includes(true)) throw signatureInvalid();
  if (!(await deps.store.recordRequestNonce({ applicationId: app.id, nonce, now, heldUntil: nonceHeldUntil(now, seconds) }))) throw requestReplayed();
}

// Checks the request's signature when request_signing is on. Refusals are counted per address
// apart from failed credential checks: past the limit the refusal answers RATE_LIMITED instead.
export function checkRequestSignature(deps: RequestSignatureDeps, app: ApplicationRecord, presented: PresentedSignature, caller: Caller, actor: Actor): Promise<void> | undefined {
  // Nothing to wait for when signing is off: no promise, as every integration request asks.
  return app.settings.requestSigning ? checkSigned(deps, app, presented, caller, actor) : undefined;
}

async function checkSigned(deps: RequestSignatureDeps, app: ApplicationRecord, presented: PresentedSignature, caller: Caller, actor: Actor): Promise<void> {
  try {
    await verify(deps, app, presented);
  } catch (error) {
    if (isDomainError(error) && SIGNATURE_FAILURES.has(error.code)) {
      const failure = { applicationId: signatureThrottleScope(app.id), accountKey: null, ip: addressBucket(caller.ip), now: deps.clock.now() };
      // Reserved and never given back: it stays counted as a failure, as a failed check's does.
      await deps.store.reserveAuthAttempt(failure, deps.limits);
      // A security outcome of the application's log: what was refused, never the signature
      // itself. Past the address's limit (RATE_LIMITED above) refusals are no longer recorded,
      // so a flood of bad signatures cannot fill the log.
      const refused = requestRefused(app.id, error.code, { type: 'application', id: app.id, label: app.name }, { nonce: presented.nonce ?? null });
      await deps.store.recordEvent(refused, deps.clock.now(), actor);
    }
    throw error;
  }
}

/** The scheduled purge of nonces no longer held. */
export function purgeRequestNonces(deps: Pick<Deps, 'clock'> & { store: RequestNonceStore }): Promise<number> {
  return deps.store.purgeRequestNonces(deps.clock.now());
}
