// End users: sign-up, lookups, owner changes (limits, timeouts, devices, bulk adjustments).
// License redemption lives in license-store.ts.
import { revokeRefreshTokens } from './refresh-revocations.js';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { UserStore } from '../../../application/ports/user-store.js';
import { usernameKey } from '../../../domain/credentials-policy.js';
import { planDeviceReset } from '../../../domain/device-reset.js';
import { DomainError } from '../../../domain/errors.js';
import { applyBulkChange, validateBulkChange } from '../../../domain/membership.js';
import { chunks, type Dialect, exists, listOrder, ofApplication } from '../dialect.js';
import type { Lookups } from './lookups.js';
import { membershipColumns, timeoutColumns, toAdjustment, toUser, toDevice } from '../row-mappers.js';
import { readUserPlans } from './user-plans.js';
import { endSessions, findUser, insertUser, recordAddress, revokeLiveSessions } from './writes.js';
import type { RecordEvents } from './event-log.js';
import { deviceRegistered, deviceRemoved, membershipAdjusted, sessionsRevoked, userCreated, userTimedOut, userTimeoutLifted } from '../../../application/events/event-facts.js';

type UserArea = Omit<UserStore, 'signUpWithLicense' | 'activateLicense' | 'redeemWithTurns' | 'redeemedLicenseIds'>;

