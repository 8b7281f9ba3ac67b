// Sends the expiry notices of memberships (docs/events.md, membership.expiring and
// membership.expired) from every instance: each pass records what is due at the clock's now, and the
// store lets one caller record each notice (docs/plans.md, "Expiry notices").
import type { Deps } from '../deps.js';
import type { MembershipNoticeStore } from '../ports/membership-notice-store.js';
import { type PeriodicPasses, periodicPasses } from '../periodic-passes.js';
import { SYSTEM } from './actor.js';

/** How often the server looks for notices due: a notice comes at most this late. */
export const MEMBERSHIP_NOTICES_EVERY_MS = 60_000;

/** Memberships per store call: one transaction locks at most this many users. */
const BATCH = 200;

export function createMembershipNoticer(deps: Pick<Deps, 'clock'> & { store: MembershipNoticeStore }, options: { pollMs: number; onError?: (error: unknown) => void }): PeriodicPasses {
  async function drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const pass = await deps.store.recordMembershipNotices(deps.clock.now(), BATCH, SYSTEM);
      total += pass.recorded;
      // A full batch that recorded nothing was taken by another instance meanwhile: the next poll goes on.
      if (pass.scanned < BATCH || pass.recorded === 0) return total;
    }
  }

  return periodicPasses(drain, options);
}
