// The bans among a request's identifiers, for every authenticated request.
//
// The keys are matched as row values, `(type, value) IN (VALUES (?, ?), ...)`: SQLite then probes
// bans_app_type_value_uq on all three columns for each key (EXPLAIN QUERY PLAN: SEARCH bans USING
// COVERING INDEX bans_app_type_value_uq (application_id=? AND type=? AND value=?)), where an OR of
// (type = ? AND value = ?) terms only used the application_id prefix and read every ban of the
// application. The key count varies, so one statement is prepared per padded size, 1, 2, 4, ...
// 256, and kept: the padding repeats the last key, which changes nothing for IN. A user's licenses
// are not keys: the statement joins them in (held-licenses.ts). The answers are remembered while the file is unchanged, as the other hot reads'
// are (unchanged-reads.ts): a request's keys are the same from one request to the next.
import type Database from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import type { Db } from '../dialect.js';
import { bansAmong, type FastReads, holderIdOf, liveMatches, matchedBanFields } from './fast-reads.js';
import type { Tables } from '../tables.js';
import { prepareRead, type PreparedRead } from './sqlite-prepared-read.js';

const MAX_KEYS = 256;

const paddedSize = (n: number) => 2 ** Math.ceil(Math.log2(n));

/** A row of bansAmong, as liveMatches takes it. */
type BanRow = Parameters<typeof liveMatches>[0][number];

/** `remember` wraps each prepared read (the dialect's memory of unchanged answers, or nothing). */
export function prepareMatchingBans(
  db: Db,
  tables: Pick<Tables, 'bans' | 'licenses'>,
  client: Database.Database,
  remember: <Row>(read: PreparedRead<Row>) => PreparedRead<Row>,
): FastReads['matchingBans'] {
  const bySize = new Map<number, PreparedRead<BanRow>>();
  const statementFor = (size: number) => {
    let read = bySize.get(size);
    if (read === undefined) {
      const pairs = Array.from({ length: size }, (_, i) => sql`(${sql.placeholder(`t${i}`)}, ${sql.placeholder(`v${i}`)})`);
      read = remember(prepareRead(client, matchedBanFields(tables.bans), bansAmong(db, tables, sql`values ${sql.join(pairs, sql`, `)}`)));
      bySize.set(size, read);
    }
    return read;
  };

  return async (applicationId, keys, now) => {
    const found: BanRow[] = [];
    // No keys, no query: nothing can match.
    for (let start = 0; start < keys.length; start += MAX_KEYS) {
      const part = keys.slice(start, start + MAX_KEYS);
      const size = paddedSize(part.length);
      const params: Record<string, string | number> = { applicationId, holderId: holderIdOf(keys) };
      for (let i = 0; i < size; i++) {
        const key = part[Math.min(i, part.length - 1)]!;
        params[`t${i}`] = key.type;
        params[`v${i}`] = key.value;
      }
      found.push(...statementFor(size)(params));
    }
    return liveMatches(found, now);
  };
}
