// What the fast path's hot reads are built over: a handle of its own on the database (a read-only
// connection on SQLite, the read lane on PostgreSQL), apart from the dialect the plain store uses.
// See docs/architecture.md, "The fast path".
import { and, type Column, eq, sql, type SQL, type Table } from 'drizzle-orm';
import { type BanKey, type BanType, isBanLive, type MatchedBan } from '../../../domain/bans.js';
import type { Db } from '../dialect.js';
import { heldLicenseKeys, holderOf } from '../held-licenses.js';
import type { Tables } from '../tables.js';
import type { BuiltSelect, ReadValues, RequestRows } from './compiled.js';

export interface FastReads {
  /** The tables, and a drizzle database to build the reads with (never run through). */
  t: Tables;
  db: Db;
  binary(column: Column): SQL;
  /** Prepares a hot read once (hot-reads.ts): `query` must select exactly `fields`, in order. */
  prepare<Row>(fields: Record<string, Column>, query: BuiltSelect<Row>): (values: ReadValues) => Promise<Row[]>;
  /** A hot read many requests may share: one statement per event-loop turn on PostgreSQL (request-batch.ts), one a call on
   * SQLite. `build(requests)` selects `requests.tag`, `requests.versions` and then exactly `fields`, from
   * `requests.source` joined on `requests.key(name)` for each of `keys`. */
  prepareForRequests<Row>(
    fields: Record<string, Column>,
    keys: readonly string[],
    build: (requests: RequestRows) => BuiltSelect<unknown>,
    versioned?: Readonly<Record<string, Table>>,
  ): (values: Readonly<Record<string, string>>) => Promise<Row[]>;
  /** Whether rows carry a version every change changes (PostgreSQL's xmin): remembered-by-version.ts. */
  rowVersions: boolean;
  /** The live bans of the application among `keys`. */
  matchingBans(applicationId: string, keys: readonly BanKey[], now: number): Promise<MatchedBan[]>;
  /** Whether `e` says the database could not be reached (as the dialect's unreachable). */
  unreachable(e: unknown): boolean;
  /** Called after each call of the plain store that may have written (SQLite: unchanged-reads.ts). */
  wrote(): void;
  close(): Promise<void>;
}

export const matchedBanFields = (bans: Tables['bans']) => ({
  type: bans.type,
  value: bans.value,
  id: bans.id,
  propagatedFrom: bans.propagatedFrom,
  expiresAt: bans.expiresAt,
});

/** The select behind matchingBans, with the licenses `holderId` redeemed joined in (held-licenses.ts).
 * Expired bans stay in the answer for liveMatches to drop: without the time, the answer holds until
 * the bans change, so SQLite can remember it (unchanged-reads.ts). */
export function bansAmong(db: Db, { bans, licenses, licenseRedemptions }: Pick<Tables, 'bans' | 'licenses' | 'licenseRedemptions'>, keys: SQL) {
  const applicationId = sql.placeholder('applicationId');
  const held = heldLicenseKeys({ licenses, licenseRedemptions }, applicationId, sql.placeholder('holderId'));
  return db
    .select(matchedBanFields(bans))
    .from(bans)
    .where(and(eq(bans.applicationId, applicationId), sql`(${bans.type}, ${bans.value}) in (${keys} union all ${held})`));
}

/** The holderId of bansAmong for `keys`: one no license is used by where no user is among them. */
export const holderIdOf = (keys: readonly BanKey[]): string => holderOf(keys) ?? '';

/** The bans among bansAmong's rows that still hold at `now`. */
export function liveMatches(rows: ReadonlyArray<{ type: string; value: string; id: string; propagatedFrom: string | null; expiresAt: number | null }>, now: number): MatchedBan[] {
  const live: MatchedBan[] = [];
  // The type column only ever holds BanType values written from typed records.
  for (const ban of rows) if (isBanLive(ban, now)) live.push({ ...ban, type: ban.type as BanType });
  return live;
}
