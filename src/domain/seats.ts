// Seats (docs/plans.md, "Seats"): whether one more user may redeem a code. The store decides it
// under the license's lock with the redemptions it holds, so parallel redemptions never pass N.

import { DomainError } from './errors.js';

export type SeatDecision = 'redeem' | 'LICENSE_ALREADY_REDEEMED' | 'LICENSE_USED';

export interface SeatTerms {
  /** The license's seats: 1 for a minutes license. */
  seats: number;
  /** A floating plan's seats count live sessions, not redemptions (docs/plans.md, "Seats"). */
  floating: boolean;
}

/** Whether several users may hold the code at once: then a login by it names its holder by a machine
 * (docs/plans.md, "Logins by a code of several seats"). */
export function severalHolders(terms: SeatTerms): boolean {
  return terms.seats > 1 || terms.floating;
}

/** A single-seat code answers LICENSE_USED to its own redeemer too, as every code did before seats. */
export function seatDecision(terms: SeatTerms, redeemedBy: ReadonlySet<string>, userId: string): SeatDecision {
  if (redeemedBy.has(userId)) return severalHolders(terms) ? 'LICENSE_ALREADY_REDEEMED' : 'LICENSE_USED';
  if (!terms.floating && redeemedBy.size >= terms.seats) return 'LICENSE_USED';
  return 'redeem';
}

/** The machine a new holder of a code of several holders signs up from: required, since it is how
 * a login by the code tells the holders apart, and no holder's already (the same machine again). */
export function assertNewHolderMachine(hardwareId: string | null, heldAlready: boolean): void {
  if (hardwareId === null) {
    throw new DomainError('VALIDATION_FAILED', 'a code of several seats needs the hardware id of the machine signing up', {
      errors: [{ field: 'hardware_id', message: 'is required with a code of several seats' }],
    });
  }
  if (heldAlready) throw new DomainError('LICENSE_ALREADY_REDEEMED', 'this machine already holds a seat of this license');
}
