// Add-on grants (docs/plans.md, "Add-ons"): redeeming an add-on plan's license gives the user its
// entitlements until an end, apart from the membership; a second grant of the same add-on stacks.
import { extend } from './membership.js';
import type { Instant } from './time.js';

export interface AddOnGrant {
  /** The add-on plan, read for its entitlements. */
  planId: string;
  /** null: never ends (an add-on of lifetime duration). */
  endsAt: Instant | null;
}

export const isAddOnGrantActive = (g: Pick<AddOnGrant, 'endsAt'>, now: Instant): boolean => g.endsAt === null || g.endsAt > now;

/** The user's active grant of the add-on, the one ending last when the store holds several. */
export function activeGrantOf(grants: readonly AddOnGrant[], planId: string, now: Instant): AddOnGrant | null {
  let found: AddOnGrant | null = null;
  for (const g of grants) {
    if (g.planId !== planId || !isAddOnGrantActive(g, now)) continue;
    if (found === null || g.endsAt === null || (found.endsAt !== null && g.endsAt > found.endsAt)) found = g;
  }
  return found;
}

/** The grant after redeeming `minutes` more of the add-on (null: lifetime): from the end of an active
 * grant of it, else from now, with the membership's rule and cap for adding time. */
export function stackAddOnGrant(grants: readonly AddOnGrant[], planId: string, minutes: number | null, now: Instant): { grant: AddOnGrant; stacked: boolean } {
  const active = activeGrantOf(grants, planId, now);
  const endsAt = minutes === null || (active !== null && active.endsAt === null) ? null : extend({ activeUntil: active?.endsAt ?? null, isLifetime: false }, minutes, now).activeUntil;
  return { grant: { planId, endsAt }, stacked: active !== null };
}
