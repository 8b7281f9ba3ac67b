import type { Secrets } from './application/ports/secrets.js';
import type { Store } from './application/ports/store.js';
import { ConfigError } from './config.js';

/** Every instance and the CLI must run with the master key the database's secrets were sealed and
 * digested under; with another key nothing would match, silently. One sealed secret tells. */
export async function assertMasterKeyMatches(deps: { store: Pick<Store, 'sampleSealedSecret'>; secrets: Pick<Secrets, 'open'> }): Promise<void> {
  const sample = await deps.store.sampleSealedSecret();
  if (sample === null) return;
  try {
    deps.secrets.open(sample);
  } catch {
    throw new ConfigError('GATEHOUSE_MASTER_KEY: this is not the master key the database was set up with (every instance and the CLI must share one)');
  }
}
