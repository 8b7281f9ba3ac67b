// Reads and writes shared by several store areas, run in the caller's transaction (`tx`) or over the reads' `db`.
import { and, eq, gt, isNotNull, isNull, or } from 'drizzle-orm';
import type { EventDraft } from '../../../application/events/event-draft.js';
import { deviceRegistered, sessionsRevoked } from '../../../application/events/event-facts.js';
import type { LicenseRecord, UserRecord } from '../../../application/records.js';
import { assertAdmitted } from '../../../domain/admission.js';
import { admitDevice, type DeviceToAdmit } from '../../../domain/devices.js';
import { DomainError } from '../../../domain/errors.js';
import { isMembershipActive } from '../../../domain/membership.js';
import type { Instant } from '../../../domain/time.js';
import { type Db, type Dialect, exists, firstRow, isUniqueViolation, ofApplication } from '../dialect.js';
import { toUser, userRow } from '../row-mappers.js';
import { newDevice, type Sighting } from '../../../application/new-device.js';
import type { Tables } from '../tables.js';

/** Inserts a user, reporting a clash of its case-folded name as USERNAME_TAKEN. */
export async function insertUser(d: Dialect, tx: Db, user: UserRecord): Promise<void> {
  const { users } = d.t;
  try {
    await tx.insert(users).values(userRow(user));
  } catch (e) {
    if (isUniqueViolation(d, e, users.usernameKey)) throw new DomainError('USERNAME_TAKEN', 'this username is taken');
    throw e;
  }
}

/** The user of the application; with `lock`, locked until the transaction ends (docs/architecture.md, "The user's lock"). */
export async function findUser(d: Dialect, tx: Db, applicationId: string, userId: string, lock = false): Promise<UserRecord | null> {
  const { users } = d.t;
  const mine = ofApplication(users, applicationId, userId);
  const row = await firstRow(d, tx.select().from(users).where(mine), lock);
  return row === null ? null : toUser(row);
}

/** The license of the application with this digest; with `lock`, its row is locked until the transaction ends. */
export async function findByDigest(d: Dialect, tx: Db, applicationId: string, codeDigest: string, lock = false): Promise<LicenseRecord | null> {
  const { licenses } = d.t;
  const digested = and(eq(licenses.applicationId, applicationId), eq(licenses.codeDigest, codeDigest));
  return firstRow(d, tx.select().from(licenses).where(digested), lock);
}

/** Locks a user's row by id alone (see findUser), for callers that know no application. */
export async function lockUser(d: Dialect, tx: Db, userId: string): Promise<void> {
  const { users } = d.t;
  await d.locked(tx.select({ id: users.id }).from(users).where(eq(users.id, userId)));
}

/** isSessionLive as SQL: unrevoked, unexpired, and within its lease where it holds one. */
export function sessionLiveAt(d: Dialect, now: Instant) {
  const { sessions } = d.t;
  return and(isNull(sessions.revokedAt), gt(sessions.expiresAt, now), or(isNull(sessions.leaseExpiresAt), gt(sessions.leaseExpiresAt, now)));
}

/** Revokes the user's live sessions (sessionLiveAt), only those on `hardwareId` when given; returns
 * how many. Expired and lapsed ones are left alone: they are already unusable and keep their history. */
export async function revokeLiveSessions(d: Dialect, tx: Db, applicationId: string, userId: string, now: Instant, hardwareId?: string): Promise<number> {
  const { sessions } = d.t;
  const onDevice = hardwareId === undefined ? undefined : eq(sessions.hardwareId, hardwareId);
  const live = and(eq(sessions.applicationId, applicationId), eq(sessions.userId, userId), onDevice, sessionLiveAt(d, now));
  return (await tx.update(sessions).set({ revokedAt: now }).where(live).returning({ id: sessions.id })).length;
}

/** revokeLiveSessions for a change to `user`, and the session.revoked event (reason `why`) when any ended. */
export async function endSessions(d: Dialect, tx: Db, user: UserRecord, why: string, now: Instant, hardwareId?: string): Promise<EventDraft[]> {
  const revoked = await revokeLiveSessions(d, tx, user.applicationId, user.id, now, hardwareId);
  return revoked === 0 ? [] : [sessionsRevoked(user.applicationId, { id: user.id, label: user.username }, why, revoked)];
}

