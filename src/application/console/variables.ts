import type { Actor } from '../events/actor.js';
import type { Deps } from '../deps.js';
import { DomainError, validationError } from '../../domain/errors.js';
import type { ApplicationStore } from '../ports/application-store.js';
import type { ContentStore } from '../ports/content-store.js';
import type { OwnerRecord, VariableRecord } from '../records.js';
import { ownedApplication } from './applications.js';

export const VARIABLE_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;
export const VARIABLE_VALUE_MAX = 65_536;

export async function putVariable(
  deps: Pick<Deps, 'clock'> & { store: ApplicationStore & ContentStore },
  owner: OwnerRecord,
  appId: string,
  name: string,
  input: { value: string; isPublic: boolean },
  actor: Actor,
): Promise<VariableRecord> {
  const app = await ownedApplication(deps, owner, appId);
  if (!VARIABLE_NAME_PATTERN.test(name)) throw validationError('name', 'must be 1 to 128 characters of A-Z, a-z, 0-9, _, . and -');
  if (input.value.length > VARIABLE_VALUE_MAX) throw validationError('value', `must be at most ${VARIABLE_VALUE_MAX} characters`);
  return deps.store.putVariable({ applicationId: app.id, name, value: input.value, isPublic: input.isPublic }, deps.clock.now(), actor);
}

export async function listVariables(deps: { store: ApplicationStore & ContentStore }, owner: OwnerRecord, appId: string): Promise<VariableRecord[]> {
  const app = await ownedApplication(deps, owner, appId);
  return deps.store.listVariables(app.id);
}

export async function deleteVariable(deps: Pick<Deps, 'clock'> & { store: ApplicationStore & ContentStore }, owner: OwnerRecord, appId: string, name: string, actor: Actor): Promise<void> {
  const app = await ownedApplication(deps, owner, appId);
  if (!(await deps.store.deleteVariable(app.id, name, deps.clock.now(), actor))) throw new DomainError('VARIABLE_NOT_FOUND', 'no such variable');
}
