// The bans among a request's identifiers, matched as row values so SQLite probes the whole unique
// index for each key, one statement prepared per padded key count (docs/architecture.md, "Ban
// matching on SQLite"). Answers are remembered while the file is unchanged (unchanged-reads.ts).
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
  tables: Pick<Tables, 'bans' | 'licenses' | 'licenseRedemptions'>,
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