/** `text` as a LIKE pattern that matches it literally: its wildcards (and the escape) escaped with `\`. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

export function userStore(d: Dialect, reads: Lookups, recordEvents: RecordEvents): UserArea {
  const { db } = d;
  const { adjustments, applications, devices, userIps, users } = d.t;
  const { oldestFirst } = listOrder(d);
  const usersOf = (applicationId: string, ids: string[]) => and(eq(users.applicationId, applicationId), inArray(users.id, ids));
  return {
    async signUp({ user, device, now }, actor) {
      return d.transaction(async (tx) => {
        // A clash of the username waits for the other insert and fails on the unique constraint.
        await insertUser(d, tx, user);
        if (device !== null) await tx.insert(devices).values(device);
        await recordEvents(tx, actor, [userCreated(user, 'sign_up', now), ...(device === null ? [] : [deviceRegistered(user.applicationId, user, device)])], now);
        return user;
      });
    },
    findUserByUsernameKey: reads.findUserByUsernameKey,
    findUserById: reads.findUserById,
    findLicenseHolders: reads.findLicenseHolders,
    findLicenseHoldersByDevice: reads.findLicenseHoldersByDevice,
    async usernamesOf(applicationId, ids) {
      const names = new Map<string, string>();
      for (const part of chunks(ids)) {
        const rows = await db.select({ id: users.id, username: users.username }).from(users).where(usersOf(applicationId, part));
        for (const r of rows) names.set(r.id, r.username);
      }
      return names;
    },
    async getUserDetails(applicationId, userId) {
      // One read-only snapshot so the user, devices and adjustments are consistent.
      return d.snapshot(async (tx) => {
        const user = await findUser(d, tx, applicationId, userId);
        if (user === null) return null;
        const userDevices = (await tx.select().from(devices).where(eq(devices.userId, userId)).orderBy(oldestFirst(devices.registeredAt, devices.id))).map(toDevice);
        // Same-instant adjustments by id (docs/architecture.md, "Persistence notes").
        const history = (await tx.select().from(adjustments).where(eq(adjustments.userId, userId)).orderBy(oldestFirst(adjustments.occurredAt, adjustments.id))).map(toAdjustment);
        const plans = await readUserPlans(d, tx, applicationId, userId, user.planId);
        const [capDefaults] = await tx
          .select({ defaultAllowedDevices: applications.defaultAllowedDevices, defaultAllowedSessions: applications.defaultAllowedSessions })
          .from(applications)
          .where(eq(applications.id, applicationId));
        if (capDefaults === undefined) return null;
        return { user, devices: userDevices, adjustments: history, plans, capDefaults };
      });
    },
    findUserPlans: (applicationId, userId, planId) => readUserPlans(d, db, applicationId, userId, planId),
    async setUserEntitlements(applicationId, userId, entitlements) {
      // Direct entitlements are one JSON column, as a plan's are (docs/plans.md, "Entitlements").
      const set = { entitlements: JSON.stringify(entitlements) };
      const [row] = await d.write((w) =>
        w
          .update(users)
          .set(set)
          .where(ofApplication(users, applicationId, userId))
          .returning(),
      );
      return row === undefined ? null : toUser(row);
    },
    async searchUsers(applicationId, query, page) {
      // Both sides folded by usernameKey(); LIKE with ESCAPE (docs/architecture.md, "Username search").
      const needle = usernameKey(query);
      const contains = needle === '' ? undefined : sql`${users.usernameKey} like ${`%${likeLiteral(needle)}%`} escape '\\'`;
      const matching = and(eq(users.applicationId, applicationId), contains);
      const rows = await db.select().from(users).where(matching).orderBy(oldestFirst(users.createdAt, users.id)).limit(page.limit).offset(page.offset);
      return rows.map(toUser);
    },
    async updateUserLimits(applicationId, userId, { allowedDevices, allowedSessions }) {
      // drizzle leaves a field that is undefined out of the SET, and refuses an empty SET.
      if (allowedDevices !== undefined || allowedSessions !== undefined) {
        const theUser = ofApplication(users, applicationId, userId);
        await d.write((w) => w.update(users).set({ allowedDevices, allowedSessions }).where(theUser));
      }
      return findUser(d, db, applicationId, userId);
    },
    async setUserTimeout(applicationId, userId, timeout, now, actor) {
      return d.transaction(async (tx) => {
        // Locked like a login, so none slips past the timeout (docs/architecture.md, "Persistence notes").
        const before = await findUser(d, tx, applicationId, userId, true);
        if (before === null) return false;
        await tx.update(users).set(timeoutColumns(timeout)).where(eq(users.id, userId));
        const ended = timeout === null ? [] : await endSessions(d, tx, before, 'timeout', now);
        await recordEvents(tx, actor, [timeout === null ? userTimeoutLifted(before) : userTimedOut(before, timeout.until, timeout.reason), ...ended], now);
        return true;
      });
    },
    async deleteDevice(applicationId, userId, deviceId, now, actor) {
      return d.transaction(async (tx) => {
        // Locked like a login of the user, so no session is opened on the device meanwhile.
        const user = await findUser(d, tx, applicationId, userId, true);
        if (user === null) return false;
        const theDevice = and(eq(devices.id, deviceId), eq(devices.userId, userId));
        const [device] = await tx.select().from(devices).where(theDevice);
        if (!device) return false;
        await tx.delete(devices).where(eq(devices.id, deviceId));
        const ended = await endSessions(d, tx, user, 'device_removed', now, device.hardwareId);
        await revokeRefreshTokens(d, tx, userId, now, device.hardwareId);
        await recordEvents(tx, actor, [deviceRemoved(applicationId, user, toDevice(device), 'owner'), ...ended], now);
        return true;
      });
    },
    async revokeUserSessions(applicationId, userId, now, actor) {
      return d.transaction(async (tx) => {
        const revoked = await revokeLiveSessions(d, tx, applicationId, userId, now);
        await revokeRefreshTokens(d, tx, userId, now);
        if (revoked > 0) {
          const user = await findUser(d, tx, applicationId, userId);
          await recordEvents(tx, actor, [sessionsRevoked(applicationId, { id: userId, label: user?.username ?? null }, 'owner', revoked)], now);
        }
        return revoked;
      });
    },
    async bulkAdjust(applicationId, userIds, change, now, newId, actor) {
      // Refuse a bad change before opening the transaction: nothing can have been written.
      validateBulkChange(change);
      // Sorted, so two bulk adjustments lock the users they share in the same order.
      const ids = [...new Set(userIds)].sort();
      const byIdBytes = asc(d.binary(users.id));
      return d.transaction(async (tx) => {
        let adjusted = 0;
        for (const part of chunks(ids)) {
          // Locked, so a redemption or another adjustment of these users cannot interleave; by
          // bytes, the order the ids were sorted in above.
          const rows = await d.locked(tx.select().from(users).where(usersOf(applicationId, part)).orderBy(byIdBytes));
          for (const user of rows.map(toUser)) {
            const applied = applyBulkChange(user.membership, change, now, newId());
            const { membership } = applied;
            const adjustment = { ...applied.adjustment, applicationId, userId: user.id, planFrom: null, planTo: null };
            await tx.update(users).set(membershipColumns(membership)).where(eq(users.id, user.id));
            await tx.insert(adjustments).values(adjustment);
            await recordEvents(tx, actor, [membershipAdjusted({ ...user, membership }, adjustment, now)], now);
            adjusted++;
          }
        }
        return adjusted;
      });
    },
    async hasSignedInFrom(userId, ip) {
      const fromThere = and(eq(userIps.userId, userId), eq(userIps.ip, ip));
      return exists(db.select({ ip: userIps.ip }).from(userIps).where(fromThere));
    },
    async hasDevice(userId, hardwareId) {
      const thatMachine = and(eq(devices.userId, userId), eq(devices.hardwareId, hardwareId));
      return exists(db.select({ id: devices.id }).from(devices).where(thatMachine));
    },
    async recordIp(userId, ip, now) {
      // Both or neither: a user deleted meanwhile keeps no address.
      await d.transaction((tx) => recordAddress(d, tx, userId, ip, now));
    },
    async updatePasswordHash(userId, passwordHash) {
      await d.write((w) => w.update(users).set({ passwordHash }).where(eq(users.id, userId)));
    },
    async replacePassword(applicationId, userId, passwordHash, now, actor) {
      return d.transaction(async (tx) => {
        // The UPDATE locks the user's row, as a login does (docs/architecture.md, "Persistence notes").
        const theUser = ofApplication(users, applicationId, userId);
        const [changed] = await tx.update(users).set({ passwordHash }).where(theUser).returning();
        if (changed === undefined) return false;
        await recordEvents(tx, actor, await endSessions(d, tx, toUser(changed), 'password_changed', now), now);
        await revokeRefreshTokens(d, tx, userId, now);
        return true;
      });
    },
    async resetDevices({ applicationId, userId, cooldownHours, now }, actor) {
      return d.transaction(async (tx) => {
        // Locked like a login of the user: parallel resets read the last reset one after another,
        // so only the first passes the cooldown, and no session opens on a device meanwhile.
        const user = await findUser(d, tx, applicationId, userId, true);
        if (user === null) throw new DomainError('USER_NOT_FOUND', 'no such user');
        const plan = planDeviceReset(user.lastDeviceResetAt, cooldownHours, now);
        const removed = await tx.delete(devices).where(eq(devices.userId, userId)).returning();
        const ended = await endSessions(d, tx, user, 'devices_reset', now);
        await revokeRefreshTokens(d, tx, userId, now);
        await recordEvents(tx, actor, [...removed.map((device) => deviceRemoved(applicationId, user, toDevice(device), 'reset')), ...ended], now);
        await tx.update(users).set({ lastDeviceResetAt: now }).where(eq(users.id, userId));
        return plan;
      });
    },
  };
}
