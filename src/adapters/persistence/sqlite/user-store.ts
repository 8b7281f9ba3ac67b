// End users: sign-up, lookups, owner changes (limits, timeouts, devices, bulk adjustments).
// License redemption lives in license-store.ts.
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { UserStore } from '../../../application/ports.js';
import { usernameKey } from '../../../domain/credentials-policy.js';
import { applyBulkChange, validateBulkChange } from '../../../domain/membership.js';
import { type Connection, chunks } from './db.js';
import { membershipColumns, toAdjustment, toDevice, toUser } from '../row-mappers.js';
import { adjustments, devices, sessions, userIps, users } from './schema.js';
import { findUser, insertAdjustment, insertDevice, insertUser, revokeLiveSessions } from './writes.js';

type UserArea = Omit<UserStore, 'signUpWithLicense' | 'activateLicense' | 'redeemedLicenseIds'>;

export function userStore({ db, reads, immediate }: Connection): UserArea {
  const found = (row: Parameters<typeof toUser>[0] | undefined) => (row ? toUser(row) : null);
  return {
    async signUp({ user, device }) {
      return immediate((tx) => {
        insertUser(tx, user);
        insertDevice(tx, device);
        return user;
      });
    },
    async findUserByUsernameKey(applicationId, key) {
      return found(reads.userByUsernameKey.get({ applicationId, usernameKey: key }));
    },
    async findUserById(applicationId, id) {
      return findUser(reads, applicationId, id);
    },
    async findUserByLicenseId(applicationId, licenseId) {
      return found(reads.userByLicenseId.get({ applicationId, licenseId }));
    },
    async getUserDetails(applicationId, userId) {
      // One read transaction so the user, devices and adjustments are a consistent snapshot.
      return db.transaction((tx) => {
        const user = findUser(reads, applicationId, userId);
        if (user === null) return null;
        const userDevices = tx
          .select()
          .from(devices)
          .where(eq(devices.userId, userId))
          .orderBy(asc(devices.registeredAt), asc(devices.id))
          .all()
          .map(toDevice);
        const history = tx
          .select()
          .from(adjustments)
          .where(eq(adjustments.userId, userId))
          // Same-instant adjustments keep the order they were written in (rowid), not their random ids.
          .orderBy(asc(adjustments.occurredAt), asc(sql`rowid`))
          .all()
          .map(toAdjustment);
        return { user, devices: userDevices, adjustments: history };
      });
    },
    async searchUsers(applicationId, query, page) {
      // Match against the stored case-folded key with the same folding the domain uses, so
      // non-ASCII letters compare case-insensitively too (SQLite's lower() folds ASCII only).
      // instr() takes the needle literally: no LIKE wildcards to escape.
      const needle = usernameKey(query);
      const contains = needle === '' ? undefined : sql`instr(${users.usernameKey}, ${needle}) > 0`;
      return db
        .select()
        .from(users)
        .where(and(eq(users.applicationId, applicationId), contains))
        .orderBy(asc(users.createdAt), asc(users.id))
        .limit(page.limit)
        .offset(page.offset)
        .all()
        .map(toUser);
    },
    async updateUserLimits(applicationId, userId, limits) {
      const set = {
        ...(limits.allowedDevices !== undefined ? { allowedDevices: limits.allowedDevices } : {}),
        ...(limits.allowedSessions !== undefined ? { allowedSessions: limits.allowedSessions } : {}),
      };
      const mine = and(eq(users.applicationId, applicationId), eq(users.id, userId));
      if (Object.keys(set).length > 0) db.update(users).set(set).where(mine).run();
      return findUser(reads, applicationId, userId);
    },
    async setUserTimeout(applicationId, userId, timeout, now) {
      return immediate((tx) => {
        const changed = tx
          .update(users)
          .set({ timedOutUntil: timeout?.until ?? null, timeoutReason: timeout?.reason ?? null })
          .where(and(eq(users.applicationId, applicationId), eq(users.id, userId)))
          .run().changes;
        if (changed === 0) return false;
        if (timeout !== null) revokeLiveSessions(tx, eq(sessions.userId, userId), now);
        return true;
      });
    },
    async deleteDevice(applicationId, userId, deviceId, now) {
      return immediate((tx) => {
        if (findUser(reads, applicationId, userId) === null) return false;
        const device = tx
          .select()
          .from(devices)
          .where(and(eq(devices.id, deviceId), eq(devices.userId, userId)))
          .get();
        if (!device) return false;
        tx.delete(devices).where(eq(devices.id, deviceId)).run();
        revokeLiveSessions(tx, and(eq(sessions.userId, userId), eq(sessions.hardwareId, device.hardwareId)), now);
        return true;
      });
    },
    async revokeUserSessions(applicationId, userId, now) {
      return revokeLiveSessions(db, and(eq(sessions.applicationId, applicationId), eq(sessions.userId, userId)), now);
    },
    async bulkAdjust(applicationId, userIds, change, now, newId) {
      // Refuse a bad change before opening the transaction: nothing can have been written.
      validateBulkChange(change);
      const ids = [...new Set(userIds)];
      return immediate((tx) => {
        let adjusted = 0;
        for (const part of chunks(ids)) {
          const rows = tx
            .select()
            .from(users)
            .where(and(eq(users.applicationId, applicationId), inArray(users.id, part)))
            .all();
          for (const user of rows.map(toUser)) {
            const { membership, adjustment } = applyBulkChange(user.membership, change, now, newId());
            tx.update(users).set(membershipColumns(membership)).where(eq(users.id, user.id)).run();
            insertAdjustment(tx, { ...adjustment, applicationId, userId: user.id });
            adjusted++;
          }
        }
        return adjusted;
      });
    },
    async recordIp(userId, ip, now) {
      db.transaction((tx) => {
        tx.insert(userIps)
          .values({ userId, ip, firstSeen: now, lastSeen: now })
          .onConflictDoUpdate({ target: [userIps.userId, userIps.ip], set: { lastSeen: now } })
          .run();
        tx.update(users).set({ lastIp: ip }).where(eq(users.id, userId)).run();
      });
    },
    async updatePasswordHash(userId, passwordHash) {
      db.update(users).set({ passwordHash }).where(eq(users.id, userId)).run();
    },
  };
}
