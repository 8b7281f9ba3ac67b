// Variables of one end user. A write takes the user's row lock first (findUser, as a login does),
// so parallel writes never pass max_user_variables nor the byte cap of a user's values (docs/api.md).
import { and, asc, count, eq, ne, sql } from 'drizzle-orm';
import type { UserVariableStore } from '../../../application/ports/user-variable-store.js';
import { DomainError } from '../../../domain/errors.js';
import { assertRoomForBytes, assertRoomForVariable, utf8Bytes } from '../../../domain/user-variables.js';
import { type Dialect, firstRow } from '../dialect.js';
import { findUser } from './writes.js';
import type { RecordEvents } from './event-log.js';
import { userVariableChanged } from '../../../application/events/content-facts.js';

export function userVariableStore(d: Dialect, recordEvents: RecordEvents): UserVariableStore {
  const { db } = d;
  const { userVariables } = d.t;
  const ofUser = (applicationId: string, userId: string) => and(eq(userVariables.applicationId, applicationId), eq(userVariables.userId, userId));
  const named = (applicationId: string, userId: string, name: string) => and(ofUser(applicationId, userId), eq(userVariables.name, name));
  return {
    async listUserVariables(applicationId, userId) {
      const byName = asc(d.binary(userVariables.name));
      return db.select().from(userVariables).where(ofUser(applicationId, userId)).orderBy(byName);
    },
    async findUserVariable(applicationId, userId, name) {
      const key = named(applicationId, userId, name);
      return firstRow(d, db.select().from(userVariables).where(key));
    },
    async putUserVariable(v, max, actor) {
      return d.transaction(async (tx) => {
        const user = await findUser(d, tx, v.applicationId, v.userId, true);
        if (user === null) throw new DomainError('USER_NOT_FOUND', 'no such user');
        const key = named(v.applicationId, v.userId, v.name);
        const existing = await firstRow(d, tx.select().from(userVariables).where(key));
        // octet_length: UTF-8 bytes on both dialects (SQLite 3.43 and later).
        const bytes = sql<number | string | null>`sum(octet_length(${userVariables.value}))`;
        const othersOfUser = and(ofUser(v.applicationId, v.userId), ne(userVariables.name, v.name));
        const [others] = await tx.select({ bytes }).from(userVariables).where(othersOfUser);
        assertRoomForBytes(Number(others?.bytes ?? 0), utf8Bytes(v.value));
        if (existing === null) {
          const [held] = await tx.select({ n: count() }).from(userVariables).where(ofUser(v.applicationId, v.userId));
          assertRoomForVariable(Number(held?.n ?? 0), true, max);
          await tx.insert(userVariables).values(v);
        } else {
          await tx.update(userVariables).set({ value: v.value, updatedAt: v.updatedAt }).where(key);
        }
        await recordEvents(tx, actor, [userVariableChanged(user, v.name, existing, v)], v.updatedAt);
        return v;
      });
    },
    async deleteUserVariable(applicationId, userId, name, now, actor) {
      return d.transaction(async (tx) => {
        const key = named(applicationId, userId, name);
        const [deleted] = await tx.delete(userVariables).where(key).returning();
        if (deleted === undefined) return false;
        const user = await findUser(d, tx, applicationId, userId);
        await recordEvents(tx, actor, [userVariableChanged({ applicationId, id: userId, username: user?.username ?? null }, name, deleted, null)], now);
        return true;
      });
    },
  };
}
