// The reads every integration request makes, built once and prepared once by the dialect, without
// drizzle's per-call building (docs/architecture.md, "The fast path"). Each is an indexed lookup
// (its index named beside it), so it stays flat as users and licenses grow.
import { and, asc, desc, eq, getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { accessReads } from './access-reads.js';
import { applicationReads } from './application-reads.js';
import type { BuiltSelect } from './compiled.js';
import type { FastReads } from './fast-reads.js';
import { toAnnouncement, toApplication, toFile, toSession, toUser } from '../row-mappers.js';

const p = sql.placeholder;

export function hotReads(dialect: FastReads) {
  const { db, t, binary, prepare, matchingBans } = dialect;
  const { applications, sessions, users, licenses, variables, announcements, files, devices } = t;
  /** The whole rows of `table` that match `where`, in `order`. */
  const rowsOf = <T extends PgTable>(table: T, where: SQL | undefined, ...order: SQL[]) => {
    const fields = getTableColumns(table);
    // tsc needs the widening to check `from` on a generic table; the linter's checker does not.
    const query = db
      .select(fields)
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
      .from(table as PgTable)
      .where(where)
      .orderBy(...order);
    // Every column of the table, as drizzle's select infers it for one table: its $inferSelect.
    return prepare(fields, query as unknown as BuiltSelect<T['$inferSelect']>);
  };

  // applications_api_key_unique (api_key=?)
  const applicationByApiKey = rowsOf(applications, eq(applications.apiKey, p('apiKey')));
  // primary key (id=?)
  const sessionById = rowsOf(sessions, eq(sessions.id, p('id')));
  // primary key (id=?)
  const userById = rowsOf(users, and(eq(users.applicationId, p('applicationId')), eq(users.id, p('id'))));
  // users_app_username_key_uq (application_id=? AND username_key=?)
  const userByUsernameKey = rowsOf(users, and(eq(users.applicationId, p('applicationId')), eq(users.usernameKey, p('key'))));
  // users_app_license_idx (application_id=? AND license_id=?), two rows at most
  const holdersOf = and(eq(users.applicationId, p('applicationId')), eq(users.licenseId, p('licenseId')));
  const userFields = getTableColumns(users);
  const licenseHolders = prepare(userFields, db.select(userFields).from(users).where(holdersOf).limit(2));
  // users_app_license_idx, then devices_user_hardware_uq (user_id=? AND hardware_id=?) for each holder
  const registered = and(eq(devices.userId, users.id), eq(devices.hardwareId, p('hardwareId')));
  const licenseHoldersByDevice = prepare(userFields, db.select(userFields).from(users).innerJoin(devices, registered).where(holdersOf).limit(2));
  // licenses_code_digest_unique (code_digest=?)
  const licenseByDigest = rowsOf(licenses, and(eq(licenses.applicationId, p('applicationId')), eq(licenses.codeDigest, p('codeDigest'))));
  // primary key (application_id=?), already in name order
  const variablesOf = rowsOf(variables, eq(variables.applicationId, p('applicationId')), asc(binary(variables.name)));
  // announcements_app_idx (application_id=?)
  const announcementsOf = rowsOf(announcements, eq(announcements.applicationId, p('applicationId')), desc(announcements.publishFrom), desc(binary(announcements.id)));
  // files_app_name_uq (application_id=?). Files created at the same instant are ordered by id.
  const filesOf = rowsOf(files, eq(files.applicationId, p('applicationId')), asc(files.createdAt), asc(binary(files.id)));
  // primary key (id=?)
  const fileById = rowsOf(files, and(eq(files.applicationId, p('applicationId')), eq(files.id, p('id'))));

  // A dialect may hand the same rows to every caller (sqlite/unchanged-reads.ts): each answer is
  // a fresh record, which its caller may change.
  const first = <Row, Record>(rows: Row[], map: (row: Row) => Record): Record | null => {
    const [row] = rows;
    return row === undefined ? null : map(row);
  };
  // Each read chained with a then rather than wrapped in an async function: one promise fewer a
  // call (docs/performance-log.md).
  return {
    findApplicationByApiKey: applicationReads(dialect) ?? ((apiKey: string) => applicationByApiKey({ apiKey }).then((rows) => first(rows, toApplication))),
    findSession: (id: string) => sessionById({ id }).then((rows) => first(rows, toSession)),
    ...accessReads(dialect),
    findUserById: (applicationId: string, id: string) => userById({ applicationId, id }).then((rows) => first(rows, toUser)),
    findUserByUsernameKey: (applicationId: string, key: string) => userByUsernameKey({ applicationId, key }).then((rows) => first(rows, toUser)),
    findLicenseHolders: (applicationId: string, licenseId: string) => licenseHolders({ applicationId, licenseId }).then((rows) => rows.map(toUser)),
    findLicenseHoldersByDevice: (applicationId: string, licenseId: string, hardwareId: string) => licenseHoldersByDevice({ applicationId, licenseId, hardwareId }).then((rows) => rows.map(toUser)),
    findLicenseByDigest: (applicationId: string, codeDigest: string) => licenseByDigest({ applicationId, codeDigest }).then((rows) => first(rows, (row) => ({ ...row }))),
    findMatchingBans: matchingBans,
    listVariables: (applicationId: string) => variablesOf({ applicationId }).then((rows) => rows.map((row) => ({ ...row }))),
    listAnnouncements: (applicationId: string) => announcementsOf({ applicationId }).then((rows) => rows.map(toAnnouncement)),
    listFiles: (applicationId: string) => filesOf({ applicationId }).then((rows) => rows.map(toFile)),
    findFile: (applicationId: string, id: string) => fileById({ applicationId, id }).then((rows) => first(rows, toFile)),
  };
}

export type HotReads = ReturnType<typeof hotReads>;
