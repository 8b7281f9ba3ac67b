// The reads every integration request makes (app_context, download, login, legacy per-request
// credentials): built once, run as named prepared statements on the read lane (read-lane.ts).
// Building a query with drizzle costs more CPU than PostgreSQL spends running it, and drizzle's
// unprepared queries take two round trips each in postgres.js (Parse/Describe first, then
// Bind/Execute) plus a fresh parse and plan; a prepared statement takes one, with neither.
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { BanKey, BanType } from '../../../domain/bans.js';
import { binary, type Db } from './db.js';
import { toFile } from '../files-row-mappers.js';
import { toAnnouncement, toApplication, toLicense, toSession, toUser, toVariable } from '../row-mappers.js';
import { type BuiltSelect, preparedRead } from './prepared-read.js';
import type { ReadLane } from './read-lane.js';
import { announcements, applications, bans, files, licenses, sessions, users, variables } from './schema.js';

const p = sql.placeholder;

/** `db` only builds the SQL; the reads run on `lane`. */
export function hotReads(db: Db, lane: ReadLane) {
  const read = <Rows extends unknown[]>(query: BuiltSelect<Rows>) => preparedRead(lane, query);
  const applicationByApiKey = read(db.select().from(applications).where(eq(applications.apiKey, p('apiKey'))));
  const sessionById = read(db.select().from(sessions).where(eq(sessions.id, p('id'))));
  const userById = read(db.select().from(users).where(and(eq(users.applicationId, p('applicationId')), eq(users.id, p('id')))));
  const userByUsernameKey = read(
    db
      .select()
      .from(users)
      .where(and(eq(users.applicationId, p('applicationId')), eq(users.usernameKey, p('key'))))
      .limit(1),
  );
  const userByLicenseId = read(
    db
      .select()
      .from(users)
      .where(and(eq(users.applicationId, p('applicationId')), eq(users.licenseId, p('licenseId'))))
      .limit(1),
  );
  const licenseByDigest = read(
    db
      .select()
      .from(licenses)
      .where(and(eq(licenses.applicationId, p('applicationId')), eq(licenses.codeDigest, p('codeDigest')))),
  );
  const redeemedLicenses = read(
    db
      .select({ id: licenses.id })
      .from(licenses)
      .where(and(eq(licenses.applicationId, p('applicationId')), eq(licenses.usedByUserId, p('userId')))),
  );
  // One statement whatever the number of keys: the keys travel as two arrays, so the text (and
  // the prepared statement) stays the same. Each (type, value) pair is a probe of the
  // (application_id, type, value) unique index.
  const matchingBans = read(
    db
      .select({ type: bans.type, value: bans.value })
      .from(bans)
      .where(
        and(
          eq(bans.applicationId, p('applicationId')),
          sql`(${bans.type}, ${bans.value}) in (select * from unnest(${p('types')}::text[], ${p('values')}::text[]))`,
        ),
      ),
  );
  const variablesOf = read(db.select().from(variables).where(eq(variables.applicationId, p('applicationId'))).orderBy(asc(binary(variables.name))));
  const announcementsOf = read(
    db
      .select()
      .from(announcements)
      .where(eq(announcements.applicationId, p('applicationId')))
      .orderBy(desc(announcements.publishFrom), desc(binary(announcements.id))),
  );
  // No rowid here: files created at the same instant are ordered by id. The contract only ever
  // lists files created at different instants.
  const filesOf = read(db.select().from(files).where(eq(files.applicationId, p('applicationId'))).orderBy(asc(files.createdAt), asc(binary(files.id))));
  const fileById = read(db.select().from(files).where(and(eq(files.applicationId, p('applicationId')), eq(files.id, p('id')))));

  const first = <Row, Record>(rows: Row[], map: (row: Row) => Record): Record | null => {
    const [row] = rows;
    return row === undefined ? null : map(row);
  };
  return {
    findApplicationByApiKey: async (apiKey: string) => first(await applicationByApiKey({ apiKey }), toApplication),
    findSession: async (id: string) => first(await sessionById({ id }), toSession),
    findUserById: async (applicationId: string, id: string) => first(await userById({ applicationId, id }), toUser),
    findUserByUsernameKey: async (applicationId: string, key: string) => first(await userByUsernameKey({ applicationId, key }), toUser),
    findUserByLicenseId: async (applicationId: string, licenseId: string) => first(await userByLicenseId({ applicationId, licenseId }), toUser),
    findLicenseByDigest: async (applicationId: string, codeDigest: string) => first(await licenseByDigest({ applicationId, codeDigest }), toLicense),
    redeemedLicenseIds: async (applicationId: string, userId: string) => (await redeemedLicenses({ applicationId, userId })).map((r) => r.id),
    async findMatchingBans(applicationId: string, keys: readonly BanKey[]): Promise<BanKey[]> {
      if (keys.length === 0) return [];
      const rows = await matchingBans({ applicationId, types: keys.map((k) => k.type), values: keys.map((k) => k.value) });
      // The type column only ever holds BanType values written from typed records.
      return rows.map((r) => ({ type: r.type as BanType, value: r.value }));
    },
    listVariables: async (applicationId: string) => (await variablesOf({ applicationId })).map(toVariable),
    listAnnouncements: async (applicationId: string) => (await announcementsOf({ applicationId })).map(toAnnouncement),
    listFiles: async (applicationId: string) => (await filesOf({ applicationId })).map(toFile),
    findFile: async (applicationId: string, id: string) => first(await fileById({ applicationId, id }), toFile),
  };
}

export type HotReads = ReturnType<typeof hotReads>;
