// The integration API's user variables: an authenticated user reaches only their own, and writes
// them within an hourly budget, so one user cannot grow the database without bound.
import { loginRequired } from '../../domain/errors.js';
import { USER_VARIABLE_WRITES_PER_HOUR } from '../../domain/user-variables.js';
import type { Caller } from '../deps.js';
import type { ThrottleStore } from '../ports/throttle-store.js';
import type { ApplicationRecord, UserVariableRecord } from '../records.js';
import { deleteVariableOfUser, listVariablesOfUser, readVariableOfUser, type UserVariableDeps, writeVariableOfUser } from '../user-variables.js';
import { type AuthenticateUserDeps, authenticateUser, type PresentedUser } from './authenticate-user.js';
import { type Actor, identified } from '../events/actor.js';

type Deps = AuthenticateUserDeps & UserVariableDeps & { store: Pick<ThrottleStore, 'reserveVariableWrite'> };

/** The request's user, however authenticated; an anonymous caller has no variables (401). */
async function signedInUserId(deps: Deps, app: ApplicationRecord, presented: PresentedUser, caller: Caller, actor: Actor): Promise<string> {
  const user = await authenticateUser(deps, app, presented, caller, actor);
  if (user === null) throw loginRequired();
  return user.id;
}

export async function listOwnVariables(deps: Deps, app: ApplicationRecord, presented: PresentedUser, caller: Caller, actor: Actor): Promise<UserVariableRecord[]> {
  return listVariablesOfUser(deps, app, await signedInUserId(deps, app, presented, caller, actor));
}

export async function readOwnVariable(deps: Deps, app: ApplicationRecord, presented: PresentedUser, caller: Caller, name: string, actor: Actor): Promise<UserVariableRecord> {
  return readVariableOfUser(deps, app, await signedInUserId(deps, app, presented, caller, actor), name);
}

/** The signed-in user, once their write is counted (429 RATE_LIMITED past the hour's budget). */
async function writingUserId(deps: Deps, app: ApplicationRecord, presented: PresentedUser, caller: Caller, actor: Actor): Promise<string> {
  const userId = await signedInUserId(deps, app, presented, caller, actor);
  await deps.store.reserveVariableWrite({ applicationId: app.id, userId, now: deps.clock.now() }, USER_VARIABLE_WRITES_PER_HOUR);
  return userId;
}

export async function writeOwnVariable(deps: Deps, app: ApplicationRecord, presented: PresentedUser, caller: Caller, name: string, value: string, actor: Actor): Promise<UserVariableRecord> {
  const userId = await writingUserId(deps, app, presented, caller, actor);
  return writeVariableOfUser(deps, app, userId, name, value, identified(actor, userId));
}

export async function deleteOwnVariable(deps: Deps, app: ApplicationRecord, presented: PresentedUser, caller: Caller, name: string, actor: Actor): Promise<void> {
  const userId = await writingUserId(deps, app, presented, caller, actor);
  await deleteVariableOfUser(deps, app, userId, name, identified(actor, userId));
}
