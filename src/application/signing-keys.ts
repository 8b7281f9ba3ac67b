// The signing keys every application holds (docs/api.md, Response signing): made with the
// application, and issued at start to older ones, since SQL cannot make an Ed25519 key or seal
// under the master key; why the first key written wins: docs/choices.md, "Response signing".
import type { Deps } from './deps.js';
import type { ApplicationStore } from './ports/application-store.js';
import type { ApplicationRecord, ResponseSigningKey } from './records.js';

/** A new request signing key: 32 random bytes in base64, shown once, and that value sealed. */
export function newRequestSigningKey(deps: Pick<Deps, 'secrets'>): { value: string; sealed: string } {
  const value = Buffer.from(deps.secrets.randomBytes(32)).toString('base64');
  return { value, sealed: deps.secrets.seal(value) };
}

const freshKeys = (deps: Pick<Deps, 'secrets' | 'responseKeys'>): { response: ResponseSigningKey; requestSealed: string } => ({
  response: deps.responseKeys.generate(),
  requestSealed: newRequestSigningKey(deps).sealed,
});

const hasKeys = (app: ApplicationRecord) => app.signing.response !== null && app.signing.requestSealed !== null;

/** The application with both current signing keys: one made by an instance of an older version
 * during an upgrade (after this instance started) gets them now. */
export async function withSigningKeys(deps: Pick<Deps, 'secrets' | 'responseKeys'> & { store: ApplicationStore }, app: ApplicationRecord): Promise<ApplicationRecord> {
  if (hasKeys(app)) return app;
  return (await deps.store.fillMissingSigningKeys(app.id, freshKeys(deps))) ?? app;
}

/** The start-up step: every application lacking a signing key gets one. Returns how many did. */
export async function issueMissingSigningKeys(deps: Pick<Deps, 'secrets' | 'responseKeys'> & { store: ApplicationStore }): Promise<number> {
  const ids = await deps.store.applicationsWithoutSigningKeys();
  for (const id of ids) await deps.store.fillMissingSigningKeys(id, freshKeys(deps));
  return ids.length;
}
