// Whether the console has an owner yet: the dashboard's sign-in page asks before anyone signs in,
// to show how to create the first one. This one bit is all it tells (docs/security.md).
import type { OwnerStore } from '../ports/owner-store.js';

/** Owners are never deleted, so once one exists the answer is kept and the store no longer asked. */
export function ownerExistence(deps: { store: Pick<OwnerStore, 'hasOwners'> }): () => Promise<boolean> {
  let exists = false;
  return async () => {
    if (!exists) exists = await deps.store.hasOwners();
    return exists;
  };
}
