// The Store, written once over a dialect (dialect.ts), one area per module under store/: the
// specification the fast path (fast/) keeps to (docs/architecture.md, "Persistence").
import { floatingSeatStore } from './store/floating-seat-store.js';
import type { RenderEvent } from '../../application/ports/event-renderer.js';
import type { Store } from '../../application/ports/store.js';
import type { Dialect } from './dialect.js';
import { answeringUnreachable } from './unreachable-database.js';
import { banStore } from './store/ban-store.js';
import { contentStore } from './store/content-store.js';
import { deviceStore } from './store/device-store.js';
import { eventStore, eventWriter } from './store/event-log.js';
import { fileStore } from './store/file-store.js';
import { lookups } from './store/lookups.js';
import { jobQueue } from './store/job-queue.js';
import { licenseStore } from './store/license-store.js';
import { membershipNoticeStore } from './store/membership-notice-store.js';
import { applicationStore, ownerStore } from './store/owner-application-store.js';
import { overviewStore } from './store/overview-store.js';
import { planStore } from './store/plan-store.js';
import { refreshTokenStore } from './store/refresh-token-store.js';
import { requestNonceStore } from './store/request-nonce-store.js';
import { sessionStore } from './store/session-store.js';
import { throttleStore } from './store/throttle-store.js';
import { trialStore } from './store/trial-store.js';
import { userStore } from './store/user-store.js';
import { userVariableStore } from './store/user-variable-store.js';
import { webhookStore } from './store/webhook-store.js';

/** The dialect with its transactions, snapshots and writes counted while they run or wait for a
 * connection (Store.databaseLoad, for the metrics: docs/configuration.md, Metrics). */
function counted(dialect: Dialect): { dialect: Dialect; inFlight: () => number } {
  let inFlight = 0;
  const count = <T>(work: () => Promise<T>): Promise<T> => {
    inFlight++;
    return work().finally(() => inFlight--);
  };
  return {
    dialect: {
      ...dialect,
      transaction: (work) => count(() => dialect.transaction(work)),
      snapshot: (work) => count(() => dialect.snapshot(work)),
      write: (work) => count(() => dialect.write(work)),
    },
    inFlight: () => inFlight,
  };
}

export interface StoreOptions {
  /** The audit chain's key (compose.ts auditChainKey); the server and the CLI always give it. */
  auditKey?: Uint8Array;
  // Shows a stored event as the hash chain covers it (compose.ts: the events adapter's renderer).
  // Without it an event is chained as stored, which only a store that never verifies may do.
  renderEvent?: RenderEvent;
  /** Connections that carry transactions and writes (Store.databaseLoad): SQLite's one writer by default. */
  connections?: number;
  /** Brings the planner's statistics up to date (PostgreSQL: postgres/statistics.ts); nothing by default. */
  refreshStatistics?: () => Promise<string[]>;
}

/** A store opened without a key (tests of other areas) chains under this public one: no evidence then. */
export const UNKEYED_AUDIT_KEY = new Uint8Array(32);

/** Shows an event as stored: for stores opened without the events adapter's renderer. */
const asStored: RenderEvent = (e) => ({ data: e.data, changes: e.changes });

/** The Store over an opened (and migrated) dialect; closing the store closes the dialect. A call
 * failing because the database cannot be reached throws SERVICE_UNAVAILABLE (unreachable-database.ts). */
export function openStore(opened: Dialect, options: StoreOptions = {}): Store {
  const { dialect, inFlight } = counted(opened);
  const reads = lookups(dialect);
  const auditKey = options.auditKey ?? UNKEYED_AUDIT_KEY;
  const recordEvents = eventWriter(dialect, auditKey);
  const store: Store = {
    ...ownerStore(dialect),
    ...applicationStore(dialect, reads, recordEvents),
    ...overviewStore(dialect),
    ...licenseStore(dialect, reads, recordEvents),
    ...planStore(dialect),
    ...userStore(dialect, reads, recordEvents),
    ...deviceStore(dialect, recordEvents),
    ...membershipNoticeStore(dialect, recordEvents),
    ...userVariableStore(dialect, recordEvents),
    ...sessionStore(dialect, reads, recordEvents),
    ...refreshTokenStore(dialect, recordEvents),
    ...floatingSeatStore(dialect, recordEvents),
    ...banStore(dialect, reads, recordEvents),
    ...throttleStore(dialect),
    ...trialStore(dialect, recordEvents),
    ...requestNonceStore(dialect),
    ...contentStore(dialect, reads, recordEvents),
    ...fileStore(dialect, reads, recordEvents),
    ...jobQueue(dialect, recordEvents),
    ...eventStore(dialect, auditKey, recordEvents, options.renderEvent ?? asStored),
    ...webhookStore(dialect, recordEvents),
    databaseLoad: () => ({ inFlight: inFlight(), connections: options.connections ?? 1 }),
    refreshStatistics: options.refreshStatistics ?? (async () => []),
    ping: () => dialect.ping(),
    close: () => dialect.close(),
  };
  return answeringUnreachable(store, dialect.unreachable);
}
