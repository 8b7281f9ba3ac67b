import { type ApplicationSettings, defaultSettings, validateName, validateSettings } from '../../domain/application-settings.js';
import { DomainError } from '../../domain/errors.js';
import { keyPrefixes, type Deps } from '../deps.js';
import type { ApplicationStore } from '../ports/application-store.js';
import type { ApplicationRecord, OwnerRecord } from '../records.js';

export const APPLICATION_NAME_MAX = 200;

/** The credentials of a new application: shown once, then only their digests (or seal) remain. */
export interface ApplicationCredentials {
  apiKey: string;
  apiSecret: string;
  adminApiKey: string;
  filesEncryptionKey: string;
}

export type RotatableCredential = 'api_secret' | 'admin_api_key';

const notFound = () => new DomainError('APPLICATION_NOT_FOUND', 'no such application');

/**
 * The owner's application. Another owner's application answers exactly like a missing one (404),
 * so ids cannot be probed across owners.
 */
export async function ownedApplication(deps: { store: ApplicationStore }, owner: OwnerRecord, appId: string): Promise<ApplicationRecord> {
  const app = await deps.store.findApplication(appId);
  if (app === null || app.ownerId !== owner.id) throw notFound();
  return app;
}

export async function createApplication(
  deps: Pick<Deps, 'clock' | 'ids' | 'secrets'> & { store: ApplicationStore },
  owner: OwnerRecord,
  input: { name: string; settings: Partial<ApplicationSettings> },
): Promise<{ application: ApplicationRecord; credentials: ApplicationCredentials }> {
  const name = validateName('name', input.name, APPLICATION_NAME_MAX);
  const settings = validateSettings({ ...defaultSettings, ...input.settings });
  const credentials: ApplicationCredentials = {
    apiKey: deps.secrets.issue(keyPrefixes.apiKey),
    apiSecret: deps.secrets.issue(keyPrefixes.apiSecret),
    adminApiKey: deps.secrets.issue(keyPrefixes.adminApiKey),
    filesEncryptionKey: Buffer.from(deps.secrets.randomBytes(32)).toString('base64'),
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
    createdAt: deps.clock.now(),
  };
  await deps.store.createApplication(application);
  return { application, credentials };
}

export const listApplications = (deps: { store: ApplicationStore }, owner: OwnerRecord): Promise<ApplicationRecord[]> =>
  deps.store.listApplications(owner.id);

/**
 * Merges a new name and any settings given into the stored ones in one store operation (the
 * result is validated whole inside it), so parallel patches of different fields all hold.
 */
export async function updateApplication(
  deps: { store: ApplicationStore },
  owner: OwnerRecord,
  appId: string,
  input: { name?: string; settings: Partial<ApplicationSettings> },
): Promise<ApplicationRecord> {
  const app = await ownedApplication(deps, owner, appId);
  const name = input.name === undefined ? undefined : validateName('name', input.name, APPLICATION_NAME_MAX);
  const updated = await deps.store.patchApplication(app.id, { ...(name === undefined ? {} : { name }), settings: input.settings });
  if (updated === null) throw notFound();
  return updated;
}

export async function deleteApplication(deps: { store: ApplicationStore }, owner: OwnerRecord, appId: string): Promise<void> {
  const app = await ownedApplication(deps, owner, appId);
  if (!(await deps.store.deleteApplication(app.id))) throw notFound();
}

/** Issues a new secret of the kind; the stored digest is replaced, so the old value fails at once. */
export async function rotateCredential(
  deps: Pick<Deps, 'secrets'> & { store: ApplicationStore },
  owner: OwnerRecord,
  appId: string,
  kind: RotatableCredential,
): Promise<string> {
  const app = await ownedApplication(deps, owner, appId);
  const value = deps.secrets.issue(kind === 'api_secret' ? keyPrefixes.apiSecret : keyPrefixes.adminApiKey);
  const digest = deps.secrets.digest(value);
  const patch = kind === 'api_secret' ? { apiSecretDigest: digest } : { adminApiKeyDigest: digest };
  if ((await deps.store.updateApplication(app.id, patch)) === null) throw notFound();
  return value;
}
