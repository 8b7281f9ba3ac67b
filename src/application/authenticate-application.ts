import { DomainError } from '../domain/errors.js';
import type { Deps } from './deps.js';
import type { ApplicationStore } from './ports/application-store.js';
import type { ApplicationRecord } from './records.js';

const invalid = () => new DomainError('INVALID_API_CREDENTIALS', 'invalid application API key or secret');

/** x-api-key and x-api-secret: the key finds the application, the secret's digest must match. */
export async function authenticateApplication(
  deps: Pick<Deps, 'secrets'> & { store: ApplicationStore },
  apiKey: string | undefined,
  apiSecret: string | undefined,
): Promise<ApplicationRecord> {
  if (!apiKey || !apiSecret || apiKey.length > 200 || apiSecret.length > 200) throw invalid();
  const app = await deps.store.findApplicationByApiKey(apiKey);
  // Digest the secret even on a miss so an unknown key takes the same time as a wrong secret.
  const digest = deps.secrets.digest(apiSecret);
  if (app === null || !deps.secrets.sameDigest(digest, app.apiSecretDigest)) throw invalid();
  return app;
}

/** Authorization: Bearer <admin API key>; the key alone names its application. */
export async function authenticateAdmin(
  deps: Pick<Deps, 'secrets'> & { store: ApplicationStore },
  adminKey: string | undefined,
): Promise<ApplicationRecord> {
  if (!adminKey || adminKey.length > 200) throw new DomainError('INVALID_ADMIN_API_KEY', 'invalid admin API key');
  const digest = deps.secrets.digest(adminKey);
  const app = await deps.store.findApplicationByAdminKeyDigest(digest);
  if (app === null || !deps.secrets.sameDigest(digest, app.adminApiKeyDigest)) {
    throw new DomainError('INVALID_ADMIN_API_KEY', 'invalid admin API key');
  }
  return app;
}
