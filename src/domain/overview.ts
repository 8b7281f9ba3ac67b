// The console overview's daily series: the last 30 UTC calendar days, today last, every day
// present (zero when nothing happened). Stores count by day index from the window's start, so
// the calendar arithmetic lives here once, not in each SQL dialect.
import { type Instant, utcDate } from './time.js';

export const OVERVIEW_DAYS = 30;
export const DAY_MS = 86_400_000;

/** [from, from + days * DAY_MS): whole UTC days, the last of them the one holding `now`. */
export interface DayWindow {
  from: Instant;
  days: number;
}

/** How many events fell on day `day` of a window (0 = its first day). */
export interface DayCount {
  day: number;
  count: number;
}

export interface DailyActivity {
  /** YYYY-MM-DD, UTC. */
  date: string;
  signUps: number;
  logins: number;
}

/** The UTC midnight starting the day of `t`: the key a day's counts are kept under. */
export const utcDayStart = (t: Instant): Instant => Math.floor(t / DAY_MS) * DAY_MS;

/** The 30 UTC days ending with today (the day of `now`). */
export function overviewWindow(now: Instant, days = OVERVIEW_DAYS): DayWindow {
  const startOfToday = utcDayStart(now);
  return { from: startOfToday - (days - 1) * DAY_MS, days };
}

/** Per-day totals, oldest first, zero-filled; counts outside the window are ignored. */
function perDay(window: DayWindow, counts: DayCount[]): number[] {
  const totals = new Array<number>(window.days).fill(0);
  for (const { day, count } of counts) {
    if (Number.isInteger(day) && day >= 0 && day < window.days) totals[day] = (totals[day] ?? 0) + count;
  }
  return totals;
}

/** The window's days, oldest first, each with its sign-ups and logins. */
export function dailyActivity(window: DayWindow, signUps: DayCount[], logins: DayCount[]): DailyActivity[] {
  const ups = perDay(window, signUps);
  const ins = perDay(window, logins);
  return ups.map((count, i) => ({ date: utcDate(window.from + i * DAY_MS), signUps: count, logins: ins[i] ?? 0 }));
}
