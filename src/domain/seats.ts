// Seats (docs/plans.md, "Seats"): whether one more user may redeem a code. The store decides it
// under the license's lock with the redemptions it holds, so parallel redemptions never pass N.

export type SeatDecision = 'redeem' | 'LICENSE_ALREADY_REDEEMED' | 'LICENSE_USED';

export interface SeatTerms {
  /** The license's seats: 1 for a minutes license. */
  seats: number;
  /** A floating plan's seats count live sessions, not redemptions (docs/plans.md, "Seats"). */
  floating: boolean;
}

/** A single-seat code answers LICENSE_USED to its own redeemer too, as every code did before seats. */
export function seatDecision(terms: SeatTerms, redeemedBy: ReadonlySet<string>, userId: string): SeatDecision {
  if (redeemedBy.has(userId)) return terms.seats > 1 || terms.floating ? 'LICENSE_ALREADY_REDEEMED' : 'LICENSE_USED';
  if (!terms.floating && redeemedBy.size >= terms.seats) return 'LICENSE_USED';
  return 'redeem';
}
