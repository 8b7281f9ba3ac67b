// Every persistence port in one object. Methods marked ATOMIC read, decide (with src/domain rules)
// and write in one transaction that holds across processes (SQLite BEGIN IMMEDIATE; PostgreSQL row
// locks); a DomainError thrown inside one rolls back everything it wrote.
import type { ApplicationStore } from './application-store.js';
import type { BanStore } from './ban-store.js';
import type { ContentStore } from './content-store.js';
import type { DeviceStore } from './device-store.js';
import type { EventStore } from './event-store.js';
import type { WebhookQueue, WebhookStore } from './webhook-store.js';
import type { FileStore } from './file-store.js';
import type { JobQueue } from './job-queue.js';
import type { LicenseStore } from './license-store.js';
import type { MembershipNoticeStore } from './membership-notice-store.js';
import type { OverviewStore } from './overview-store.js';
import type { OwnerStore } from './owner-store.js';
import type { PlanStore } from './plan-store.js';
import type { RefreshTokenStore } from './refresh-token-store.js';
import type { RequestNonceStore } from './request-nonce-store.js';
import type { SessionStore } from './session-store.js';
import type { FloatingSeatStore } from './floating-seat-store.js';
import type { ThrottleStore } from './throttle-store.js';
import type { TrialStore } from './trial-store.js';
import type { UserStore } from './user-store.js';
import type { UserVariableStore } from './user-variable-store.js';

export interface Store
  extends
    OwnerStore,
    OverviewStore,
    ApplicationStore,
    LicenseStore,
    PlanStore,
    UserStore,
    DeviceStore,
    MembershipNoticeStore,
    UserVariableStore,
    SessionStore,
    RefreshTokenStore,
    FloatingSeatStore,
    BanStore,
    ThrottleStore,
    TrialStore,
    RequestNonceStore,
    ContentStore,
    FileStore,
    JobQueue,
    EventStore,
    WebhookStore,
    WebhookQueue {
  /** Transactions and writes running or waiting for one of the database's `connections` (the
   * metrics read it). */
  databaseLoad(): { inFlight: number; connections: number };
  /** Refreshes the database's planner statistics where its tables changed much (docs/choices.md,
   * "Planner statistics"); the tables refreshed. */
  refreshStatistics(): Promise<string[]>;
  /** Throws when the database cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
