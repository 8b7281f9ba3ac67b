// The console overview of an application, counted by SQLite in one read transaction, so the
// figures agree with each other (see overview-sql.ts).
import type { OverviewStore } from '../../../application/ports.js';
import { type DayRow, dailyCounts, overviewTotals, toOverview, type TotalsRow } from '../overview-sql.js';
import type { Connection } from './db.js';
import { files, licenses, sessions, users } from './schema.js';

export function overviewStore({ db }: Connection): OverviewStore {
  return {
    async applicationOverview(applicationId, now, window) {
      return db.transaction((tx) => {
        const totals = tx.get<TotalsRow>(overviewTotals({ users, licenses, files }, applicationId, now));
        const signUps = tx.all<DayRow>(dailyCounts(users, users.applicationId, users.createdAt, applicationId, window));
        const logins = tx.all<DayRow>(dailyCounts(sessions, sessions.applicationId, sessions.createdAt, applicationId, window));
        return toOverview(totals, signUps, logins);
      });
    },
  };
}
