// The console's view of one user's variables (docs/api.md, User variables): the owner's application,
// and a user of it, first.
import type { ApplicationStore } from '../ports/application-store.js';
import type { UserStore } from '../ports/user-store.js';
import type { ApplicationRecord, OwnerRecord, UserVariableRecord } from '../records.js';
import { deleteVariableOfUser, listVariablesOfUser, readVariableOfUser, type UserVariableDeps, writeVariableOfUser } from '../user-variables.js';
import { ownedUser } from './applications.js';
import type { Actor } from '../events/actor.js';

type Deps = UserVariableDeps & { store: ApplicationStore & UserStore };

/** The owner's application, once the user is known to be one of its users. */
async function applicationOfUser(deps: { store: ApplicationStore & UserStore }, owner: OwnerRecord, appId: string, userId: string): Promise<ApplicationRecord> {
  return (await ownedUser(deps, owner, appId, userId)).app;
}

export async function listUserVariables(deps: Deps, owner: OwnerRecord, appId: string, userId: string): Promise<UserVariableRecord[]> {
  return listVariablesOfUser(deps, await applicationOfUser(deps, owner, appId, userId), userId);
}

export async function getUserVariable(deps: Deps, owner: OwnerRecord, appId: string, userId: string, name: string): Promise<UserVariableRecord> {
  return readVariableOfUser(deps, await applicationOfUser(deps, owner, appId, userId), userId, name);
}

export async function putUserVariable(deps: Deps, owner: OwnerRecord, appId: string, userId: string, name: string, value: string, actor: Actor): Promise<UserVariableRecord> {
  return writeVariableOfUser(deps, await applicationOfUser(deps, owner, appId, userId), userId, name, value, actor);
}

export async function deleteUserVariable(deps: Deps, owner: OwnerRecord, appId: string, userId: string, name: string, actor: Actor): Promise<void> {
  await deleteVariableOfUser(deps, await applicationOfUser(deps, owner, appId, userId), userId, name, actor);
}
