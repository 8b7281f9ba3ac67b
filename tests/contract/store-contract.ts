// One behavioural contract for every Store adapter. Each adapter's test file calls
// describeStoreContract with a factory for a fresh, empty store; anything an adapter cannot (yet)
// honour is listed in `skip` by test or section name, so gaps are explicit rather than silent.
// An adapter may also offer `connect`, a second store on the same database (another connection),
// for the tests that race two connections. Each also reads the throttle counters the store keeps
// (`readThrottle`, over the dialect it opened the store with; see support/throttle-counters.ts).
import { afterEach, beforeEach, describe, it } from 'vitest';
import type { Store } from '../../src/application/ports/store.js';
import type { ReadThrottle } from '../support/throttle-counters.js';
import { concurrencyContract } from './contract-concurrency.js';
import { deviceContract } from './contract-devices.js';
import { eventContract } from './contract-events.js';
import { fileContract } from './contract-files.js';
import { floatingSeatContract } from './contract-floating-seats.js';
import { jobContract } from './contract-jobs.js';
import { licenseContract } from './contract-licenses.js';
import { planLicenseContract } from './contract-plan-licenses.js';
import { membershipNoticeContract } from './contract-membership-notices.js';
import { ownerApplicationContract } from './contract-owners-applications.js';
import { overviewContract } from './contract-overview.js';
import { planContract } from './contract-plans.js';
import { banThrottleContentContract } from './contract-bans-throttle-content.js';
import { requestNonceContract } from './contract-request-nonces.js';
import { sessionContract } from './contract-sessions.js';
import { leaseContract } from './contract-leases.js';
import { refreshTokenContract } from './contract-refresh-tokens.js';
import { trialContract } from './contract-trials.js';
import { userContract } from './contract-users.js';
import { userPlanContract } from './contract-user-plans.js';
import { userVariableContract } from './contract-user-variables.js';
import { webhookContract } from './contract-webhooks.js';
import type { StoreOptions } from '../../src/adapters/persistence/sql-store.js';

export interface OpenedStore {
  store: Store;
  /** The counters as `store` keeps them, read over the dialect it was opened with. */
  readThrottle: ReadThrottle;
  /** Closes the store (and removes its database); every `connect`ed store is closed before. */
  cleanup: () => Promise<void>;
  /** Another store on the same database, over its own connection (with another audit key: a writer without the master key). */
  connect?: (options?: StoreOptions) => Promise<Store>;
}

export type OpenStore = () => Promise<OpenedStore>;

export interface ContractContext {
  /** The store of the running test. */
  store(): Store;
  /** A second store on the running test's database, closed after the test. */
  connect(options?: StoreOptions): Promise<Store>;
  /** The throttle counters in the running test's database. */
  readThrottle: ReadThrottle;
  /** `it`, or `it.skip` when the test or its section is on the adapter's skip list. */
  test(name: string, fn: () => Promise<void>): void;
  /** Opens the section `name` (a describe block) whose tests `body` registers. */
  section(name: string, body: () => void): void;
}

export function describeStoreContract(adapterName: string, open: OpenStore, options: { skip?: string[] } = {}): void {
  const skip = new Set(options.skip ?? []);
  describe(`Store contract: ${adapterName}`, () => {
    let current: OpenedStore | null = null;
    const peers: Store[] = [];
    let sectionName = '';

    beforeEach(async () => {
      current = await open();
    });
    afterEach(async () => {
      const done = current;
      current = null;
      for (const peer of peers.splice(0)) await peer.close();
      if (done) await done.cleanup();
    });

    const ctx: ContractContext = {
      store() {
        if (current === null) throw new Error('no store open outside a test');
        return current.store;
      },
      readThrottle(applicationId, accountKey, ip) {
        if (current === null) throw new Error('no store open outside a test');
        return current.readThrottle(applicationId, accountKey, ip);
      },
      async connect(options) {
        if (current === null) throw new Error('no store open outside a test');
        if (current.connect === undefined) throw new Error(`${adapterName} offers no second connection: skip this test`);
        const peer = await current.connect(options);
        peers.push(peer);
        return peer;
      },
      test(name, fn) {
        const skipped = skip.has(name) || skip.has(sectionName) || skip.has(`${sectionName}: ${name}`);
        (skipped ? it.skip : it)(name, fn);
      },
      section(name, body) {
        describe(name, () => {
          const outer = sectionName;
          sectionName = name;
          body();
          sectionName = outer;
        });
      },
    };

    ownerApplicationContract(ctx);
    licenseContract(ctx);
    planContract(ctx);
    planLicenseContract(ctx);
    userContract(ctx);
    userPlanContract(ctx);
    userVariableContract(ctx);
    sessionContract(ctx);
    leaseContract(ctx);
    deviceContract(ctx);
    refreshTokenContract(ctx);
    banThrottleContentContract(ctx);
    requestNonceContract(ctx);
    fileContract(ctx);
    jobContract(ctx);
    overviewContract(ctx);
    concurrencyContract(ctx);
    webhookContract(ctx);
    eventContract(ctx);
    membershipNoticeContract(ctx);
    trialContract(ctx);
    floatingSeatContract(ctx);
  });
}
