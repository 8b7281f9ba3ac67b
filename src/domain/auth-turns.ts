// A credential check's turn on the throttle, decided whole: what reserving it, or settling it,
// makes of the counters it counts on (docs/choices.md, "Throttling"). The store reads the
// counters, asks these, and writes back only what they changed.
import {
  type AccountCounter,
  type AccountWindow,
  accountWindowAfterSuccess,
  type AttemptOutcome,
  freshAccountCounter,
  type IpCounter,
  ipAfterSuccess,
  reserveAccountAttempt,
  reserveAccountWindow,
  reserveIpAttempt,
  settleAccountAttempt,
  type ThrottleLimits,
} from './auth-throttle.js';
import type { Instant } from './time.js';

/** The counters of one turn, each null while it has no row: the address's, the account's window, the (account, network) pair's. */
export interface TurnCounters {
  ip: IpCounter | null;
  window: AccountWindow | null;
  pair: AccountCounter | null;
}

/** What a turn writes: each counter's next value, absent where it stays as it is. */
export interface TurnChanges {
  ip?: IpCounter;
  window?: AccountWindow;
  pair?: AccountCounter;
}

export type TurnReservation = { kind: 'busy' } | { kind: 'reserved'; changes: TurnChanges };

// Reserves a turn or throws its refusal (RATE_LIMITED, ACCOUNT_LOCKED); the address is decided
// first, so a flood's guesses never count on the accounts it names. `hasAccount`: the check names
// an account. 'busy' changes nothing: the caller asks again (docs/choices.md, "Throttling").
export function reserveTurn(c: TurnCounters, hasAccount: boolean, limits: ThrottleLimits, now: Instant, familiar: boolean): TurnReservation {
  const known = familiar && hasAccount;
  const ip = reserveIpAttempt(c.ip, limits.ipFailureLimit, now, known);
  if (!hasAccount) return { kind: 'reserved', changes: { ip } };
  const window = reserveAccountWindow(c.window, limits.accountFailureLimit, now, known);
  const pair = reserveAccountAttempt(c.pair ?? freshAccountCounter, limits.lockoutThreshold, now);
  if (pair.kind === 'busy') return { kind: 'busy' };
  return { kind: 'reserved', changes: { ip, window, pair: pair.next } };
}

export interface TurnSettlement {
  changes: TurnChanges;
  /** When this failure locked the account at the network, until when; else null. */
  lockedUntil: Instant | null;
}

// Settles a reserved turn. A failure stays counted on the windows, where the reservation put it;
// a success gives it back there. The pair counts the outcome (settleAccountAttempt).
export function settleTurn(c: TurnCounters, hasAccount: boolean, outcome: AttemptOutcome, limits: ThrottleLimits, now: Instant): TurnSettlement {
  const success = outcome === 'success';
  if (!hasAccount) return { changes: success ? { ip: ipAfterSuccess(c.ip, now) } : {}, lockedUntil: null };
  const before = c.pair ?? freshAccountCounter;
  const pair = settleAccountAttempt(before, outcome, limits.lockoutThreshold, now);
  const changes: TurnChanges = success ? { ip: ipAfterSuccess(c.ip, now), window: accountWindowAfterSuccess(c.window, now), pair } : { pair };
  return { changes, lockedUntil: pair.lockedUntil !== null && pair.lockouts > before.lockouts ? pair.lockedUntil : null };
}

/** A turn's counters once its changes are made. */
const changed = (c: TurnCounters, changes: TurnChanges): TurnCounters => ({
  ip: changes.ip ?? c.ip,
  window: changes.window ?? c.window,
  pair: changes.pair ?? c.pair,
});

/** What a redemption's step after the password work makes of its two turns (passwordThenCode). */
export type RedemptionTurns =
  /** The code's turn was refused (RATE_LIMITED, ACCOUNT_LOCKED): only the password's is settled. */
  | { kind: 'refused'; error: unknown; password: TurnChanges }
  /** The code's turn is taken by checks in flight: only the password's is settled. */
  | { kind: 'busy'; password: TurnChanges }
  /** Both settled; `code` holds the address's counter too. */
  | { kind: 'settled'; password: TurnChanges; code: TurnChanges; lockedUntil: Instant | null };

// A redemption's two turns in one step, decided as the two checks in a row would decide them
// (password settled as a success, then the code's reserved and settled), both on the one address
// counter `password.ip`. The code's turn is not familiar: a refusal goes back to the caller.
export function passwordThenCode(password: TurnCounters, code: TurnCounters, codeFound: boolean, limits: ThrottleLimits, now: Instant): RedemptionTurns {
  const settled = settleTurn(password, true, 'success', limits, now).changes;
  const { ip, ...passwordOwn } = settled;
  const atCode = { ...code, ip: ip ?? password.ip };
  let reserved: TurnReservation;
  try {
    reserved = reserveTurn(atCode, true, limits, now, false);
  } catch (error) {
    return { kind: 'refused', error, password: settled };
  }
  if (reserved.kind === 'busy') return { kind: 'busy', password: settled };
  const checked = settleTurn(changed(atCode, reserved.changes), true, codeFound ? 'success' : 'failure', limits, now);
  const after = changed(changed(atCode, reserved.changes), checked.changes);
  return {
    kind: 'settled',
    password: passwordOwn,
    code: { ip: after.ip ?? undefined, window: after.window ?? undefined, pair: after.pair ?? undefined },
    lockedUntil: checked.lockedUntil,
  };
}
