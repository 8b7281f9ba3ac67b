// `gatehouse owner create`: the owner bootstrap. Unlike the CI commands it opens the configured
// database directly, with the server's own configuration (same database, same master key).
import { mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createOwner } from '../application/console/owners.js';
import { loadOrCreateMasterKey } from '../adapters/crypto/master-key.js';
import { composeDeps } from '../compose.js';
import { assertMasterKeyMatches } from '../startup-checks.js';
import { readConfig } from '../config.js';
import { assertSupported, openConfiguredBlobStore, openConfiguredStore } from '../open-store.js';
import { UsageError } from './cli-errors.js';

export async function ownerCreate(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { email: { type: 'string' }, password: { type: 'string' } }, strict: true });
  if (!values.email || !values.password) throw new UsageError('owner create needs --email and --password');
  const config = readConfig();
  assertSupported(config);
  mkdirSync(config.dataDir, { recursive: true });
  // Same configuration as the server: same database, same master key (digests must agree).
  const masterKey = config.masterKey ?? loadOrCreateMasterKey(config.dataDir);
  const store = await openConfiguredStore(config);
  try {
    const deps = composeDeps({
      store,
      blobs: openConfiguredBlobStore(config),
      masterKey,
      limits: { lockoutThreshold: config.lockoutThreshold, ipFailureLimit: config.ipFailureLimit },
      maxUploadBytes: config.maxUploadBytes,
    });
    await assertMasterKeyMatches(deps);
    const session = await createOwner(deps, values.email, values.password);
    process.stdout.write(`${JSON.stringify(session)}\n`);
    return 0;
  } finally {
    await store.close();
  }
}
