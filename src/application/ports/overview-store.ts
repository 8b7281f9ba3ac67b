// The counts of an application's overview page. Instants are epoch milliseconds.
import type { DayWindow } from '../../domain/overview.js';
import type { Instant } from '../../domain/time.js';
import type { ApplicationOverviewCounts } from '../records.js';

export interface OverviewStore {
  /** Counted with SQL aggregates from one consistent snapshot. */
  applicationOverview(applicationId: string, now: Instant, window: DayWindow): Promise<ApplicationOverviewCounts>;
}
