// The floating license behind a user's base plan and the holders of its seats, read in the caller's
// transaction under the license's row lock (docs/machines.md, "Floating seats").
import { and, desc, eq } from 'drizzle-orm';
import type { UserRecord } from '../../../application/records.js';
import { assertSeatFree, type SeatHolder } from '../../../domain/floating-seats.js';
import type { Instant } from '../../../domain/time.js';
import type { Db, Dialect } from '../dialect.js';
import { sessionLiveAt } from './writes.js';

/** A floating license a user holds a redemption of, with the terms its plan has now. */
export interface FloatingSeat {
  licenseId: string;
  seats: number;
  seatExhaustedAt: Instant | null;
  maxBorrowMinutes: number;
}

/** The floating license whose redemption gave the user its base plan (the latest, should there be
 * several), its row locked until the transaction ends; null when the base plan is not floating. */
export async function floatingSeatOf(d: Dialect, tx: Db, user: Pick<UserRecord, 'id' | 'planId'>): Promise<FloatingSeat | null> {
  if (user.planId === null) return null;
  const { licenseRedemptions: r, licenses: l, plans: p } = d.t;
  const [found] = await tx
    .select({ licenseId: l.id, maxBorrowMinutes: p.maxBorrowMinutes })
    .from(r)
    .innerJoin(l, eq(l.id, r.licenseId))
    .innerJoin(p, eq(p.id, l.planId))
    .where(and(eq(r.userId, user.id), eq(l.planId, user.planId), eq(p.floating, true)))
    .orderBy(desc(r.redeemedAt))
    .limit(1);
  if (found === undefined) return null;
  const fields = { seats: l.seats, seatExhaustedAt: l.seatExhaustedAt };
  const [locked] = await d.locked(tx.select(fields).from(l).where(eq(l.id, found.licenseId)));
  return locked === undefined ? null : { ...found, ...locked };
}

/** The license's live seat holders (sessions_floating_live_idx): borrowed ones included. */
export async function seatHolders(d: Dialect, tx: Db, licenseId: string, now: Instant): Promise<SeatHolder[]> {
  const { sessions: s } = d.t;
  const fields = { id: s.id, userId: s.userId, hardwareId: s.hardwareId, expiresAt: s.expiresAt, revokedAt: s.revokedAt, leaseExpiresAt: s.leaseExpiresAt, borrowed: s.borrowed };
  const live = and(eq(s.floatingLicenseId, licenseId), sessionLiveAt(d, now));
  return tx.select(fields).from(s).where(live);
}

/** Refuses a new holder for the machine past the license's seats (SEATS_EXHAUSTED), leaving out
 * the holders it replaces. */
export async function takeFloatingSeat(d: Dialect, tx: Db, seat: FloatingSeat, holder: Pick<SeatHolder, 'id' | 'userId' | 'hardwareId'>, replacing: readonly string[], now: Instant): Promise<void> {
  const holders = (await seatHolders(d, tx, seat.licenseId, now)).filter((h) => !replacing.includes(h.id));
  assertSeatFree(holders, holder, seat.seats, now);
}
