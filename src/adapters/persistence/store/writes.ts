// Writes shared by several store areas, always run inside the caller's transaction (`tx`).
import { and, eq, getTableColumns, gt, isNotNull, isNull, type Placeholder, type SQL, sql } from 'drizzle-orm';
import type { UserRecord } from '../../../application/records.js';
import { bannedError } from '../../../domain/bans.js';
import { admitDevice } from '../../../domain/devices.js';
import { DomainError } from '../../../domain/errors.js';
import { isMembershipActive } from '../../../domain/membership.js';
import { assertNotTimedOut } from '../../../domain/timeout.js';
import type { Instant } from '../../../domain/time.js';
import { type Db, type Dialect, isUniqueViolation } from '../dialect.js';
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

/** A login's reads, built once per dialect (Dialect.compileRead): every login makes them. */
const compiledReads = new WeakMap<Dialect, ReturnType<typeof buildReads>>();

function buildReads(d: Dialect) {
  const { users, bans, devices, licenseFiles } = d.t;
  const p = sql.placeholder;
  const userFields = getTableColumns(users);
  const ofUser = and(eq(users.applicationId, p('applicationId')), eq(users.id, p('id')));
  const user = (lock: boolean) => d.compileRead(userFields, (db) => db.select(userFields).from(users).where(ofUser), { lock });
  const banFields = { id: bans.id };
  const deviceFields = { id: devices.id, hardwareId: devices.hardwareId };
  const fileFields = { hardwareId: licenseFiles.hardwareId };
  return {
    user: user(false),
    lockedUser: user(true),
    userBan: d.compileRead(banFields, (db) =>
      db
        .select(banFields)
        .from(bans)
        .where(and(eq(bans.applicationId, p('applicationId')), eq(bans.type, 'user'), eq(bans.value, p('userId'))))
        .limit(1),
    ),
    devices: d.compileRead(deviceFields, (db) =>
      db
        .select(deviceFields)
        .from(devices)
        .where(eq(devices.userId, p('userId'))),
    ),
    fileHolders: d.compileRead(fileFields, (db) =>
      db
        .select(fileFields)
        .from(licenseFiles)
        .where(and(eq(licenseFiles.userId, p('userId')), gt(licenseFiles.expiresAt, p('now')), isNotNull(licenseFiles.hardwareId))),
    ),
  };
}

function reads(d: Dialect) {
  let built = compiledReads.get(d);
  if (built === undefined) compiledReads.set(d, (built = buildReads(d)));
  return built;
}

/**
 * The user of the application. With `lock`, the row is locked until the transaction ends
 * (PostgreSQL: FOR UPDATE; SQLite's transaction already holds the whole database): every
 * read-decide-write about one user (its devices, sessions, membership) takes this lock first, so
 * such transactions on one user run one after another, in any process.
 */
export async function findUser(d: Dialect, tx: Db, applicationId: string, userId: string, lock = false): Promise<UserRecord | null> {
  const read = lock ? reads(d).lockedUser : reads(d).user;
  const [row] = await read(tx, { applicationId, id: userId });
  return row === undefined ? null : toUser(row);
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
    db
      .update(users)
      .set({ lastIp: sql`${ip}` })
      .where(eq(users.id, userId))
      .returning({ id: users.id }),
  ];
}

/** What device admission counts for a user: registered devices, and machines holding unexpired license files. */
export interface UserMachines {
  registered: Array<{ id: string; hardwareId: string }>;
  heldByFiles: string[];
}

/** The user's machines (UserMachines), read in `tx`; the caller holds the user's row lock. */
export async function machinesOf(d: Dialect, tx: Db, userId: string, now: Instant): Promise<UserMachines> {
  const [registered, files] = await Promise.all([reads(d).devices(tx, { userId }), reads(d).fileHolders(tx, { userId, now })]);
  return { registered, heldByFiles: files.flatMap((f) => (f.hardwareId === null ? [] : [f.hardwareId])) };
}

/**
 * Admits a hardware id for a user, registering it when new; true when it registered. The caller
 * holds the user's row lock, so the machines counted here cannot change before the insert. A caller
 * that read them already (`machines`, after taking the lock) passes them in.
 */
export async function admit(d: Dialect, tx: Db, userId: string, hardwareId: string, allowed: number, newDeviceId: string, now: Instant, machines?: UserMachines): Promise<boolean> {
  const { devices } = d.t;
  const { registered, heldByFiles } = machines ?? (await machinesOf(d, tx, userId, now));
  if (admitDevice(registered, heldByFiles, hardwareId, allowed).kind === 'known') return false;
  await tx.insert(devices).values({ id: newDeviceId, userId, hardwareId, registeredAt: now });
  return true;
}

/** Whether the user is banned (a ban on the user's id), read in `tx`. */
export async function userBanned(d: Dialect, tx: Db, applicationId: string, userId: string): Promise<boolean> {
  return (await reads(d).userBan(tx, { applicationId, userId })).length > 0;
}

/**
 * Applies the domain's timeout, ban and membership rules to the user as read under its row lock
 * (findUser with `lock`), and whether it is banned, read after the lock was granted (a read that
 * ran before could miss what the lock's holder commits); the user.
 */
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
