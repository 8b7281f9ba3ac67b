// Applications and their settings and credentials.
// Methods marked ATOMIC are one transaction (see store.ts). Instants are epoch milliseconds.
import type { Actor } from '../events/actor.js';
import type { ApplicationSettings } from '../../domain/application-settings.js';
import type { Instant } from '../../domain/time.js';
import type { ApplicationRecord, ResponseSigningKey } from '../records.js';

export interface ApplicationPatch {
  name?: string;
  settings?: ApplicationSettings;
  apiSecretDigest?: string;
  adminApiKeyDigest?: string;
}

export interface ApplicationStore {
  createApplication(app: ApplicationRecord): Promise<void>;
  /** Oldest first. */
  listApplications(ownerId: string): Promise<ApplicationRecord[]>;
  findApplication(id: string): Promise<ApplicationRecord | null>;
  findApplicationByApiKey(apiKey: string): Promise<ApplicationRecord | null>;
  findApplicationByAdminKeyDigest(digest: string): Promise<ApplicationRecord | null>;
  /** Returns the updated record, or null when there is no such application. */
  updateApplication(id: string, patch: ApplicationPatch, now: Instant, actor: Actor): Promise<ApplicationRecord | null>;
  /** ATOMIC: renames the application (when `name` is given) and lays `settings` over its stored
   * settings (mergeSettings of the domain), so concurrent patches of different fields all hold.
   * Null when there is no such application. */
  patchApplication(id: string, patch: { name?: string; settings: Partial<ApplicationSettings> }, now: Instant, actor: Actor): Promise<ApplicationRecord | null>;
  /** Deletes the application and everything it owns. False when there was none. */
  deleteApplication(id: string): Promise<boolean>;
  /** ATOMIC: `next` becomes the response signing key and the current one the previous key (a
   * previous key already there is dropped). Null when there is no such application. */
  rotateResponseSigningKey(id: string, next: ResponseSigningKey, now: Instant, actor: Actor): Promise<ApplicationRecord | null>;
  /** Drops the previous response signing key, if any. Null when there is no such application. */
  dropPreviousResponseSigningKey(id: string): Promise<ApplicationRecord | null>;
  /** ATOMIC: `nextSealed` becomes the request signing key and the current one the previous key,
   * replaced at `now`. Null when there is no such application. */
  rotateRequestSigningKey(id: string, nextSealed: string, now: Instant, actor: Actor): Promise<ApplicationRecord | null>;
  /** The ids of the applications lacking a current response or request signing key. */
  applicationsWithoutSigningKeys(): Promise<string[]>;
  /** ATOMIC: sets whichever current signing key the application lacks from `keys` and keeps any it
   * has, so instances racing to fill one agree on the first one written. Null when there is no
   * such application. */
  fillMissingSigningKeys(id: string, keys: { response: ResponseSigningKey; requestSealed: string }): Promise<ApplicationRecord | null>;
  /** Any one sealed files key, to check at start that the master key opens this database's secrets. */
  sampleSealedSecret(): Promise<string | null>;
}
