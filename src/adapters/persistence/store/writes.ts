// Writes shared by several store areas, always run inside the caller's transaction (`tx`).
import { and, eq, gt, isNotNull, isNull, type SQL } from 'drizzle-orm';
import type { UserRecord } from '../../../application/records.js';
import { bannedError } from '../../../domain/bans.js';
import { admitDevice } from '../../../domain/devices.js';
import { DomainError } from '../../../domain/errors.js';
import { isMembershipActive } from '../../../domain/membership.js';
import { assertNotTimedOut } from '../../../domain/timeout.js';
import type { Instant } from '../../../domain/time.js';
import { type Db, type Dialect, firstRow, isUniqueViolation, ofApplication } from '../dialect.js';
import { toUser, userRow } from '../row-mappers.js';

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

/** Locks a user's row by id alone (see findUser), for callers that know no application. */
export async function lockUser(d: Dialect, tx: Db, userId: string): Promise<void> {
  const { users } = d.t;
  await d.locked(tx.select({ id: users.id }).from(users).where(eq(users.id, userId)));
}

/** Revokes the live (unrevoked, unexpired) sessions matching `where`; returns how many. Expired
 * ones are left alone: they are already unusable and keep their history. */
export async function revokeLiveSessions(d: Dialect, tx: Db, where: SQL | undefined, now: Instant): Promise<number> {
  const { sessions } = d.t;
  const live = and(where, isNull(sessions.revokedAt), gt(sessions.expiresAt, now));
  return (await tx.update(sessions).set({ revokedAt: now }).where(live).returning({ id: sessions.id })).length;
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
export interface UserMachines {
  registered: Array<{ id: string; hardwareId: string }>;
  heldByFiles: string[];
}

/** The user's machines (UserMachines), read in `tx`; the caller holds the user's row lock. */
export async function machinesOf(d: Dialect, tx: Db, userId: string, now: Instant): Promise<UserMachines> {
  const { devices, licenseFiles } = d.t;
  const boundAndUnexpired = and(eq(licenseFiles.userId, userId), gt(licenseFiles.expiresAt, now), isNotNull(licenseFiles.hardwareId));
  const [registered, files] = await Promise.all([
    tx.select({ id: devices.id, hardwareId: devices.hardwareId }).from(devices).where(eq(devices.userId, userId)),
    tx.select({ hardwareId: licenseFiles.hardwareId }).from(licenseFiles).where(boundAndUnexpired),
  ]);
  return { registered, heldByFiles: files.flatMap((f) => (f.hardwareId === null ? [] : [f.hardwareId])) };
}

/** Admits a hardware id for a user, registering it when new; true when it registered. The caller
 * holds the user's row lock; `machines`, when it read them already under it. */
export async function admit(d: Dialect, tx: Db, userId: string, hardwareId: string, allowed: number, newDeviceId: string, now: Instant, machines?: UserMachines): Promise<boolean> {
  const { devices } = d.t;
  const { registered, heldByFiles } = machines ?? (await machinesOf(d, tx, userId, now));
  if (admitDevice(registered, heldByFiles, hardwareId, allowed).kind === 'known') return false;
  await tx.insert(devices).values({ id: newDeviceId, userId, hardwareId, registeredAt: now });
  return true;
}

/** Whether the user is banned (a ban on the user's id), read in `tx`. */
export async function userBanned(d: Dialect, tx: Db, applicationId: string, userId: string): Promise<boolean> {
  const { bans } = d.t;
  const banOfUser = and(eq(bans.applicationId, applicationId), eq(bans.type, 'user'), eq(bans.value, userId));
  return (await tx.select({ id: bans.id }).from(bans).where(banOfUser).limit(1)).length > 0;
}

/** The user, once the domain's timeout, ban and membership rules pass, all read under its row lock (docs/architecture.md, "Persistence notes"). */
export function admitted(user: UserRecord | null, banned: boolean, now: Instant): UserRecord {
  if (user === null) throw new DomainError('INVALID_CREDENTIALS', 'invalid credentials');
  if (banned) throw bannedError();
  assertNotTimedOut(user.timeout, now);
  if (!isMembershipActive(user.membership, now)) {
    throw new DomainError('MEMBERSHIP_INACTIVE', 'the membership of this account is not active');
  }
  return user;
}

/** admitted, with the ban read now (after the caller took the user's row lock). */
export async function assertAdmitted(d: Dialect, tx: Db, applicationId: string, user: UserRecord | null, now: Instant): Promise<UserRecord> {
  return admitted(user, user !== null && (await userBanned(d, tx, applicationId, user.id)), now);
}

/** Re-reads (and locks) the user inside a transaction, then assertAdmitted. */
export async function assertStillAdmitted(d: Dialect, tx: Db, applicationId: string, userId: string, now: Instant): Promise<UserRecord> {
  return assertAdmitted(d, tx, applicationId, await findUser(d, tx, applicationId, userId, true), now);
}
