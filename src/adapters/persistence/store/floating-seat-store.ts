// Borrowing and returning floating seats, and the exhaustion notice (docs/machines.md, "Floating seats").
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { FloatingSeatStore } from '../../../application/ports/floating-seat-store.js';
import { licenseFileIssued } from '../../../application/events/event-facts.js';
import { seatBorrowed, seatExhausted, seatReturned } from '../../../application/events/seat-facts.js';
import { admissionCaps } from '../../../domain/admission.js';
import { assertBorrowable, seatExhaustionDue } from '../../../domain/floating-seats.js';
import { licenseFileExpiry } from '../../../domain/license-file.js';
import { graceMinutesOf } from '../../../domain/membership-state.js';
import type { Dialect } from '../dialect.js';
import type { RecordEvents } from './event-log.js';
import { floatingSeatOf, takeFloatingSeat } from './floating-seats.js';
import { readUserPlans } from './user-plans.js';
import { admit, assertStillAdmitted, findUser } from './writes.js';

export function floatingSeatStore(d: Dialect, recordEvents: RecordEvents): FloatingSeatStore {
  const { sessions, licenseFiles } = d.t;
  const liveBorrowOf = (userId: string, hardwareId: string, now: number) =>
    and(eq(sessions.userId, userId), eq(sessions.hardwareId, hardwareId), eq(sessions.borrowed, true), isNull(sessions.revokedAt), gt(sessions.expiresAt, now));
  return {
    async borrowSeat(input, actor) {
      const { applicationId, userId, hardwareId, now } = input;
      return d.transaction(async (tx) => {
        const user = await assertStillAdmitted(d, tx, applicationId, userId, now);
        const seat = await floatingSeatOf(d, tx, user);
        assertBorrowable(seat, input.minutes);
        const plans = await readUserPlans(d, tx, applicationId, userId, user.planId);
        const drafts =
          input.newDeviceId === null ? [] : await admit(d, tx, user, { hardwareId, newDeviceId: input.newDeviceId, allowed: admissionCaps(user, plans.base, input.capDefaults).devices }, now);
        // The file's expiry is the borrow's end: the membership's end (grace included) cuts both short.
        const expiresAt = licenseFileExpiry(now, input.minutes, user.membership, graceMinutesOf(plans));
        // The machine's earlier borrow is replaced, not added to (it holds the one seat either way).
        const earlier = await tx
          .select({ id: sessions.id })
          .from(sessions)
          .where(liveBorrowOf(userId, hardwareId, now));
        const replacing = earlier.map((r) => r.id);
        await takeFloatingSeat(d, tx, seat, { id: input.borrowId, userId, hardwareId }, replacing, now);
        if (replacing.length > 0)
          await tx
            .update(sessions)
            .set({ revokedAt: now })
            .where(liveBorrowOf(userId, hardwareId, now));
        await tx.insert(sessions).values({
          id: input.borrowId,
          applicationId,
          userId,
          hardwareId,
          tokenDigest: '',
          createdAt: now,
          expiresAt,
          revokedAt: null,
          leaseExpiresAt: expiresAt,
          floatingLicenseId: seat.licenseId,
          borrowed: true,
        });
        const issued = { id: input.fileId, userId, hardwareId, issuedAt: now, expiresAt, issuedBy: { type: 'end_user' as const, id: userId } };
        const { issuedBy, ...row } = issued;
        await tx.insert(licenseFiles).values({ ...row, applicationId, issuedByType: issuedBy.type, issuedById: issuedBy.id });
        drafts.push(licenseFileIssued(applicationId, user, issued), seatBorrowed(applicationId, user, { userId, licenseId: seat.licenseId, hardwareId, borrowedUntil: expiresAt }));
        await recordEvents(tx, actor, drafts, now);
        return { user, plans, expiresAt };
      });
    },
    async returnSeat({ applicationId, userId, hardwareId, now }, actor) {
      return d.transaction(async (tx) => {
        const returned = await tx
          .update(sessions)
          .set({ revokedAt: now })
          .where(and(eq(sessions.applicationId, applicationId), liveBorrowOf(userId, hardwareId, now)))
          .returning({ licenseId: sessions.floatingLicenseId, expiresAt: sessions.expiresAt });
        if (returned.length === 0) return false;
        const user = await findUser(d, tx, applicationId, userId);
        const drafts = returned.map((r) =>
          seatReturned(applicationId, { id: userId, username: user?.username ?? null }, { userId, licenseId: r.licenseId ?? '', hardwareId, borrowedUntil: r.expiresAt }),
        );
        await recordEvents(tx, actor, drafts, now);
        return true;
      });
    },
    async recordSeatsExhausted({ applicationId, userId, hardwareId, now }, actor) {
      await d.transaction(async (tx) => {
        const user = await findUser(d, tx, applicationId, userId, true);
        const seat = user === null ? null : await floatingSeatOf(d, tx, user);
        // The license's row lock makes the once-a-minute check hold across instances.
        if (seat === null || !seatExhaustionDue(seat.seatExhaustedAt, now)) return;
        await tx.update(d.t.licenses).set({ seatExhaustedAt: now }).where(eq(d.t.licenses.id, seat.licenseId));
        await recordEvents(tx, actor, [seatExhausted(applicationId, { id: seat.licenseId, seats: seat.seats }, { id: userId, hardwareId })], now);
      });
    },
  };
}
