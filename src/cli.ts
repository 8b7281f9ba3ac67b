#!/usr/bin/env node
// The gatehouse command: owner bootstrap now; CI file commands later.
import { mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createOwner } from './application/console/owners.js';
import { loadOrCreateMasterKey } from './adapters/crypto/master-key.js';
import { composeDeps } from './compose.js';
import { assertMasterKeyMatches } from './startup-checks.js';
import { ConfigError, readConfig } from './config.js';
import { isDomainError } from './domain/errors.js';
import { assertSupported, openConfiguredBlobStore, openConfiguredStore } from './open-store.js';

const USAGE = `usage:
  gatehouse owner create --email EMAIL --password PASSWORD
    Creates an owner in the configured database and prints {"owner": {...}, "token": "..."}.`;

async function ownerCreate(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { email: { type: 'string' }, password: { type: 'string' } }, strict: true });
  if (!values.email || !values.password) {
    console.error(USAGE);
    return 2;
  }
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

async function run(argv: string[]): Promise<number> {
  const [group, command, ...rest] = argv;
  if (group === 'owner' && command === 'create') return ownerCreate(rest);
  console.error(USAGE);
  return 2;
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigError || isDomainError(error)) console.error(`gatehouse: ${error.message}`);
    else if ((error as { code?: string })?.code?.startsWith('ERR_PARSE_ARGS')) console.error(`gatehouse: ${(error as Error).message}\n${USAGE}`);
    else console.error(`gatehouse: ${(error as Error)?.message ?? String(error)}`);
    process.exit(1);
  },
);
