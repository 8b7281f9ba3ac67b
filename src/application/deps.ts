import type { ThrottleLimits } from '../domain/auth-throttle.js';
import type { SignUpLimits } from '../domain/sign-up-limits.js';
import type { JobBell } from './files/job-bell.js';
import type { BanMemory } from './ban-memory.js';
import type { ContentCache } from './integration/content-cache.js';
import type { BlobStore } from './ports/blob-store.js';
import type { HtmlSanitizer } from './ports/html-sanitizer.js';
import type { PasswordHasher } from './ports/password-hasher.js';
import type { RenderEvent } from './ports/event-renderer.js';
import type { Clock, Ids } from './ports/runtime.js';
import type { Secrets } from './ports/secrets.js';
import type { Store } from './ports/store.js';
import type { RequestSignatures } from './ports/request-signatures.js';
import type { ResponseSigningKeys } from './ports/response-signing-keys.js';
import type { TokenService } from './ports/token-service.js';
import type { WebhookSender } from './ports/webhook-sender.js';
import type { ChainKey } from '../domain/audit-chain.js';

// Every driven port and the limits from configuration, as compose.ts builds them. A use case
// declares only the part it uses, so whole Deps always fits (docs/architecture.md, "The layers").
export interface Deps {
  store: Store;
  hasher: PasswordHasher;
  tokens: TokenService;
  secrets: Secrets;
  responseKeys: ResponseSigningKeys;
  requestSignatures: RequestSignatures;
  /** The audit chain's key, derived from the master key (docs/events.md, The hash chain). */
  auditChainKey: ChainKey;
  /** Shows a stored event's facts as the wire does (docs/choices.md, "Events are data"). */
  renderEvent: RenderEvent;
  clock: Clock;
  ids: Ids;
  limits: ThrottleLimits;
  /** Successful sign-ups per address and per application, per hour. */
  /** The server's per-address limit; the per-application one is the application's setting. */
  signUpLimits: Pick<SignUpLimits, 'perAddress'>;
  blobs: BlobStore;
  console: {
    /** A Bearer console token unused this long stops working (GATEHOUSE_CONSOLE_TOKEN_IDLE_HOURS). */
    tokenIdleMs: number;
  };
  /** The applications' content as app_context serves it, cached in process. */
  content: ContentCache;
  /** The bans among requests' identifiers, remembered in process while an application's bans stand. */
  bans: BanMemory;
  /** Calls webhook receivers, and decides which URLs may be one. */
  webhooks: WebhookSender;
  /** Announcement HTML, sanitised on write. */
  html: HtmlSanitizer;
  files: {
    /** Largest accepted upload, in bytes. */
    maxUploadBytes: number;
    /** Lease of a claimed processing job; heartbeats renew it. */
    jobLeaseMs: number;
    /** Rung after a job is queued, so a local worker starts at once instead of at its next poll. */
    jobQueued: JobBell;
  };
}

/** Where a request came from, as the HTTP adapter resolved it. */
export interface Caller {
  ip: string;
}

/** Issued-key prefixes, so a leaked key can be recognised for what it is. */
export const keyPrefixes = {
  apiKey: 'gh_pk_',
  apiSecret: 'gh_sk_',
  adminApiKey: 'gh_adm_',
  consoleToken: 'gh_con_',
  refreshToken: 'gh_rt_',
} as const;
