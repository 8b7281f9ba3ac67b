// The refresh of a lasting session, one transaction under the user's row lock (docs/machines.md,
// "Refresh tokens"): a reuse's revocation is returned, not thrown, so that it commits.
import { and, eq, isNull } from 'drizzle-orm';
import type { RefreshTokenStore } from '../../../application/ports/refresh-token-store.js';
import { refreshReused, sessionCreated, sessionsRevoked } from '../../../application/events/event-facts.js';
import { assertAdmitted } from '../../../domain/admission.js';
import { decideRefresh } from '../../../domain/refresh-tokens.js';
import { planSession } from '../../../domain/sessions.js';
import { type Db, type Dialect, exists, firstRow } from '../dialect.js';
import type { RecordEvents } from './event-log.js';
import { floatingSeatOf, takeFloatingSeat } from './floating-seats.js';
import { revokeFamily } from './refresh-revocations.js';
import { liveSessionsOf } from './session-store.js';
import { findUser, graceUnderLock, recordAddress, userBanned } from './writes.js';

export function refreshTokenStore(d: Dialect, recordEvents: RecordEvents): RefreshTokenStore {
  const { refreshTokens: r, sessions, devices } = d.t;
  const byDigest = (db: Db, digest: string) => firstRow(d, db.select().from(r).where(eq(r.tokenDigest, digest)));
  return {
    findRefreshToken: (digest) => byDigest(d.db, digest),
    async refreshSession({ applicationId, tokenDigest, hardwareId, rotation, now, ip }, actor) {
      return d.transaction(async (tx) => {
        const seen = await byDigest(tx, tokenDigest);
        if (seen === null || seen.applicationId !== applicationId) return { kind: 'invalid' as const };
        // Locked first, then read again: a parallel refresh of the same token spent it meanwhile.
        const locked = await findUser(d, tx, applicationId, seen.userId, true);
        const token = await byDigest(tx, tokenDigest);
        if (locked === null || token === null) return { kind: 'invalid' as const };
        const decision = decideRefresh(token, { applicationId, hardwareId }, now);
        if (decision === 'reuse') {
          const ended = await revokeFamily(d, tx, token.familyId, now);
          const who = { id: locked.id, label: locked.username };
          const revoked = ended === 0 ? [] : [sessionsRevoked(applicationId, who, 'refresh_reused', ended)];
          await recordEvents(tx, actor, [refreshReused(locked, { id: token.familyId, hardwareId: token.hardwareId, sessionsRevoked: ended }), ...revoked], now);
          return { kind: 'reused' as const };
        }
        if (decision === 'invalid' || rotation === null) return { kind: 'invalid' as const };
        const user = assertAdmitted(locked, await userBanned(d, tx, applicationId, locked.id), now, await graceUnderLock(d, tx, locked, now));
        const ownDevice = and(eq(devices.userId, user.id), eq(devices.hardwareId, token.hardwareId));
        if (rotation.deviceAuth && !(await exists(tx.select({ id: devices.id }).from(devices).where(ownDevice)))) return { kind: 'invalid' as const };
        // The family's session ends first, so a refresh never needs a seat of its own.
        await tx
          .update(sessions)
          .set({ revokedAt: now })
          .where(and(eq(sessions.refreshFamilyId, token.familyId), isNull(sessions.revokedAt)));
        const { replace } = planSession(await liveSessionsOf(d, tx, user.id, now), token.hardwareId, rotation.cap, now);
        for (const id of replace) await tx.update(sessions).set({ revokedAt: now }).where(eq(sessions.id, id));
        const session = { ...rotation.session, userId: user.id, hardwareId: token.hardwareId, refreshFamilyId: token.familyId };
        // A floating license's seat is taken as at login: a refresh never outruns the seats.
        const seat = await floatingSeatOf(d, tx, user);
        if (seat !== null) await takeFloatingSeat(d, tx, seat, session, replace, now);
        const floating = seat === null ? {} : { floatingLicenseId: seat.licenseId, leaseExpiresAt: rotation.floatingLease };
        await tx.insert(sessions).values({ ...session, ...floating });
        await tx
          .update(r)
          .set({ spentAt: now })
          .where(and(eq(r.id, token.id), isNull(r.spentAt)));
        await tx.insert(r).values({ ...rotation.next, userId: user.id, familyId: token.familyId, hardwareId: token.hardwareId, sessionId: session.id });
        await recordEvents(tx, actor, [sessionCreated(user, session)], now);
        if (ip !== undefined) await recordAddress(d, tx, user.id, ip, now);
        return { kind: 'rotated' as const, user };
      });
    },
  };
}
