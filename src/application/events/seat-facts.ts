// The events of floating seats (docs/events.md, "seat.exhausted", "seat.borrowed", "seat.returned").
import { type EventDraft, facts } from './event-draft.js';

/** A borrow, as seat.borrowed and seat.returned keep it. */
export interface SeatBorrowFacts {
  userId: string;
  licenseId: string;
  hardwareId: string;
  borrowedUntil: number;
}

const borrowFacts = (b: SeatBorrowFacts) => facts<SeatBorrowFacts>({ userId: b.userId, licenseId: b.licenseId, hardwareId: b.hardwareId, borrowedUntil: b.borrowedUntil });
const userTarget = (u: { id: string; username: string | null }) => ({ type: 'user', id: u.id, label: u.username });

/** `seat.exhausted`: a login or borrow was refused because every seat of the license was taken. */
export const seatExhausted = (applicationId: string, license: { id: string; seats: number }, user: { id: string; hardwareId: string | null }): EventDraft => ({
  applicationId,
  action: 'seat.exhausted',
  target: { type: 'license', id: license.id, label: null },
  data: { license_id: license.id, seats: license.seats, user_id: user.id, hardware_id: user.hardwareId },
  outcome: 'SEATS_EXHAUSTED',
});

/** `seat.borrowed`: a machine holds a seat offline until `borrowedUntil`. */
export const seatBorrowed = (applicationId: string, user: { id: string; username: string | null }, b: SeatBorrowFacts): EventDraft => ({
  applicationId,
  action: 'seat.borrowed',
  target: userTarget(user),
  data: borrowFacts(b),
});

/** `seat.returned`: a borrow was given back before its end. */
export const seatReturned = (applicationId: string, user: { id: string; username: string | null }, b: SeatBorrowFacts): EventDraft => ({
  applicationId,
  action: 'seat.returned',
  target: userTarget(user),
  data: borrowFacts(b),
});
