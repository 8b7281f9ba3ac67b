import type { ThrottleLimits } from '../domain/auth-throttle.js';
import type { SignUpLimits } from '../domain/sign-up-limits.js';
import type { JobBell } from './files/job-bell.js';
import type { BlobStore, Clock, HtmlSanitizer, Ids, PasswordHasher, ResponseSigningKeys, Secrets, Store, TokenService } from './ports.js';

/** What every use case runs against: the driven ports and the limits from configuration. */
export interface Deps {
  store: Store;
  hasher: PasswordHasher;
  tokens: TokenService;
  secrets: Secrets;
  responseKeys: ResponseSigningKeys;
  clock: Clock;
  ids: Ids;
  limits: ThrottleLimits;
  /** Successful sign-ups per address and per application, per hour. */
  signUpLimits: SignUpLimits;
  blobs: BlobStore;
  console: {
    /** A Bearer console token unused this long stops working (GATEHOUSE_CONSOLE_TOKEN_IDLE_HOURS). */
    tokenIdleMs: number;
  };
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
} as const;
