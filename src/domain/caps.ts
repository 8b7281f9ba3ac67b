// Device and session caps (docs/plans.md, "Caps"): the one rule admission takes them by. The user's
// own override wins, then the base plan's cap, then the application's default.
import type { ApplicationSettings } from './application-settings.js';

export interface Caps {
  devices: number;
  sessions: number;
}

export interface CapSources {
  /** The owner's per-user setting; null: none set. */
  user: { allowedDevices: number | null; allowedSessions: number | null };
  /** The membership's base plan; null without one, or a cap of null: the plan leaves it to the default. */
  basePlan: { maxDevices: number | null; maxSessions: number | null } | null;
  defaults: Pick<ApplicationSettings, 'defaultAllowedDevices' | 'defaultAllowedSessions'>;
}

/** Where a cap comes from, as the console shows it beside the cap. */
export type CapSource = 'user' | 'plan' | 'application';

/** Which of effectiveCaps' sources gives each cap. */
export function capSources(s: Omit<CapSources, 'defaults'>): { devices: CapSource; sessions: CapSource } {
  const of = (user: number | null, plan: number | null | undefined): CapSource => (user !== null ? 'user' : plan !== null && plan !== undefined ? 'plan' : 'application');
  return { devices: of(s.user.allowedDevices, s.basePlan?.maxDevices), sessions: of(s.user.allowedSessions, s.basePlan?.maxSessions) };
}

export function effectiveCaps(s: CapSources): Caps {
  return {
    devices: s.user.allowedDevices ?? s.basePlan?.maxDevices ?? s.defaults.defaultAllowedDevices,
    sessions: s.user.allowedSessions ?? s.basePlan?.maxSessions ?? s.defaults.defaultAllowedSessions,
  };
}
