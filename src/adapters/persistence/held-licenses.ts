// The licenses a user redeemed, as ban keys: a ban query joins them in by licenses_used_by_idx, so
// it costs the same whatever number of licenses the user holds (BanStore.findMatchingBans).
import { sql, type SQL } from 'drizzle-orm';
import type { BanKey } from '../../domain/bans.js';
import type { Tables } from './tables.js';

/** The user whose redeemed licenses count among `keys`: the user key's, or null (then none do). */
export const holderOf = (keys: readonly BanKey[]): string | null => keys.find((k) => k.type === 'user')?.value ?? null;

// `(type, value)` rows of the license bans to look for: one per license `holderId` redeemed in
// the application, none while it is null. Values or placeholders, as the caller builds.
export function heldLicenseKeys(licenses: Tables['licenses'], applicationId: unknown, holderId: unknown): SQL {
  return sql`select 'license', ${licenses.id} from ${licenses} where ${licenses.applicationId} = ${applicationId} and ${licenses.usedByUserId} = ${holderId}`;
}