/** Records an address a user signed in from (UserStore.recordIp), in `tx`: the user's last address
 * first, which locks its row, then the address, only if the user is still there. */
export async function recordAddress(d: Dialect, tx: Db, userId: string, ip: string, now: Instant): Promise<void> {
  const { userIps, users } = d.t;
  const updated = await tx.update(users).set({ lastIp: ip }).where(eq(users.id, userId)).returning({ id: users.id });
  if (updated.length === 0) return;
  const seenAgain = { target: [userIps.userId, userIps.ip], set: { lastSeen: now } };
  await tx.insert(userIps).values({ userId, ip, firstSeen: now, lastSeen: now }).onConflictDoUpdate(seenAgain);
}

/** What device admission counts for a user: registered devices, and machines holding unexpired license files. */
interface UserMachines {
  registered: Array<Tables['devices']['$inferSelect']>;
  heldByFiles: string[];
}

/** The user's machines (UserMachines), read in `tx`; the caller holds the user's row lock. */
export async function machinesOf(d: Dialect, tx: Db, userId: string, now: Instant): Promise<UserMachines> {
  const { devices, licenseFiles } = d.t;
  const boundAndUnexpired = and(eq(licenseFiles.userId, userId), gt(licenseFiles.expiresAt, now), isNotNull(licenseFiles.hardwareId));
  const [registered, files] = await Promise.all([
    // Whole rows: a login writes its sighting of the known device from them (device-store.ts).
    tx.select().from(devices).where(eq(devices.userId, userId)),
    tx.select({ hardwareId: licenseFiles.hardwareId }).from(licenseFiles).where(boundAndUnexpired),
  ]);
  return { registered, heldByFiles: files.flatMap((f) => (f.hardwareId === null ? [] : [f.hardwareId])) };
}

/** Admits `device` for `user` (admitDevice), registering it when new: then the device.registered
 * event. The caller holds the user's row lock; `machines`, when it read them already under it.
 * With `seen`, a new device is registered with what its machine said and its address. */
export async function admit(d: Dialect, tx: Db, user: UserRecord, device: DeviceToAdmit, now: Instant, machines?: UserMachines, seen?: Sighting): Promise<EventDraft[]> {
  const { registered, heldByFiles } = machines ?? (await machinesOf(d, tx, user.id, now));
  if (admitDevice(registered, heldByFiles, device.hardwareId, device.allowed).kind === 'known') return [];
  const added = newDevice({ id: device.newDeviceId, userId: user.id, hardwareId: device.hardwareId, registeredAt: now }, seen);
  await tx.insert(d.t.devices).values(added);
  return [deviceRegistered(user.applicationId, user, added)];
}

/** Whether the user is banned (a ban on the user's id), read in `tx`. */
export async function userBanned(d: Dialect, tx: Db, applicationId: string, userId: string): Promise<boolean> {
  const { bans } = d.t;
  const banOfUser = and(eq(bans.applicationId, applicationId), eq(bans.type, 'user'), eq(bans.value, userId));
  return exists(tx.select({ id: bans.id }).from(bans).where(banOfUser));
}

/** Re-reads (and locks) the user inside a transaction, then the domain's assertAdmitted, with the
 * ban read after the lock was granted (docs/architecture.md, "Persistence notes"). */
export async function assertStillAdmitted(d: Dialect, tx: Db, applicationId: string, userId: string, now: Instant): Promise<UserRecord> {
  const user = await findUser(d, tx, applicationId, userId, true);
  return assertAdmitted(user, user !== null && (await userBanned(d, tx, applicationId, user.id)), now, await graceUnderLock(d, tx, user, now));
}

/** The grace of the user's base plan as it is now, read only when it matters: a membership that
 * is active, or holds no plan, needs none (docs/plans.md, "Grace"). */
export async function graceUnderLock(d: Dialect, tx: Db, user: UserRecord | null, now: Instant): Promise<number> {
  if (user === null || user.planId === null || isMembershipActive(user.membership, now)) return 0;
  const { plans } = d.t;
  const row = await firstRow(
    d,
    tx
      .select({ graceMinutes: plans.graceMinutes })
      .from(plans)
      .where(ofApplication(plans, user.applicationId, user.planId)),
  );
  return row?.graceMinutes ?? 0;
}
