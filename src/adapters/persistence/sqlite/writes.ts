// Writes shared by several store areas, always run inside the caller's transaction.
import { and, gt, isNull, type SQL } from 'drizzle-orm';
import type { AdjustmentRecord, DeviceRecord, UserRecord } from '../../../application/ports.js';
import { bannedError } from '../../../domain/bans.js';
import { admitDevice } from '../../../domain/devices.js';
import { DomainError } from '../../../domain/errors.js';
import { isMembershipActive } from '../../../domain/membership.js';
import { assertNotTimedOut } from '../../../domain/timeout.js';
import type { Instant } from '../../../domain/time.js';
import { type Db, isUniqueViolation } from './db.js';
import type { HotReads } from './hot-reads.js';
import { adjustmentRow, toUser, userRow } from '../row-mappers.js';
import { adjustments, devices, sessions, users } from './schema.js';

/** Inserts a user, reporting a clash of its case-folded name as USERNAME_TAKEN. */
export function insertUser(tx: Db, user: UserRecord): void {
  try {
    tx.insert(users).values(userRow(user)).run();
  } catch (e) {
    if (isUniqueViolation(e, 'users.username_key')) throw new DomainError('USERNAME_TAKEN', 'this username is taken');
    throw e;
  }
}

export function insertDevice(tx: Db, device: DeviceRecord | null): void {
  if (device !== null) tx.insert(devices).values(device).run();
}

export function insertAdjustment(tx: Db, adjustment: AdjustmentRecord): void {
  tx.insert(adjustments).values(adjustmentRow(adjustment)).run();
}

/** Inside a transaction on the connection too: the prepared reads run on it (prepared-read.ts). */
export function findUser(reads: HotReads, applicationId: string, userId: string): UserRecord | null {
  const row = reads.userById.get({ applicationId, id: userId });
  return row ? toUser(row) : null;
}

/**
 * Revokes the live (unrevoked, unexpired) sessions matching `where`; returns how many. Expired
 * ones are left alone: they are already unusable and keep their history.
 */
export function revokeLiveSessions(tx: Db, where: SQL | undefined, now: Instant): number {
  return tx
    .update(sessions)
    .set({ revokedAt: now })
    .where(and(where, isNull(sessions.revokedAt), gt(sessions.expiresAt, now)))
    .run().changes;
}

/** Admits a hardware id for a user, registering it when new; true when it registered. */
export function admit(tx: Db, reads: HotReads, userId: string, hardwareId: string, allowed: number, newDeviceId: string, now: Instant): boolean {
  const registered = reads.devicesOfUser.all({ userId });
  if (admitDevice(registered, hardwareId, allowed).kind === 'known') return false;
  tx.insert(devices).values({ id: newDeviceId, userId, hardwareId, registeredAt: now }).run();
  return true;
}

/** Re-reads the user inside a transaction and applies the domain's timeout, ban and membership rules. */
export function assertStillAdmitted(reads: HotReads, applicationId: string, userId: string, now: Instant): void {
  const user = findUser(reads, applicationId, userId);
  if (user === null) throw new DomainError('INVALID_CREDENTIALS', 'invalid credentials');
  if (reads.userBan.get({ applicationId, userId })) throw bannedError();
  assertNotTimedOut(user.timeout, now);
  if (!isMembershipActive(user.membership, now)) {
    throw new DomainError('MEMBERSHIP_INACTIVE', 'the membership of this account is not active');
  }
}
