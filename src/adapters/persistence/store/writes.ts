// Writes shared by several store areas, always run inside the caller's transaction (`tx`).
import { and, eq, gt, isNull, type Placeholder, type SQL, sql } from 'drizzle-orm';
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

/**
 * The user of the application. With `lock`, the row is locked until the transaction ends
 * (PostgreSQL: FOR UPDATE; SQLite's transaction already holds the whole database): every
 * read-decide-write about one user (its devices, sessions, membership) takes this lock first, so
 * such transactions on one user run one after another, in any process.
 */
export async function findUser(d: Dialect, tx: Db, applicationId: string, userId: string, lock = false): Promise<UserRecord | null> {
  const { users } = d.t;
  const row = await firstRow(d, tx.select().from(users).where(ofApplication(users, applicationId, userId)), lock);
  return row && toUser(row);
}

/** Locks a user's row by id alone (see findUser), for callers that know no application. */
export async function lockUser(d: Dialect, tx: Db, userId: string): Promise<void> {
  const { users } = d.t;
  await d.locked(tx.select({ id: users.id }).from(users).where(eq(users.id, userId)));
}

/**
 * Revokes the live (unrevoked, unexpired) sessions matching `where`; returns how many. Expired
 * ones are left alone: they are already unusable and keep their history.
 */
export async function revokeLiveSessions(d: Dialect, tx: Db, where: SQL | undefined, now: Instant): Promise<number> {
  const { sessions } = d.t;
  const revoked = await tx
    .update(sessions)
    .set({ revokedAt: now })
    .where(and(where, isNull(sessions.revokedAt), gt(sessions.expiresAt, now)))
    .returning({ id: sessions.id });
  return revoked.length;
}

/**
 * The writes that record an address a user signed in from (UserStore.recordIp): each returns a
 * row when it applied, so a caller may run them all or none. Each value may be a placeholder, for
 * writes built once (Dialect.allOrNone).
 */
export function addressWrites(d: Dialect, db: Db, userId: string | Placeholder, ip: string | Placeholder, now: Instant | Placeholder) {
  const { userIps, users } = d.t;
  return [
    db
      .insert(userIps)
      .values({ userId, ip, firstSeen: now, lastSeen: now })
      .onConflictDoUpdate({ target: [userIps.userId, userIps.ip], set: { lastSeen: sql`${now}` } })
      .returning({ userId: userIps.userId }),
    db.update(users).set({ lastIp: sql`${ip}` }).where(eq(users.id, userId)).returning({ id: users.id }),
  ];
}

/** The user's registered devices, as device admission counts them. */
export function devicesOf(d: Dialect, tx: Db, userId: string) {
  const { devices } = d.t;
  return tx.select({ id: devices.id, hardwareId: devices.hardwareId }).from(devices).where(eq(devices.userId, userId));
}

/**
 * Admits a hardware id for a user, registering it when new; true when it registered. The caller
 * holds the user's row lock, so the devices counted here cannot change before the insert. A caller
 * that read them already (`registered`, after taking the lock) passes them in.
 */
export async function admit(
  d: Dialect,
  tx: Db,
  userId: string,
  hardwareId: string,
  allowed: number,
  newDeviceId: string,
  now: Instant,
  registered?: Array<{ id: string; hardwareId: string }>,
): Promise<boolean> {
  const { devices } = d.t;
  if (admitDevice(registered ?? (await devicesOf(d, tx, userId)), hardwareId, allowed).kind === 'known') return false;
  await tx.insert(devices).values({ id: newDeviceId, userId, hardwareId, registeredAt: now });
  return true;
}

/**
 * Applies the domain's timeout, ban and membership rules to the user as read under its row lock
 * (findUser with `lock`); the user. Its ban is read here, after the lock was granted, as it must
 * be (a read issued before could miss what the lock's holder commits), so a caller may read more
 * under the lock in the same round trip.
 */
export async function assertAdmitted(d: Dialect, tx: Db, applicationId: string, user: UserRecord | null, now: Instant): Promise<UserRecord> {
  if (user === null) throw new DomainError('INVALID_CREDENTIALS', 'invalid credentials');
  const { bans } = d.t;
  const [userBan] = await tx
    .select({ id: bans.id })
    .from(bans)
    .where(and(eq(bans.applicationId, applicationId), eq(bans.type, 'user'), eq(bans.value, user.id)))
    .limit(1);
  if (userBan) throw bannedError();
  assertNotTimedOut(user.timeout, now);
  if (!isMembershipActive(user.membership, now)) {
    throw new DomainError('MEMBERSHIP_INACTIVE', 'the membership of this account is not active');
  }
  return user;
}

/** Re-reads (and locks) the user inside a transaction, then assertAdmitted. */
export async function assertStillAdmitted(d: Dialect, tx: Db, applicationId: string, userId: string, now: Instant): Promise<UserRecord> {
  return assertAdmitted(d, tx, applicationId, await findUser(d, tx, applicationId, userId, true), now);
}
