// Who a login by a license code names (docs/plans.md, "Logins by a code of several seats"): the
// code's one holder, or, of several, the one holder the presented machine is registered to.
import type { UserStore } from './ports/user-store.js';
import type { UserRecord } from './records.js';

/** No holder; or several, none named by the machine presented: never a guess. */
export type HolderFound = { user: UserRecord } | { user: null; several: boolean };

/** The holder of `licenseId` a login presenting `hardwareId` names. One holder costs one indexed
 * read, as before seats; only several look at devices. */
export async function licenseHolder(store: UserStore, applicationId: string, licenseId: string, hardwareId: string | null): Promise<HolderFound> {
  const holders = await store.findLicenseHolders(applicationId, licenseId);
  if (holders.length < 2) return holders.length === 1 ? { user: holders[0]! } : { user: null, several: false };
  const named = hardwareId === null ? [] : await store.findLicenseHoldersByDevice(applicationId, licenseId, hardwareId);
  return named.length === 1 ? { user: named[0]! } : { user: null, several: true };
}
