// The boot sequence every entry point shares (the server, the CLI's local commands, the test harness,
// the bench's seeding), written once: configuration, data folder, master key, stores, dependencies, the
// master key's check, and keys for applications from before response signing (docs/choices.md).
import { mkdirSync } from 'node:fs';
import type { Deps } from './application/deps.js';
import type { Clock } from './application/ports/runtime.js';
import { issueMissingSigningKeys } from './application/signing-keys.js';
import type { Argon2Parameters } from './adapters/crypto/argon2-hasher.js';
import { loadOrCreateMasterKey } from './adapters/crypto/master-key.js';
import { auditChainKey, composeDeps } from './compose.js';
import type { Config } from './config.js';
import { assertSupported, openConfiguredBlobStore, openConfiguredStore } from './open-store.js';
import { assertMasterKeyMatches } from './startup-checks.js';

export interface Booted {
  config: Config;
  deps: Deps;
  /** Closes the store (the blob store holds nothing open). */
  close(): Promise<void>;
}

export interface BootOptions {
  /** Tests move time by hand. */
  clock?: Clock;
  /** Tests lower argon2's cost; the service never does. */
  argon2?: Argon2Parameters;
}

export async function boot(config: Config, options: BootOptions = {}): Promise<Booted> {
  assertSupported(config);
  // Owner-only, like the master key and the database file inside it.
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const masterKey = config.masterKey ?? loadOrCreateMasterKey(config.dataDir);
  const store = await openConfiguredStore(config, { auditKey: auditChainKey(masterKey) });
  try {
    const deps = composeDeps({
      store,
      blobs: openConfiguredBlobStore(config),
      masterKey,
      limits: { lockoutThreshold: config.lockoutThreshold, ipFailureLimit: config.ipFailureLimit, accountFailureLimit: config.accountFailureLimit },
      signUpLimits: { perAddress: config.signUpsPerAddress },
      maxUploadBytes: config.maxUploadBytes,
      jobLeaseMs: config.jobLeaseMs,
      passwordQueuePerApplication: config.passwordQueue,
      consoleTokenIdleHours: config.consoleTokenIdleHours,
      webhooksAllowPrivate: config.webhooksAllowPrivate,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.argon2 ? { argon2: options.argon2 } : {}),
    });
    // Digests and sealed secrets must agree with every other instance's and the CLI's.
    await assertMasterKeyMatches(deps);
    // Applications from before response signing get their keys at upgrade (docs/api.md, Response signing).
    await issueMissingSigningKeys(deps);
    return { config, deps, close: () => store.close() };
  } catch (error) {
    await store.close();
    throw error;
  }
}
