// The console overview of an application, counted by PostgreSQL in one read-only snapshot, so
// the figures agree with each other (see overview-sql.ts).
import type { OverviewStore } from '../../../application/ports.js';
import { type DayRow, dailyCounts, overviewTotals, toOverview, type TotalsRow } from '../overview-sql.js';
import type { Connection } from './db.js';
import { files, licenses, sessions, users } from './schema.js';

export function overviewStore({ snapshot }: Connection): OverviewStore {
  return {
    async applicationOverview(applicationId, now, window) {
      return snapshot(async (tx) => {
        const [totals] = await tx.execute<TotalsRow & Record<string, unknown>>(overviewTotals({ users, licenses, files }, applicationId, now));
        if (totals === undefined) throw new Error('overview totals returned no row');
        const signUps = await tx.execute<DayRow & Record<string, unknown>>(dailyCounts(users, users.applicationId, users.createdAt, applicationId, window));
        const logins = await tx.execute<DayRow & Record<string, unknown>>(dailyCounts(sessions, sessions.applicationId, sessions.createdAt, applicationId, window));
        return toOverview(totals, [...signUps], [...logins]);
      });
    },
  };
}
