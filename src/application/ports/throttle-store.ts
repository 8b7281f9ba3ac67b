// The counters that throttle credential checks and sign-ups.
// Methods marked ATOMIC are one transaction (see store.ts). Instants are epoch milliseconds.
import type { AttemptOutcome, ThrottleLimits } from '../../domain/auth-throttle.js';
import type { SignUpLimits } from '../../domain/sign-up-limits.js';
import type { Instant } from '../../domain/time.js';

export interface AuthAttempt {
  applicationId: string;
  /** What the caller claimed to be (e.g. `user:<usernameKey>` or `license:<digest>`), existing or
   * not; null where a check has no account (only the address is throttled). */
  accountKey: string | null;
  ip: string;
  now: Instant;
  /** The caller is familiar to the account (signed in from this address before, or on a device
   * registered to it): it is served past the address's limit (reserveIpAttempt) and the account's
   * hourly limit (reserveAccountWindow). Asked only once one of them refuses. */
  familiar?: boolean;
}

/** A reserved check that succeeded, handed to the write it lets through (a session, a
 * redemption): that write settles it as settleAuthAttempt's success, in its own transaction, so
 * a login costs one transaction after the password work, not two. `attempt.now`: when it settles. */
export interface SucceededTurn {
  attempt: AuthAttempt;
  limits: ThrottleLimits;
}

export interface SignUpSlot {
  applicationId: string;
  address: string;
  now: Instant;
}

export interface ThrottleStore {
  /** ATOMIC: reserves one credential check (reserveIpAttempt, reserveAccountWindow and
   * reserveAccountAttempt of the domain): RATE_LIMITED, ACCOUNT_LOCKED, or 'busy' for the caller to
   * wait and try again, writing nothing then (docs/choices.md, "Throttling"). */
  reserveAuthAttempt(attempt: AuthAttempt, limits: ThrottleLimits): Promise<'reserved' | 'busy'>;
  /** ATOMIC: settles a reserved check with settleAccountAttempt (and, on success, ipAfterSuccess
   * and accountWindowAfterSuccess). When this failure locked the account at the network, until when. */
  settleAuthAttempt(attempt: AuthAttempt, outcome: AttemptOutcome, limits: ThrottleLimits): Promise<{ lockedUntil: Instant } | null>;
  /** ATOMIC: counts one sign-up in the address's hourly window and, when perApplication is set, the
   * application's, or throws RATE_LIMITED and writes nothing. `applicationFilledUntil`: the end of
   * the application's window when this sign-up filled it, else null. */
  reserveSignUp(slot: SignUpSlot, limits: SignUpLimits): Promise<{ applicationFilledUntil: Instant | null }>;
  /** ATOMIC: gives back a reserved sign-up that failed (signUpGivenBack), in the windows it was counted in. */
  releaseSignUp(slot: SignUpSlot, limits: SignUpLimits): Promise<void>;
  /** ATOMIC: counts one write of the user's variables in the user's hourly window (on the sign-up
   * counters' rows, scope `variable_writes:<user id>`), or throws RATE_LIMITED
   * (countInHourWindow) and writes nothing. */
  reserveVariableWrite(slot: { applicationId: string; userId: string; now: Instant }, limit: number): Promise<void>;
  /** Deletes the counters a purge may forget at `now` (throttlePurgeCutoffs): ended windows (sign-up
   * windows included) and idle (account, address) counters. Returns how many rows went and how many remain. */
  purgeThrottle(now: Instant): Promise<{ deleted: number; kept: number }>;
  /** Lifts every lock of the accounts (their counters at every address and their window). */
  unlockAccounts(applicationId: string, accountKeys: string[]): Promise<void>;
}
