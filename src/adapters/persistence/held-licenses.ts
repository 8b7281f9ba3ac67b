// The licenses a user redeemed, as ban keys: a ban query joins them in by their indexes, so
// it costs the same whatever number of licenses the user holds (BanStore.findMatchingBans).
import { sql, type SQL } from 'drizzle-orm';
import type { BanKey } from '../../domain/bans.js';
import type { Tables } from './tables.js';

/** The user whose redeemed licenses count among `keys`: the user key's, or null (then none do). */
export const holderOf = (keys: readonly BanKey[]): string | null => keys.find((k) => k.type === 'user')?.value ?? null;

// `(type, value)` rows of the license bans to look for: one per license `holderId` redeemed in
// the application (a minutes code it used, or a plan's code it holds a seat of, by
// license_redemptions_user_idx), none while it is null. Values or placeholders, as the caller builds.
export function heldLicenseKeys({ licenses, licenseRedemptions: r }: Pick<Tables, 'licenses' | 'licenseRedemptions'>, applicationId: unknown, holderId: unknown): SQL {
  const used = sql`select 'license', ${licenses.id} from ${licenses} where ${licenses.applicationId} = ${applicationId} and ${licenses.usedByUserId} = ${holderId}`;
  return sql`${used} union all select 'license', ${r.licenseId} from ${r} where ${r.applicationId} = ${applicationId} and ${r.userId} = ${holderId}`;
}
