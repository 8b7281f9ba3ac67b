// One behavioural contract for every Store adapter. Each adapter's test file calls
// describeStoreContract with a factory for a fresh, empty store; anything an adapter cannot (yet)
// honour is listed in `skip` by test or section name, so gaps are explicit rather than silent.
import { afterEach, beforeEach, describe, it } from 'vitest';
import type { Store } from '../../src/application/ports.js';
import { concurrencyContract } from './contract-concurrency.js';
import { licenseContract } from './contract-licenses.js';
import { ownerApplicationContract } from './contract-owners-applications.js';
import { banThrottleContentContract } from './contract-bans-throttle-content.js';
import { sessionContract } from './contract-sessions.js';
import { userContract } from './contract-users.js';

export type OpenStore = () => Promise<{ store: Store; cleanup: () => Promise<void> }>;

export interface ContractContext {
  /** The store of the running test. */
  store(): Store;
  /** `it`, or `it.skip` when the test or its section is on the adapter's skip list. */
  test(name: string, fn: () => Promise<void>): void;
  /** Opens the section `name` (a describe block) whose tests `body` registers. */
  section(name: string, body: () => void): void;
}

export function describeStoreContract(adapterName: string, open: OpenStore, options: { skip?: string[] } = {}): void {
  const skip = new Set(options.skip ?? []);
  describe(`Store contract: ${adapterName}`, () => {
    let current: { store: Store; cleanup: () => Promise<void> } | null = null;
    let sectionName = '';

    beforeEach(async () => {
      current = await open();
    });
    afterEach(async () => {
      const done = current;
      current = null;
      if (done) await done.cleanup();
    });

    const ctx: ContractContext = {
      store() {
        if (current === null) throw new Error('no store open outside a test');
        return current.store;
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
    userContract(ctx);
    sessionContract(ctx);
    banThrottleContentContract(ctx);
    concurrencyContract(ctx);
  });
}
