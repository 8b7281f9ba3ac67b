// The dashboard's first page of an application: how many users, memberships, licenses and bytes
// it has, and its sign-ups and logins over the last 30 UTC days.
import { type DailyActivity, dailyActivity, overviewWindow } from '../../domain/overview.js';
import type { Deps } from '../deps.js';
import type { ApplicationStore } from '../ports/application-store.js';
import type { OverviewStore } from '../ports/overview-store.js';
import type { ApplicationOverviewCounts, OwnerRecord } from '../records.js';
import { ownedApplication } from './applications.js';

/** The store's totals, with its per-day counts turned into the window's days. */
export type ApplicationOverview = Omit<ApplicationOverviewCounts, 'signUpsByDay' | 'loginsByDay'> & {
  /** 30 entries, oldest first, today (UTC) last. */
  daily: DailyActivity[];
};

export async function applicationOverview(deps: Pick<Deps, 'clock'> & { store: ApplicationStore & OverviewStore }, owner: OwnerRecord, appId: string): Promise<ApplicationOverview> {
  const app = await ownedApplication(deps, owner, appId);
  const now = deps.clock.now();
  const window = overviewWindow(now);
  const { signUpsByDay, loginsByDay, ...totals } = await deps.store.applicationOverview(app.id, now, window);
  return { ...totals, daily: dailyActivity(window, signUpsByDay, loginsByDay) };
}
