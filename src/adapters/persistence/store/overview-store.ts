// The console overview of an application, counted by the database in one read-only snapshot, so
// the figures agree with each other: totals and one row per day with activity, never the rows.
import { and, type Column, count, eq, gt, gte, isNotNull, isNull, lt, or, type SQL, sql, sum } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { OverviewStore } from '../../../application/ports/overview-store.js';
import { DAY_MS } from '../../../domain/overview.js';
import type { Dialect } from '../dialect.js';

/** An integer written into the SQL text. Bound, SQLite would take it as REAL and turn the day
 * arithmetic fractional; these are numbers we computed, never input. */
function literal(n: number): SQL {
  if (!Number.isSafeInteger(n)) throw new Error(`not a safe integer: ${n}`);
  return sql.raw(String(n));
}

export function overviewStore(d: Dialect): OverviewStore {
  const { users, licenses, files, loginDays } = d.t;
  return {
    async applicationOverview(applicationId, now, window) {
      const until = window.from + window.days * DAY_MS;
      // The day of the window `at` falls on: both dialects truncate, and the offset is never negative.
      const dayOf = (at: Column) => sql`(${at} - ${literal(window.from)}) / ${literal(DAY_MS)}`.mapWith(Number);
      const inWindow = (at: Column) => and(gte(at, window.from), lt(at, until));
      return d.snapshot(async (tx) => {
        const counted = async (table: PgTable, where: SQL | undefined) => (await tx.select({ n: count() }).from(table).where(where))[0]?.n ?? 0;
        const ofUsers = eq(users.applicationId, applicationId);
        const ofLicenses = eq(licenses.applicationId, applicationId);
        const [stored] = await tx
          .select({ bytes: sum(files.sizeBytes) })
          .from(files)
          .where(eq(files.applicationId, applicationId));
        // The (application_id, created_at) index of users serves the sign-ups.
        const signUpDay = dayOf(users.createdAt);
        const signUpsByDay = await tx
          .select({ day: signUpDay, count: count() })
          .from(users)
          .where(and(ofUsers, inWindow(users.createdAt)))
          .groupBy(signUpDay);
        const logins = and(eq(loginDays.applicationId, applicationId), inWindow(loginDays.day));
        const loginsByDay = await tx
          .select({ day: dayOf(loginDays.day), count: loginDays.logins })
          .from(loginDays)
          .where(logins);
        return {
          users: await counted(users, ofUsers),
          // The domain's isMembershipActive (lifetime, or active until later than now), as a count.
          activeMemberships: await counted(users, and(ofUsers, or(eq(users.isLifetime, true), gt(users.activeUntil, now)))),
          licensesUsed: await counted(licenses, and(ofLicenses, isNotNull(licenses.usedAt))),
          licensesUnused: await counted(licenses, and(ofLicenses, isNull(licenses.usedAt))),
          storageBytes: Number(stored?.bytes ?? 0),
          signUpsByDay,
          loginsByDay,
        };
      });
    },
  };
}
