// Sessions and device admission, under the user's row lock (docs/architecture.md, "Persistence notes").
import { and, eq, gt, inArray, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import type { SessionStore } from '../../../application/ports/session-store.js';
import { admissionCaps, assertAdmitted } from '../../../domain/admission.js';
import { utcDayStart } from '../../../domain/overview.js';
import { planLegacyHold, planSession } from '../../../domain/sessions.js';
import { type Db, type Dialect } from '../dialect.js';
import type { Lookups } from './lookups.js';
import { admit, assertStillAdmitted, findUser, graceUnderLock, machinesOf, recordAddress, sessionLiveAt, userBanned } from './writes.js';
import type { RecordEvents } from './event-log.js';
import { licenseFileIssued, sessionCreated, sessionsRevoked } from '../../../application/events/event-facts.js';
import { licenseFileExpiry } from '../../../domain/license-file.js';
import { graceMinutesOf } from '../../../domain/membership-state.js';
import { readUserPlans } from './user-plans.js';
import { retryingWhileMoved } from './counter-swap.js';
import { deviceOfMachine, writeSighting } from './device-store.js';
import { floatingSeatOf, takeFloatingSeat } from './floating-seats.js';
import { inAddressLane, settleSucceededTurn } from './throttle-store.js';
import { revokeFamily } from './refresh-revocations.js';

/** The user's live sessions, all a session plan needs: expired, revoked and lapsed ones are filtered
 * out here rather than loaded, and sessions_user_live_idx holds only the unrevoked ones. */
export function liveSessionsOf(d: Dialect, tx: Db, userId: string, now: number) {
  const { sessions } = d.t;
  const liveFields = {
    id: sessions.id,
    hardwareId: sessions.hardwareId,
    expiresAt: sessions.expiresAt,
    revokedAt: sessions.revokedAt,
    legacy: sessions.legacy,
    address: sessions.address,
    leaseExpiresAt: sessions.leaseExpiresAt,
  };
  // A borrowed seat is no session of the user's: it counts among the license's seats only.
  return tx
    .select(liveFields)
    .from(sessions)
    .where(and(eq(sessions.userId, userId), sessionLiveAt(d, now), eq(sessions.borrowed, false)));
}

export function sessionStore(d: Dialect, reads: Lookups, recordEvents: RecordEvents): SessionStore {
  const { sessions, loginDays } = d.t;
  const liveSessions = (tx: Db, userId: string, now: number) => liveSessionsOf(d, tx, userId, now);
  return {
    async openSession({ session, device, cap, now, ip, turn, deviceInfo, refreshToken, floatingLease }, actor) {
      const open = () =>
        d.transaction(async (tx) => {
          // Re-read under the lock: the password was checked outside (docs/architecture.md, "Persistence notes").
          const { applicationId, userId, hardwareId } = session;
          // Without device admission a machine may still be a device (a code of several holders).
          const [locked, banned, known, current, unadmitted] = await Promise.all([
            findUser(d, tx, applicationId, userId, true),
            userBanned(d, tx, applicationId, userId),
            device === null ? null : machinesOf(d, tx, userId, now),
            liveSessions(tx, userId, now),
            device === null && hardwareId !== null ? deviceOfMachine(d, tx, userId, hardwareId) : null,
          ]);
          const user = assertAdmitted(locked, banned, now, await graceUnderLock(d, tx, locked, now));
          const seen = { info: deviceInfo ?? {}, ip: ip ?? null };
          const registered = device === null || known === null ? [] : await admit(d, tx, user, device, now, known, seen);
          // A known device's sighting, from the rows read above (docs/machines.md, "Devices").
          const stored = unadmitted ?? (registered.length === 0 ? known?.registered.find((r) => r.hardwareId === hardwareId) : undefined);
          if (stored !== undefined && stored !== null) await writeSighting(d, tx, stored, seen.info, seen.ip, now);
          const { replace } = planSession(current, session.hardwareId, cap, now);
          // A floating license's seats are counted under its row lock (docs/machines.md, "Floating seats").
          const seat = await floatingSeatOf(d, tx, user);
          if (seat !== null) await takeFloatingSeat(d, tx, seat, session, replace, now);
          const floating = seat === null ? {} : { floatingLicenseId: seat.licenseId, leaseExpiresAt: floatingLease ?? session.leaseExpiresAt };
          // The shared counter rows go last, so they are locked only until the commit.
          if (replace.length > 0) await tx.update(sessions).set({ revokedAt: now }).where(inArray(sessions.id, replace));
          await tx.insert(sessions).values({ ...session, ...floating });
          if (refreshToken !== undefined) await tx.insert(d.t.refreshTokens).values(refreshToken);
          await recordEvents(tx, actor, [...registered, sessionCreated(user, session)], now);
          if (ip !== undefined) await recordAddress(d, tx, user.id, ip, now);
          const oneMore = { target: [loginDays.applicationId, loginDays.day], set: { logins: sql`${loginDays.logins} + 1` } };
          const today = utcDayStart(session.createdAt);
          await tx.insert(loginDays).values({ applicationId, day: today, logins: 1 }).onConflictDoUpdate(oneMore);
          if (turn !== undefined) await settleSucceededTurn(d, tx, turn);
          return { deviceRegistered: registered.length > 0 };
        });
      return turn === undefined ? open() : inAddressLane(d, turn.attempt, () => retryingWhileMoved(open));
    },
    async holdLegacySession({ applicationId, userId, hardwareId, address, device, cap, newSessionId, holdMs, now }, actor) {
      const sameSeat = and(
        eq(sessions.userId, userId),
        hardwareId === null ? isNull(sessions.hardwareId) : eq(sessions.hardwareId, hardwareId),
        eq(sessions.address, address),
        eq(sessions.legacy, true),
        isNull(sessions.revokedAt),
        gt(sessions.expiresAt, now),
      );
      // The common case, a device already in use: one statement, no transaction.
      const held = { expiresAt: now + holdMs };
      const extended = await d.write((w) => w.update(sessions).set(held).where(sameSeat).returning({ id: sessions.id }));
      if (extended.length > 0) return;
      await d.transaction(async (tx) => {
        // The user's row lock orders this with logins and other legacy requests of the user.
        const user = await findUser(d, tx, applicationId, userId, true);
        if (device !== null && user !== null) await recordEvents(tx, actor, await admit(d, tx, user, device, now), now);
        const plan = planLegacyHold(await liveSessions(tx, userId, now), { hardwareId, address }, cap, now);
        if (plan.kind === 'extend') {
          await tx.update(sessions).set(held).where(eq(sessions.id, plan.id));
          return;
        }
        const seat = user === null ? null : await floatingSeatOf(d, tx, user);
        if (seat !== null) await takeFloatingSeat(d, tx, seat, { id: newSessionId, userId, hardwareId }, plan.replace, now);
        for (const id of plan.replace) await tx.update(sessions).set({ revokedAt: now }).where(eq(sessions.id, id));
        // No token is ever issued for it, so it has no digest to match.
        const legacySeat = { id: newSessionId, applicationId, userId, hardwareId, address, tokenDigest: '', createdAt: now, expiresAt: now + holdMs, revokedAt: null, legacy: true };
        await tx.insert(sessions).values({ ...legacySeat, floatingLicenseId: seat?.licenseId ?? null });
      });
    },
    async admitLicenseFileDevice({ applicationId, userId, device, capDefaults, file, now }, actor) {
      return d.transaction(async (tx) => {
        // The same re-read and row lock as a login's: parallel issuances and logins of the user queue here.
        const user = await assertStillAdmitted(d, tx, applicationId, userId, now);
        // The file grants the plans as this transaction reads them (docs/plans.md, "Entitlements").
        const plans = await readUserPlans(d, tx, applicationId, userId, user.planId);
        const drafts = device === null ? [] : await admit(d, tx, user, { ...device, allowed: admissionCaps(user, plans.base, capDefaults).devices }, now);
        const issued = {
          id: file.id,
          userId,
          hardwareId: device?.hardwareId ?? null,
          issuedAt: now,
          expiresAt: licenseFileExpiry(now, file.ttlMinutes, user.membership, graceMinutesOf(plans)),
          issuedBy: file.issuedBy,
        };
        const { issuedBy, ...row } = issued;
        await tx.insert(d.t.licenseFiles).values({ ...row, applicationId, issuedByType: issuedBy.type, issuedById: issuedBy.id });
        drafts.push(licenseFileIssued(applicationId, user, issued));
        await recordEvents(tx, actor, drafts, now);
        return { user, plans, expiresAt: issued.expiresAt };
      });
    },
    async renewLease(sessionId, leaseExpiresAt, now) {
      // One statement, no transaction: the heartbeat is the hot path (docs/machines.md, "Heartbeats and leases").
      const stillLeased = and(eq(sessions.id, sessionId), sessionLiveAt(d, now), isNotNull(sessions.leaseExpiresAt));
      const renewed = await d.write((w) => w.update(sessions).set({ leaseExpiresAt }).where(stillLeased).returning({ id: sessions.id }));
      return renewed.length > 0;
    },
    findSession: reads.findSession,
    findSessionAccess: reads.findSessionAccess,
    async purgeEndedSessions(endedBefore, batch = 1000) {
      // In batches, so no one statement holds the (SQLite) write lock for long.
      let removed = 0;
      for (;;) {
        const ids = await d.db.select({ id: sessions.id }).from(sessions).where(lt(sessions.expiresAt, endedBefore)).limit(batch);
        if (ids.length === 0) return removed;
        const batchIds = ids.map((r) => r.id);
        const stillEnded = and(inArray(sessions.id, batchIds), lt(sessions.expiresAt, endedBefore));
        const gone = await d.write((w) => w.delete(sessions).where(stillEnded).returning({ id: sessions.id }));
        removed += gone.length;
        if (ids.length < batch) return removed;
      }
    },
    async revokeSession(id, now, actor) {
      await d.transaction(async (tx) => {
        const stillLive = and(eq(sessions.id, id), isNull(sessions.revokedAt));
        const ended = { applicationId: sessions.applicationId, userId: sessions.userId, refreshFamilyId: sessions.refreshFamilyId };
        const [revoked] = await tx.update(sessions).set({ revokedAt: now }).where(stillLive).returning(ended);
        if (revoked === undefined) return;
        // Logging out of a remembered login forgets it: its refresh token ends too (docs/machines.md).
        if (revoked.refreshFamilyId !== null) await revokeFamily(d, tx, revoked.refreshFamilyId, now);
        const user = await findUser(d, tx, revoked.applicationId, revoked.userId);
        await recordEvents(tx, actor, [sessionsRevoked(revoked.applicationId, { id: revoked.userId, label: user?.username ?? null }, 'logout', 1)], now);
      });
    },
  };
}
