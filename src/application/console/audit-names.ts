// What the ids of an audit page stand for, for the owner reading it (docs/api.md, Audit log):
// end users' usernames, license codes, the owner's own email. Looked up as the page is read,
// outside the entries, whose hashed fields stay as recorded.
import type { EventRecord } from '../ports/event-store.js';
import type { LicenseStore } from '../ports/license-store.js';
import type { Secrets } from '../ports/secrets.js';
import type { UserStore } from '../ports/user-store.js';
import type { OwnerRecord } from '../records.js';

export type AuditNamesDeps = { store: Pick<UserStore, 'usernamesOf'> & Pick<LicenseStore, 'sealedCodesOf'>; secrets: Pick<Secrets, 'open'> };

/** The ids an entry names by kind: a user (as actor or target) or a license (as target). */
function idsOf(entries: readonly EventRecord[]): { users: string[]; licenses: string[] } {
  const users = new Set<string>();
  const licenses = new Set<string>();
  for (const e of entries) {
    if (e.actor.type === 'end_user' && e.actor.id !== null) users.add(e.actor.id);
    if (e.target.type === 'user') users.add(e.target.id);
    if (e.target.type === 'license') licenses.add(e.target.id);
  }
  return { users: [...users], licenses: [...licenses] };
}

/** Id to name; ids of users or licenses deleted since are left out (the page shows the id). */
export async function auditNames(deps: AuditNamesDeps, owner: OwnerRecord, applicationId: string, entries: readonly EventRecord[]): Promise<Record<string, string>> {
  const ids = idsOf(entries);
  const [usernames, codes] = await Promise.all([
    ids.users.length ? deps.store.usernamesOf(applicationId, ids.users) : new Map<string, string>(),
    ids.licenses.length ? deps.store.sealedCodesOf(applicationId, ids.licenses) : new Map<string, string>(),
  ]);
  const names: Record<string, string> = {};
  if (entries.some((e) => e.actor.type === 'owner' && e.actor.id === owner.id)) names[owner.id] = owner.email;
  for (const [id, username] of usernames) names[id] = username;
  for (const [id, sealed] of codes) names[id] = deps.secrets.open(sealed);
  return names;
}
