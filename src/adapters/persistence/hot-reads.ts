// The reads every integration request makes (app_context, downloads, logins, legacy per-request
// credentials): built once from the tables, prepared once by the dialect, run without drizzle's
// per-call building (each dialect's prepared reads say why that matters). Each is an indexed
// lookup (the index is named beside it), so it stays flat as users and licenses grow.
import { and, asc, desc, eq, getTableColumns, sql } from 'drizzle-orm';
import type { Dialect } from './dialect.js';
import { toAnnouncement, toApplication, toFile, toSession, toUser } from './row-mappers.js';

const p = sql.placeholder;

export function hotReads({ db, t, binary, prepare, matchingBans }: Dialect) {
  const { applications, sessions, users, licenses, variables, announcements, files } = t;

  const cols = {
    applications: getTableColumns(applications),
    sessions: getTableColumns(sessions),
    users: getTableColumns(users),
    licenses: getTableColumns(licenses),
    variables: getTableColumns(variables),
    announcements: getTableColumns(announcements),
    files: getTableColumns(files),
  };
  const licenseId = { id: licenses.id };

  // applications_api_key_unique (api_key=?)
  const applicationByApiKey = prepare(cols.applications, db.select(cols.applications).from(applications).where(eq(applications.apiKey, p('apiKey'))));
  // primary key (id=?)
  const sessionById = prepare(cols.sessions, db.select(cols.sessions).from(sessions).where(eq(sessions.id, p('id'))));
  // primary key (id=?)
  const userById = prepare(
    cols.users,
    db
      .select(cols.users)
      .from(users)
      .where(and(eq(users.applicationId, p('applicationId')), eq(users.id, p('id')))),
  );
  // users_app_username_key_uq (application_id=? AND username_key=?)
  const userByUsernameKey = prepare(
    cols.users,
    db
      .select(cols.users)
      .from(users)
      .where(and(eq(users.applicationId, p('applicationId')), eq(users.usernameKey, p('key')))),
  );
  // users_app_license_idx (application_id=? AND license_id=?)
  const userByLicenseId = prepare(
    cols.users,
    db
      .select(cols.users)
      .from(users)
      .where(and(eq(users.applicationId, p('applicationId')), eq(users.licenseId, p('licenseId')))),
  );
  // licenses_code_digest_unique (code_digest=?)
  const licenseByDigest = prepare(
    cols.licenses,
    db
      .select(cols.licenses)
      .from(licenses)
      .where(and(eq(licenses.applicationId, p('applicationId')), eq(licenses.codeDigest, p('codeDigest')))),
  );
  // licenses_used_by_idx (used_by_user_id=?)
  const redeemedLicenses = prepare(
    licenseId,
    db
      .select(licenseId)
      .from(licenses)
      .where(and(eq(licenses.applicationId, p('applicationId')), eq(licenses.usedByUserId, p('userId')))),
  );
  // primary key (application_id=?), already in name order
  const variablesOf = prepare(
    cols.variables,
    db
      .select(cols.variables)
      .from(variables)
      .where(eq(variables.applicationId, p('applicationId')))
      .orderBy(asc(binary(variables.name))),
  );
  // announcements_app_idx (application_id=?)
  const announcementsOf = prepare(
    cols.announcements,
    db
      .select(cols.announcements)
      .from(announcements)
      .where(eq(announcements.applicationId, p('applicationId')))
      .orderBy(desc(announcements.publishFrom), desc(binary(announcements.id))),
  );
  // files_app_name_uq (application_id=?). Files created at the same instant are ordered by id.
  const filesOf = prepare(
    cols.files,
    db
      .select(cols.files)
      .from(files)
      .where(eq(files.applicationId, p('applicationId')))
      .orderBy(asc(files.createdAt), asc(binary(files.id))),
  );
  // primary key (id=?)
  const fileById = prepare(
    cols.files,
    db
      .select(cols.files)
      .from(files)
      .where(and(eq(files.applicationId, p('applicationId')), eq(files.id, p('id')))),
  );

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
    findLicenseByDigest: async (applicationId: string, codeDigest: string) => (await licenseByDigest({ applicationId, codeDigest }))[0] ?? null,
    redeemedLicenseIds: async (applicationId: string, userId: string) => (await redeemedLicenses({ applicationId, userId })).map((r) => r.id),
    findMatchingBans: matchingBans,
    listVariables: (applicationId: string) => variablesOf({ applicationId }),
    listAnnouncements: async (applicationId: string) => (await announcementsOf({ applicationId })).map(toAnnouncement),
    listFiles: async (applicationId: string) => (await filesOf({ applicationId })).map(toFile),
    findFile: async (applicationId: string, id: string) => first(await fileById({ applicationId, id }), toFile),
  };
}

export type HotReads = ReturnType<typeof hotReads>;
