// A user with the plans behind their access, read as they are now: what every membership answer
// is made of (docs/plans.md, "Entitlements").
import { admissionCaps } from '../domain/admission.js';
import type { Caps } from '../domain/caps.js';
import { DomainError } from '../domain/errors.js';
import type { HeldPlan, UserPlans } from '../domain/membership-state.js';
import type { UserStore } from './ports/user-store.js';
import type { ApplicationRecord, UserRecord } from './records.js';

export interface Member {
  user: UserRecord;
  plans: UserPlans;
}

/** The user's plans, by the one read of UserStore.findUserPlans. */
export const memberOf = async (deps: { store: Pick<UserStore, 'findUserPlans'> }, user: UserRecord): Promise<Member> => ({
  user,
  plans: await deps.store.findUserPlans(user.applicationId, user.id, user.planId),
});

/** The user's plans with the base plan taken from `plans` (the application's, as the content cache
 * holds them): the store is asked only for a user who holds add-on grants, or a plan made after
 * `plans` was read. */
export async function memberWith(deps: { store: Pick<UserStore, 'findUserPlans'> }, plans: ReadonlyMap<string, HeldPlan>, user: UserRecord): Promise<Member> {
  const base = user.planId === null ? null : plans.get(user.planId);
  if (user.holdsAddOns || base === undefined) return memberOf(deps, user);
  return { user, plans: { base, addOns: [] } };
}

/** The user as they are after a change (an activation): read again, with their plans. */
export async function memberAfter(deps: { store: Pick<UserStore, 'findUserById' | 'findUserPlans'> }, applicationId: string, userId: string): Promise<Member> {
  const user = await deps.store.findUserById(applicationId, userId);
  // The user redeemed in this very request, and users are deleted only by the owner meanwhile.
  if (user === null) throw new DomainError('INVALID_CREDENTIALS', 'invalid credentials');
  return memberOf(deps, user);
}

/** The caps the user is admitted by (docs/plans.md, "Caps"); the base plan is read only when the
 * user holds one and lacks an override it could fill. */
export async function capsFor(deps: { store: Pick<UserStore, 'findUserPlans'> }, app: ApplicationRecord, user: UserRecord): Promise<Caps> {
  const needsPlan = user.planId !== null && (user.allowedDevices === null || user.allowedSessions === null);
  const base = needsPlan ? (await deps.store.findUserPlans(app.id, user.id, user.planId)).base : null;
  return admissionCaps(user, base, app.settings);
}
