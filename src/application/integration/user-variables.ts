// The integration API's user variables: an authenticated user reaches only their own.
import { loginRequired } from '../../domain/errors.js';
import type { Caller } from '../deps.js';
import type { ApplicationRecord, UserVariableRecord } from '../records.js';
import { deleteVariableOfUser, listVariablesOfUser, readVariableOfUser, type UserVariableDeps, writeVariableOfUser } from '../user-variables.js';
import { type AuthenticateUserDeps, authenticateUser, type PresentedUser } from './authenticate-user.js';

type Deps = AuthenticateUserDeps & UserVariableDeps;

/** The request's user, however authenticated; an anonymous caller has no variables (401). */
async function signedInUserId(deps: Deps, app: ApplicationRecord, presented: PresentedUser, caller: Caller): Promise<string> {
  const user = await authenticateUser(deps, app, presented, caller);
  if (user === null) throw loginRequired();
  return user.id;
}

export async function listOwnVariables(deps: Deps, app: ApplicationRecord, presented: PresentedUser, caller: Caller): Promise<UserVariableRecord[]> {
  return listVariablesOfUser(deps, app, await signedInUserId(deps, app, presented, caller));
}

export async function readOwnVariable(deps: Deps, app: ApplicationRecord, presented: PresentedUser, caller: Caller, name: string): Promise<UserVariableRecord> {
  return readVariableOfUser(deps, app, await signedInUserId(deps, app, presented, caller), name);
}

export async function writeOwnVariable(deps: Deps, app: ApplicationRecord, presented: PresentedUser, caller: Caller, name: string, value: string): Promise<UserVariableRecord> {
  return writeVariableOfUser(deps, app, await signedInUserId(deps, app, presented, caller), name, value);
}

export async function deleteOwnVariable(deps: Deps, app: ApplicationRecord, presented: PresentedUser, caller: Caller, name: string): Promise<void> {
  await deleteVariableOfUser(deps, app, await signedInUserId(deps, app, presented, caller), name);
}
