// Applications and their settings and credentials.
// Methods marked ATOMIC are one transaction (see store.ts). Instants are epoch milliseconds.
import type { ApplicationSettings } from '../../domain/application-settings.js';
import type { ApplicationRecord } from '../records.js';

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
  updateApplication(id: string, patch: ApplicationPatch): Promise<ApplicationRecord | null>;
  /**
   * ATOMIC: renames the application (when `name` is given) and lays `settings` over its stored
   * settings (mergeSettings of the domain), so concurrent patches of different fields all hold.
   * Null when there is no such application.
   */
  patchApplication(id: string, patch: { name?: string; settings: Partial<ApplicationSettings> }): Promise<ApplicationRecord | null>;
  /** Deletes the application and everything it owns. False when there was none. */
  deleteApplication(id: string): Promise<boolean>;
  /** Any one sealed files key, to check at start that the master key opens this database's secrets. */
  sampleSealedSecret(): Promise<string | null>;
}
