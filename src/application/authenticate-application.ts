import { DomainError, isDomainError } from '../domain/errors.js';
import type { Deps } from './deps.js';
import type { ApplicationStore } from './ports/application-store.js';
import type { ApplicationRecord } from './records.js';

const invalid = () => new DomainError('INVALID_API_CREDENTIALS', 'invalid application API key or secret');

/** What checking an application's credentials uses. */
type ApplicationCheckDeps = Pick<Deps, 'secrets'>;

/** The key and secret, refused before any read where no application could have them. */
function plausible(apiKey: string | undefined, apiSecret: string | undefined): { apiKey: string; apiSecret: string } {
  if (!apiKey || !apiSecret || apiKey.length > 200 || apiSecret.length > 200) throw invalid();
  return { apiKey, apiSecret };
}

/** The application found by the key, if the secret's digest matches its own. */
function withMatchingSecret(deps: ApplicationCheckDeps, app: ApplicationRecord | null, apiSecret: string): ApplicationRecord {
  // Digest the secret even on a miss so an unknown key takes the same time as a wrong secret.
  const digest = deps.secrets.digest(apiSecret);
  if (app === null || !deps.secrets.sameDigest(digest, app.apiSecretDigest)) throw invalid();
  return app;
}

/** x-api-key and x-api-secret: the key finds the application, the secret's digest must match. */
export async function authenticateApplication(deps: ApplicationCheckDeps & { store: ApplicationStore }, apiKey: string | undefined, apiSecret: string | undefined): Promise<ApplicationRecord> {
  const credentials = plausible(apiKey, apiSecret);
  return withMatchingSecret(deps, await deps.store.findApplicationByApiKey(credentials.apiKey), credentials.apiSecret);
}

/** The application `apiKey` and `apiSecret` name among those `known` finds by key, checked as
 * authenticateApplication checks them, without the store; null where they name none. */
export function matchKnownApplication(
  deps: ApplicationCheckDeps,
  known: (apiKey: string) => ApplicationRecord | undefined,
  apiKey: string | undefined,
  apiSecret: string | undefined,
): ApplicationRecord | null {
  try {
    const credentials = plausible(apiKey, apiSecret);
    return withMatchingSecret(deps, known(credentials.apiKey) ?? null, credentials.apiSecret);
  } catch (error) {
    if (isDomainError(error)) return null;
    throw error;
  }
}

/** Authorization: Bearer <admin API key>; the key alone names its application. */
export async function authenticateAdmin(deps: Pick<Deps, 'secrets'> & { store: ApplicationStore }, adminKey: string | undefined): Promise<ApplicationRecord> {
  if (!adminKey || adminKey.length > 200) throw new DomainError('INVALID_ADMIN_API_KEY', 'invalid admin API key');
  const digest = deps.secrets.digest(adminKey);
  const app = await deps.store.findApplicationByAdminKeyDigest(digest);
  if (app === null || !deps.secrets.sameDigest(digest, app.adminApiKeyDigest)) {
    throw new DomainError('INVALID_ADMIN_API_KEY', 'invalid admin API key');
  }
  return app;
}
