import type { Actor } from '../events/actor.js';
import { type ApplicationSettings, defaultSettings, validateName, validateSettings } from '../../domain/application-settings.js';
import { DomainError } from '../../domain/errors.js';
import { keyPrefixes, type Deps } from '../deps.js';
import type { ApplicationStore } from '../ports/application-store.js';
import type { UserStore } from '../ports/user-store.js';
import type { ApplicationRecord, OwnerRecord, UserRecord } from '../records.js';
import { newRequestSigningKey } from '../signing-keys.js';

export const APPLICATION_NAME_MAX = 200;

/** The credentials of a new application: shown once, then only their digests (or seal) remain. */
export interface ApplicationCredentials {
  apiKey: string;
  apiSecret: string;
  adminApiKey: string;
  filesEncryptionKey: string;
  /** The HMAC key of request signing, 32 bytes in base64. */
  requestSigningKey: string;
}

export type RotatableCredential = 'api_secret' | 'admin_api_key' | 'request_signing_key';

const notFound = () => new DomainError('APPLICATION_NOT_FOUND', 'no such application');

/** The owner's application. Another owner's application answers exactly like a missing one (404),
 * so ids cannot be probed across owners. */
export async function ownedApplication(deps: { store: ApplicationStore }, owner: OwnerRecord, appId: string): Promise<ApplicationRecord> {
  const app = await deps.store.findApplication(appId);
  if (app === null || app.ownerId !== owner.id) throw notFound();
  return app;
}

/** The owner's application and a user of it; USER_NOT_FOUND when it has no such user. */
export async function ownedUser(
  deps: { store: ApplicationStore & Pick<UserStore, 'findUserById'> },
  owner: OwnerRecord,
  appId: string,
  userId: string,
): Promise<{ app: ApplicationRecord; user: UserRecord }> {
  const app = await ownedApplication(deps, owner, appId);
  const user = await deps.store.findUserById(app.id, userId);
  if (user === null) throw new DomainError('USER_NOT_FOUND', 'no such user');
  return { app, user };
}

export async function createApplication(
  deps: Pick<Deps, 'clock' | 'ids' | 'secrets' | 'responseKeys'> & { store: ApplicationStore },
  owner: OwnerRecord,
  input: { name: string; settings: Partial<ApplicationSettings> },
): Promise<{ application: ApplicationRecord; credentials: ApplicationCredentials }> {
  const name = validateName('name', input.name, APPLICATION_NAME_MAX);
  const settings = validateSettings({ ...defaultSettings, ...input.settings });
  const requestSigningKey = newRequestSigningKey(deps);
  const credentials: ApplicationCredentials = {
    apiKey: deps.secrets.issue(keyPrefixes.apiKey),
    apiSecret: deps.secrets.issue(keyPrefixes.apiSecret),
    adminApiKey: deps.secrets.issue(keyPrefixes.adminApiKey),
    filesEncryptionKey: Buffer.from(deps.secrets.randomBytes(32)).toString('base64'),
    requestSigningKey: requestSigningKey.value,
  };
  const application: ApplicationRecord = {
    id: deps.ids.uuid(),
    ownerId: owner.id,
    name,
    settings,
    apiKey: credentials.apiKey,
    apiSecretDigest: deps.secrets.digest(credentials.apiSecret),
    adminApiKeyDigest: deps.secrets.digest(credentials.adminApiKey),
    filesKeySealed: deps.secrets.seal(credentials.filesEncryptionKey),
    signing: { response: deps.responseKeys.generate(), previousResponse: null, requestSealed: requestSigningKey.sealed, previousRequest: null },
    contentVersion: 0,
    bansVersion: 0,
    createdAt: deps.clock.now(),
  };
  await deps.store.createApplication(application);
  return { application, credentials };
}

export const listApplications = (deps: { store: ApplicationStore }, owner: OwnerRecord): Promise<ApplicationRecord[]> => deps.store.listApplications(owner.id);

/** Merges a new name and any settings given into the stored ones in one store operation (the
 * result is validated whole inside it), so parallel patches of different fields all hold. */
export async function updateApplication(
  deps: Pick<Deps, 'clock'> & { store: ApplicationStore },
  owner: OwnerRecord,
  appId: string,
  input: { name?: string; settings: Partial<ApplicationSettings> },
  actor: Actor,
): Promise<ApplicationRecord> {
  const app = await ownedApplication(deps, owner, appId);
  const name = input.name === undefined ? undefined : validateName('name', input.name, APPLICATION_NAME_MAX);
  const updated = await deps.store.patchApplication(app.id, { ...(name === undefined ? {} : { name }), settings: input.settings }, deps.clock.now(), actor);
  if (updated === null) throw notFound();
  return updated;
}

export async function deleteApplication(deps: { store: ApplicationStore }, owner: OwnerRecord, appId: string): Promise<void> {
  const app = await ownedApplication(deps, owner, appId);
  if (!(await deps.store.deleteApplication(app.id))) throw notFound();
}

/** Issues a new secret of the kind. An API secret or admin API key fails at once (its stored digest
 * is replaced); the request signing key rotated out is kept, with when, so request signing accepts
 * it for the signature window more. */
export async function rotateCredential(
  deps: Pick<Deps, 'secrets' | 'clock'> & { store: ApplicationStore },
  owner: OwnerRecord,
  appId: string,
  kind: RotatableCredential,
  actor: Actor,
): Promise<string> {
  const app = await ownedApplication(deps, owner, appId);
  if (kind === 'request_signing_key') {
    const key = newRequestSigningKey(deps);
    if ((await deps.store.rotateRequestSigningKey(app.id, key.sealed, deps.clock.now(), actor)) === null) throw notFound();
    return key.value;
  }
  const value = deps.secrets.issue(kind === 'api_secret' ? keyPrefixes.apiSecret : keyPrefixes.adminApiKey);
  const digest = deps.secrets.digest(value);
  const patch = kind === 'api_secret' ? { apiSecretDigest: digest } : { adminApiKeyDigest: digest };
  if ((await deps.store.updateApplication(app.id, patch, deps.clock.now(), actor)) === null) throw notFound();
  return value;
}

/** A new response signing key becomes current; the one it replaces keeps signing as the previous key. */
export async function rotateResponseSigningKey(deps: Pick<Deps, 'responseKeys' | 'clock'> & { store: ApplicationStore }, owner: OwnerRecord, appId: string, actor: Actor): Promise<ApplicationRecord> {
  const app = await ownedApplication(deps, owner, appId);
  const updated = await deps.store.rotateResponseSigningKey(app.id, deps.responseKeys.generate(), deps.clock.now(), actor);
  if (updated === null) throw notFound();
  return updated;
}

/** Ends a rotation: the previous response signing key stops signing (nothing to do without one). */
export async function dropPreviousResponseSigningKey(deps: { store: ApplicationStore }, owner: OwnerRecord, appId: string): Promise<void> {
  const app = await ownedApplication(deps, owner, appId);
  if ((await deps.store.dropPreviousResponseSigningKey(app.id)) === null) throw notFound();
}
