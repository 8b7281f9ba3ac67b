// The fast path's handle on a PostgreSQL database: the read lane (read-lane.ts), its reads
// prepared once, and those every request makes shared by the requests of a turn (request-batch.ts).
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import type { BanKey, MatchedBan } from '../../../domain/bans.js';
import * as t from '../postgres/schema.js';
import { postgresUnreachable } from '../postgres/dialect.js';
import type { FastReads } from './fast-reads.js';
import { bansAmong, holderIdOf, liveMatches, matchedBanFields } from './fast-reads.js';
import { preparedRead } from './postgres-prepared-read.js';
import { openReadLane } from './read-lane.js';
import { requestBatch } from './request-batch.js';

export function openPostgresFastReads(url: string): FastReads {
  const lane = openReadLane(url);
  // Only builds queries: every read runs on the lane.
  const db = drizzle.mock();
  // One statement whatever the number of keys: the keys travel as two arrays.
  const p = sql.placeholder;
  const bansMatching = preparedRead(lane, matchedBanFields(t.bans), bansAmong(db, t, sql`select * from unnest(${p('types')}::text[], ${p('values')}::text[])`));
  return {
    t,
    db,
    // Byte order, as the plain store's binary() (postgres/dialect.ts).
    binary: (column) => sql`${column} collate "C"`,
    prepare: (fields, query) => preparedRead(lane, fields, query),
    prepareForRequests: (fields, keys, build, versioned) => requestBatch(lane, fields, keys, build, versioned),
    rowVersions: true,
    async matchingBans(applicationId: string, keys: readonly BanKey[], now: number): Promise<MatchedBan[]> {
      if (keys.length === 0) return [];
      return liveMatches(await bansMatching({ applicationId, holderId: holderIdOf(keys), types: keys.map((k) => k.type), values: keys.map((k) => k.value) }), now);
    },
    unreachable: postgresUnreachable,
    wrote: () => {},
    close: () => lane.end(),
  };
}
