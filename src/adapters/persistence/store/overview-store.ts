// The console overview of an application, counted by the database in one read-only snapshot, so
// the figures agree with each other (see overview-sql.ts).
import type { OverviewStore } from '../../../application/ports/overview-store.js';
import type { Dialect } from '../dialect.js';
import { type DayRow, loginsByDay, overviewTotals, signUpsByDay, toOverview, type TotalsRow } from '../overview-sql.js';

export function overviewStore(d: Dialect): OverviewStore {
  return {
    async applicationOverview(applicationId, now, window) {
      return d.snapshot(async (tx) => {
        const [totals] = await d.rows<TotalsRow>(tx, overviewTotals(d.t, applicationId, now));
        if (totals === undefined) throw new Error('overview totals returned no row');
        const signUps = await d.rows<DayRow>(tx, signUpsByDay(d.t, applicationId, window));
        const logins = await d.rows<DayRow>(tx, loginsByDay(d.t, applicationId, window));
        return toOverview(totals, signUps, logins);
      });
    },
  };
}
