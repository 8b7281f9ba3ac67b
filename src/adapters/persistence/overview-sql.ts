// The console overview's queries, one SQL text for both databases: totals and one row per day with
// activity, never the rows themselves (run in one snapshot by store/overview-store.ts).
import { type SQL, sql } from 'drizzle-orm';
import type { ApplicationOverviewCounts } from '../../application/records.js';
import { DAY_MS, type DayCount, type DayWindow } from '../../domain/overview.js';
import type { Tables } from './tables.js';

/** An integer written into the SQL text. Bound, SQLite would take it as REAL and turn the day
 * arithmetic fractional; these are numbers we computed, never input. */
function literal(n: number): SQL {
  if (!Number.isSafeInteger(n)) throw new Error(`not a safe integer: ${n}`);
  return sql.raw(String(n));
}

/** One row of totals. Drivers differ in how they return integers (PostgreSQL's bigint as text). */
export function overviewTotals({ users, licenses, files }: Tables, applicationId: string, now: number): SQL {
  return sql`select
    (select count(*) from ${users} where ${users.applicationId} = ${applicationId}) as users,
    -- the domain's isMembershipActive (lifetime, or active until later than now), as a count
    (select count(*) from ${users} where ${users.applicationId} = ${applicationId}
       and (${users.isLifetime} or ${users.activeUntil} > ${literal(now)})) as active_memberships,
    (select count(*) from ${licenses} where ${licenses.applicationId} = ${applicationId} and ${licenses.usedAt} is not null) as licenses_used,
    (select count(*) from ${licenses} where ${licenses.applicationId} = ${applicationId} and ${licenses.usedAt} is null) as licenses_unused,
    (select coalesce(sum(${files.sizeBytes}), 0) from ${files} where ${files.applicationId} = ${applicationId}) as storage_bytes`;
}

/** Rows `(day, count)` of the users signed up inside the window, by window day (integer division
 * of the offset: both dialects truncate, and the offset is never negative). The
 * (application_id, created_at) index of users serves it. */
export function signUpsByDay({ users }: Tables, applicationId: string, window: DayWindow): SQL {
  const from = literal(window.from);
  const until = literal(window.from + window.days * DAY_MS);
  return sql`select (${users.createdAt} - ${from}) / ${literal(DAY_MS)} as day, count(*) as count
    from ${users}
    where ${users.applicationId} = ${applicationId} and ${users.createdAt} >= ${from} and ${users.createdAt} < ${until}
    group by 1`;
}

/** Rows `(day, count)` of login_days inside the window, by window day: `day` holds each day's UTC midnight. */
export function loginsByDay({ loginDays }: Tables, applicationId: string, window: DayWindow): SQL {
  const from = literal(window.from);
  const until = literal(window.from + window.days * DAY_MS);
  return sql`select (${loginDays.day} - ${from}) / ${literal(DAY_MS)} as day, ${loginDays.logins} as count
    from ${loginDays}
    where ${loginDays.applicationId} = ${applicationId} and ${loginDays.day} >= ${from} and ${loginDays.day} < ${until}`;
}

type Numeric = number | string | bigint;

export interface TotalsRow {
  users: Numeric;
  active_memberships: Numeric;
  licenses_used: Numeric;
  licenses_unused: Numeric;
  storage_bytes: Numeric;
}

export interface DayRow {
  day: Numeric;
  count: Numeric;
}

const days = (rows: DayRow[]): DayCount[] => rows.map((r) => ({ day: Number(r.day), count: Number(r.count) }));

export function toOverview(totals: TotalsRow, signUps: DayRow[], logins: DayRow[]): ApplicationOverviewCounts {
  return {
    users: Number(totals.users),
    activeMemberships: Number(totals.active_memberships),
    licensesUsed: Number(totals.licenses_used),
    licensesUnused: Number(totals.licenses_unused),
    storageBytes: Number(totals.storage_bytes),
    signUpsByDay: days(signUps),
    loginsByDay: days(logins),
  };
}
