// The events of refusals (docs/events.md, Audit log): outcomes whose change rolled back or never
// began, recorded by the use case after the refusal (EventStore.recordEvent) as the request's
// actor. Secret-free: no password, license code or signature appears, only what was refused and why.
import type { EventDraft, EventTarget } from './event-draft.js';

/** `device.limit_reached`: a sign-in, activation or license file refused for a device past the user's cap. */
export const deviceLimitReached = (applicationId: string, user: { id: string; username: string | null }, hardwareId: string | null): EventDraft => ({
  applicationId,
  action: 'device.limit_reached',
  target: { type: 'user', id: user.id, label: user.username },
  data: { user_id: user.id, hardware_id: hardwareId },
  outcome: 'DEVICE_LIMIT_REACHED',
});

// The throttle account an attempt claimed, as a target: a username's key, or just `license` for a
// license code (its digest is not shown).
export function accountTarget(accountKey: string): EventTarget {
  const [kind, ...rest] = accountKey.split(':');
  const name = rest.join(':');
  return kind === 'user' || kind === 'activation' ? { type: 'account', id: name, label: name } : { type: 'account', id: kind ?? 'account', label: null };
}

/** `auth.locked`: failed sign-ins locked an account at an address until `lockedUntil`. */
export const authLocked = (applicationId: string, accountKey: string, ip: string, lockedUntil: string): EventDraft => ({
  applicationId,
  action: 'auth.locked',
  target: accountTarget(accountKey),
  data: { ip, locked_until: lockedUntil },
  outcome: 'ACCOUNT_LOCKED',
});

/** A refused integration request (`request.refused`): a bad, expired or replayed signature, or a banned caller. */
export const requestRefused = (applicationId: string, code: string, target: EventTarget, data: Record<string, unknown> = {}): EventDraft => ({
  applicationId,
  action: 'request.refused',
  target,
  data: { code, ...data },
  outcome: code,
});

// `sign_up.limited`: a sign-up filled `sign_ups_per_hour`; until `window_ends_at` further sign-ups
// answer 429. Recorded once, by the sign-up that filled the window.
export const signUpLimited = (app: { id: string; name: string }, limit: number, windowEndsAt: string): EventDraft => ({
  applicationId: app.id,
  action: 'sign_up.limited',
  target: { type: 'application', id: app.id, label: app.name },
  data: { limit, window_ends_at: windowEndsAt },
});

/** `owner.signed_in`: recorded in each of the owner's applications' logs (an owner has no log of their own). */
export const ownerSignedIn = (applicationId: string, owner: { id: string; email: string }, via: string): EventDraft => ({
  applicationId,
  action: 'owner.signed_in',
  target: { type: 'owner', id: owner.id, label: owner.email },
  data: { via },
});
