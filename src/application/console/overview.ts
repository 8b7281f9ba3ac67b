// The dashboard's first page of an application: how many users, memberships, licenses and bytes
// it has, and its sign-ups and logins over the last 30 UTC days.
import { type DailyActivity, dailyActivity, overviewWindow } from '../../domain/overview.js';
import type { Deps } from '../deps.js';
import type { OwnerRecord } from '../ports.js';
import { ownedApplication } from './applications.js';

export interface ApplicationOverview {
  users: number;
  activeMemberships: number;
  licensesUsed: number;
  licensesUnused: number;
  storageBytes: number;
  /** 30 entries, oldest first, today (UTC) last. */
  daily: DailyActivity[];
}

export async function applicationOverview(deps: Deps, owner: OwnerRecord, appId: string): Promise<ApplicationOverview> {
  const app = await ownedApplication(deps, owner, appId);
  const now = deps.clock.now();
  const window = overviewWindow(now);
  const { signUpsByDay, loginsByDay, ...totals } = await deps.store.applicationOverview(app.id, now, window);
  return { ...totals, daily: dailyActivity(window, signUpsByDay, loginsByDay) };
}
