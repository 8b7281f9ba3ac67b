// The plans behind a user's access, read as they are now (docs/plans.md, "Entitlements"): one
// statement, the base plan by the plans primary key and the add-on grants by add_on_grants'
// (user_id, plan_id) key joined to their plans.
import { and, eq, sql } from 'drizzle-orm';
import type { UserPlans } from '../../../domain/membership-state.js';
import type { Db, Dialect } from '../dialect.js';

export async function readUserPlans(d: Dialect, db: Db, applicationId: string, userId: string, planId: string | null): Promise<UserPlans> {
  const { plans, addOnGrants } = d.t;
  const planFields = {
    id: plans.id,
    name: plans.name,
    entitlements: plans.entitlements,
    graceMinutes: plans.graceMinutes,
    maxDevices: plans.maxDevices,
    maxSessions: plans.maxSessions,
  };
  // Grants first: a union's rows are decoded by its first select's columns (ends_at an instant).
  const grants = db
    .select({ ...planFields, endsAt: addOnGrants.endsAt, isGrant: sql<number>`1`.as('is_grant') })
    .from(addOnGrants)
    .innerJoin(plans, eq(plans.id, addOnGrants.planId))
    .where(and(eq(addOnGrants.userId, userId), eq(addOnGrants.applicationId, applicationId)));
  const base = db
    .select({ ...planFields, endsAt: sql<number | null>`null`, isGrant: sql<number>`0` })
    .from(plans)
    .where(and(eq(plans.applicationId, applicationId), eq(plans.id, planId ?? '')));
  const rows = planId === null ? await grants : await grants.unionAll(base);
  const found: { base: UserPlans['base']; addOns: { endsAt: number | null; entitlements: string[] }[] } = { base: null, addOns: [] };
  for (const { endsAt, isGrant, entitlements, ...plan } of rows) {
    const codes = JSON.parse(entitlements) as string[];
    if (Number(isGrant) === 1) found.addOns.push({ endsAt: endsAt === null ? null : Number(endsAt), entitlements: codes });
    else found.base = { ...plan, entitlements: codes };
  }
  return found;
}
