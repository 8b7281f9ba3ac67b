import { createBanMemory } from './application/ban-memory.js';
import { createContentCache } from './application/integration/content-cache.js';
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { Deps } from './application/deps.js';
import { createJobBell } from './application/files/job-bell.js';
import type { BlobStore } from './application/ports/blob-store.js';
import type { Clock } from './application/ports/runtime.js';
import type { Store } from './application/ports/store.js';
import { createArgon2Hasher, type Argon2Parameters } from './adapters/crypto/argon2-hasher.js';
import { createRequestSignatures } from './adapters/crypto/request-signatures.js';
import { createResponseSigningKeys } from './adapters/crypto/response-signing-keys.js';
import { createSecrets, deriveKey } from './adapters/crypto/secrets.js';
import { createSessionTokens } from './adapters/crypto/session-tokens.js';
import { createAnnouncementSanitizer } from './adapters/html/announcement-sanitizer.js';
import { renderEvent } from './adapters/events/render-event.js';
import { createWebhookSender } from './adapters/events/webhook-sender.js';
import type { ThrottleLimits } from './domain/auth-throttle.js';
import { JOB_LEASE_MS } from './domain/files.js';
import type { SignUpLimits } from './domain/sign-up-limits.js';

export interface ComposeOptions {
  store: Store;
  blobs: BlobStore;
  maxUploadBytes: number;
  /** Lease of a claimed file-processing job (heartbeats renew it). */
  jobLeaseMs?: number;
  masterKey: Uint8Array;
  limits: ThrottleLimits;
  signUpLimits: Pick<SignUpLimits, 'perAddress'>;
  clock?: Clock;
  /** Tests may lower the cost; the service always runs at the argon2id floor of docs/security.md (Security notes) or above. */
  argon2?: Argon2Parameters;
  /** Requests with password work in progress or waiting, per application (and for the console). */
  passwordQueuePerApplication?: number;
  /** A Bearer console token unused this long stops working (default DEFAULT_CONSOLE_TOKEN_IDLE_HOURS). */
  consoleTokenIdleHours?: number;
  /** GATEHOUSE_WEBHOOKS_ALLOW_PRIVATE: webhooks may go to http:// and non-public addresses. */
  webhooksAllowPrivate?: boolean;
}

/** docs/configuration.md, Configuration: GATEHOUSE_CONSOLE_TOKEN_IDLE_HOURS (30 days). */
export const DEFAULT_CONSOLE_TOKEN_IDLE_HOURS = 720;

/** docs/configuration.md, Configuration: GATEHOUSE_PASSWORD_QUEUE. */
export const DEFAULT_PASSWORD_QUEUE = 64;

export const systemClock: Clock = { now: () => Date.now() };

/** The audit chain's key: the store seals and links with it, `audit verify` checks with it. */
export const auditChainKey = (masterKey: Uint8Array): Buffer => deriveKey(masterKey, 'audit-chain');

/** Wires the driven adapters into the dependencies every use case takes. */
export function composeDeps(options: ComposeOptions): Deps {
  // No more concurrent hashes than libuv's threads (they would queue holding memory) nor than
  // cores (extra ones thrash caches and crowd out the event loop: docs/performance-log.md,
  // "figures from comments"). The threads left over serve file system and WebCrypto work.
  const threads = Number(process.env['UV_THREADPOOL_SIZE'] ?? 4) || 4;
  const secrets = createSecrets(options.masterKey);
  return {
    store: options.store,
    hasher: createArgon2Hasher({
      maxConcurrent: Math.max(1, Math.min(threads, availableParallelism())),
      maxQueuedPerLane: options.passwordQueuePerApplication ?? DEFAULT_PASSWORD_QUEUE,
      parameters: options.argon2,
    }),
    tokens: createSessionTokens(deriveKey(options.masterKey, 'session-tokens')),
    secrets,
    responseKeys: createResponseSigningKeys(secrets),
    auditChainKey: auditChainKey(options.masterKey),
    renderEvent,
    requestSignatures: createRequestSignatures(secrets),
    clock: options.clock ?? systemClock,
    ids: { uuid: randomUUID },
    limits: options.limits,
    signUpLimits: options.signUpLimits,
    console: { tokenIdleMs: (options.consoleTokenIdleHours ?? DEFAULT_CONSOLE_TOKEN_IDLE_HOURS) * 3_600_000 },
    blobs: options.blobs,
    content: createContentCache(options.store),
    bans: createBanMemory(options.store),
    webhooks: createWebhookSender({ allowPrivate: options.webhooksAllowPrivate ?? false }),
    html: createAnnouncementSanitizer(),
    files: {
      maxUploadBytes: options.maxUploadBytes,
      jobLeaseMs: options.jobLeaseMs ?? JOB_LEASE_MS,
      jobQueued: createJobBell(),
    },
  };
}
