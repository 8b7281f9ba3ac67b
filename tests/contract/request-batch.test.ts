// PostgreSQL's hot reads shared by many requests (fast/request-batch.ts): the calls of one
// turn of the event loop go out as one statement, each answered with its own rows; a statement
// failure fails the requests it carried and no others; a turn with more requests than one
// statement takes is split.
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import { afterEach, describe, expect, it } from 'vitest';
import { applications } from '../../src/adapters/persistence/postgres/schema.js';
import { openPostgresStore } from '../../src/adapters/persistence/postgres/postgres-store.js';
import { openReadLane, type ReadLane } from '../../src/adapters/persistence/fast/read-lane.js';
import { requestBatch } from '../../src/adapters/persistence/fast/request-batch.js';
import { adminUrl, freshDatabase } from '../support/postgres-databases.js';
import { seedApp } from './fixtures.js';

describe.skipIf(!adminUrl)('request batches (PostgreSQL)', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** Two applications, and a read of an application's name by API key over a lane that counts (and may fail) its statements. */
  async function setUp(options: { failFirst?: boolean; maxRequests?: number } = {}) {
    const { url, drop } = await freshDatabase();
    cleanups.push(drop);
    const store = await openPostgresStore({ url });
    cleanups.push(() => store.close());
    const apps = [(await seedApp(store)).app, (await seedApp(store)).app];
    const real = openReadLane(url);
    cleanups.push(() => real.end());
    const statements: number[] = [];
    let failed = false;
    const lane: ReadLane = {
      ...real,
      values: (text, args) => {
        statements.push((args[0] as string[]).length);
        if (options.failFirst === true && !failed) {
          failed = true;
          return Promise.reject(new Error('connection lost'));
        }
        return real.values(text, args);
      },
    };
    const db = drizzle.mock();
    const fields = { name: applications.name };
    const read = requestBatch<{ name: string }>(
      lane,
      fields,
      ['apiKey'],
      (requests) =>
        db
          .select({ ...requests.tag, ...fields })
          .from(requests.source)
          .innerJoin(applications, eq(applications.apiKey, requests.key('apiKey'))),
      {},
      options.maxRequests,
    );
    return { apps, read, statements };
  }

  it('answers the requests of one turn with one statement, each with its own rows', async () => {
    const { apps, read, statements } = await setUp();
    const keys = [apps[0]!.apiKey, 'gh_app_unknown', apps[1]!.apiKey, apps[0]!.apiKey, 'gh_app_\u0000'];
    const answers = await Promise.all(keys.map((apiKey) => read({ apiKey })));
    expect(answers).toEqual([[{ name: apps[0]!.name }], [], [{ name: apps[1]!.name }], [{ name: apps[0]!.name }], []]);
    expect(statements).toEqual([5]);
    // A later turn is a statement of its own.
    expect(await read({ apiKey: apps[1]!.apiKey })).toEqual([{ name: apps[1]!.name }]);
    expect(statements).toEqual([5, 1]);
  });

  it('splits a turn with more requests than a statement takes', async () => {
    const { apps, read, statements } = await setUp({ maxRequests: 2 });
    const answers = await Promise.all(apps.concat(apps, apps.slice(0, 1)).map((app) => read({ apiKey: app.apiKey })));
    expect(answers.map((rows) => rows.map((r) => r.name))).toEqual([apps[0], apps[1], apps[0], apps[1], apps[0]].map((app) => [app!.name]));
    expect(statements).toEqual([2, 2, 1]);
  });

  it('a failed statement fails the requests it carried, and the next turn is answered', async () => {
    const { apps, read, statements } = await setUp({ failFirst: true });
    const first = await Promise.allSettled(apps.map((app) => read({ apiKey: app.apiKey })));
    expect(first.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await Promise.all(apps.map((app) => read({ apiKey: app.apiKey })))).toEqual(apps.map((app) => [{ name: app.name }]));
    expect(statements).toEqual([2, 2]);
  });
});
