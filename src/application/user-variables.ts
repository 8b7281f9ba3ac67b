// Variables of one known user (docs/api.md, User variables), as both the integration API (the user
// themselves) and the console (their application's owner) reach them: each caller proves the
// user first, then these apply the same limits.
import { DomainError } from '../domain/errors.js';
import { acceptUserVariableName, acceptUserVariableValue } from '../domain/user-variables.js';
import type { Deps } from './deps.js';
import type { UserVariableStore } from './ports/user-variable-store.js';
import type { ApplicationRecord, UserVariableRecord } from './records.js';
import type { Actor } from './events/actor.js';

export type UserVariableDeps = Pick<Deps, 'clock'> & { store: UserVariableStore };

const notFound = () => new DomainError('VARIABLE_NOT_FOUND', 'no such variable');

export const listVariablesOfUser = (deps: { store: UserVariableStore }, app: ApplicationRecord, userId: string): Promise<UserVariableRecord[]> => deps.store.listUserVariables(app.id, userId);

export async function readVariableOfUser(deps: { store: UserVariableStore }, app: ApplicationRecord, userId: string, name: string): Promise<UserVariableRecord> {
  const found = await deps.store.findUserVariable(app.id, userId, acceptUserVariableName(name));
  if (found === null) throw notFound();
  return found;
}

/** Creates or replaces the variable; a new one past the application's max_user_variables is refused (422). */
export async function writeVariableOfUser(deps: UserVariableDeps, app: ApplicationRecord, userId: string, name: string, value: string, actor: Actor): Promise<UserVariableRecord> {
  const variable = {
    applicationId: app.id,
    userId,
    name: acceptUserVariableName(name),
    value: acceptUserVariableValue(value),
    updatedAt: deps.clock.now(),
  };
  return deps.store.putUserVariable(variable, app.settings.maxUserVariables, actor);
}

export async function deleteVariableOfUser(deps: Pick<Deps, 'clock'> & { store: UserVariableStore }, app: ApplicationRecord, userId: string, name: string, actor: Actor): Promise<void> {
  if (!(await deps.store.deleteUserVariable(app.id, userId, acceptUserVariableName(name), deps.clock.now(), actor))) throw notFound();
}
