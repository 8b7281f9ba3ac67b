// The reads integration requests make (app_context, downloads, logins, legacy per-request
// credentials), prepared once per connection when the store opens (after migrations). Each one
// is an indexed lookup (EXPLAIN QUERY PLAN noted beside it), so it stays flat as users and
// licenses grow; the per-application lists sort a handful of rows in a temp b-tree.
import type Database from 'better-sqlite3';
import { and, asc, desc, eq, getTableColumns, gt, isNull, sql } from 'drizzle-orm';
import { prepareMatchingBans } from './ban-matching.js';
import type { Db } from './db.js';
import { prepareRead } from './prepared-read.js';
import {
  announcements,
  applications,
  authAccountCounters,
  authIpCounters,
  bans,
  devices,
  files,
  licenses,
  sessions,
  users,
  variables,
} from './schema.js';

const p = sql.placeholder;

export type HotReads = ReturnType<typeof prepareHotReads>;

export function prepareHotReads(db: Db, client: Database.Database) {
  const all = {
    applications: getTableColumns(applications),
    sessions: getTableColumns(sessions),
    users: getTableColumns(users),
    licenses: getTableColumns(licenses),
    variables: getTableColumns(variables),
    announcements: getTableColumns(announcements),
    files: getTableColumns(files),
  };
  const ids = { licenses: { id: licenses.id }, bans: { id: bans.id } };
  const device = { id: devices.id, hardwareId: devices.hardwareId };
  const liveSession = { id: sessions.id, hardwareId: sessions.hardwareId, expiresAt: sessions.expiresAt, revokedAt: sessions.revokedAt };
  const account = {
    failures: authAccountCounters.failures,
    lockedUntil: authAccountCounters.lockedUntil,
    lockouts: authAccountCounters.lockouts,
    inFlight: authAccountCounters.inFlight,
    inFlightUntil: authAccountCounters.inFlightUntil,
  };
  const ip = { windowStart: authIpCounters.windowStart, failures: authIpCounters.failures };

  return {
    // bans_app_type_value_uq (application_id=? AND type=? AND value=?), per key (ban-matching.ts)
    matchingBans: prepareMatchingBans(db, client),
    // applications_api_key_unique (api_key=?)
    applicationByApiKey: prepareRead(
      client,
      all.applications,
      db.select(all.applications).from(applications).where(eq(applications.apiKey, p('apiKey'))),
    ),
    // primary key (id=?)
    sessionById: prepareRead(client, all.sessions, db.select(all.sessions).from(sessions).where(eq(sessions.id, p('id')))),
    // sessions_user_idx (user_id=?)
    liveSessionsOfUser: prepareRead(
      client,
      liveSession,
      db
        .select(liveSession)
        .from(sessions)
        .where(and(eq(sessions.userId, p('userId')), isNull(sessions.revokedAt), gt(sessions.expiresAt, p('now')))),
    ),
    // primary key (id=?)
    userById: prepareRead(
      client,
      all.users,
      db
        .select(all.users)
        .from(users)
        .where(and(eq(users.applicationId, p('applicationId')), eq(users.id, p('id')))),
    ),
    // users_app_username_key_uq (application_id=? AND username_key=?)
    userByUsernameKey: prepareRead(
      client,
      all.users,
      db
        .select(all.users)
        .from(users)
        .where(and(eq(users.applicationId, p('applicationId')), eq(users.usernameKey, p('usernameKey')))),
    ),
    // users_app_license_idx (application_id=? AND license_id=?)
    userByLicenseId: prepareRead(
      client,
      all.users,
      db
        .select(all.users)
        .from(users)
        .where(and(eq(users.applicationId, p('applicationId')), eq(users.licenseId, p('licenseId')))),
    ),
    // devices_user_hardware_uq (user_id=?)
    devicesOfUser: prepareRead(client, device, db.select(device).from(devices).where(eq(devices.userId, p('userId')))),
    // licenses_code_digest_unique (code_digest=?)
    licenseByDigest: prepareRead(
      client,
      all.licenses,
      db
        .select(all.licenses)
        .from(licenses)
        .where(and(eq(licenses.applicationId, p('applicationId')), eq(licenses.codeDigest, p('codeDigest')))),
    ),
    // licenses_used_by_idx (used_by_user_id=?)
    redeemedLicenseIds: prepareRead(
      client,
      ids.licenses,
      db
        .select(ids.licenses)
        .from(licenses)
        .where(and(eq(licenses.applicationId, p('applicationId')), eq(licenses.usedByUserId, p('userId')))),
    ),
    // bans_app_type_value_uq (application_id=? AND type=? AND value=?)
    userBan: prepareRead(
      client,
      ids.bans,
      db
        .select(ids.bans)
        .from(bans)
        .where(and(eq(bans.applicationId, p('applicationId')), eq(bans.type, 'user'), eq(bans.value, p('userId')))),
    ),
    // primary key (application_id=? AND account_key=?)
    accountCounter: prepareRead(
      client,
      account,
      db
        .select(account)
        .from(authAccountCounters)
        .where(and(eq(authAccountCounters.applicationId, p('applicationId')), eq(authAccountCounters.accountKey, p('accountKey')))),
    ),
    // primary key (application_id=? AND ip=?)
    ipCounter: prepareRead(
      client,
      ip,
      db
        .select(ip)
        .from(authIpCounters)
        .where(and(eq(authIpCounters.applicationId, p('applicationId')), eq(authIpCounters.ip, p('ip')))),
    ),
    // primary key (application_id=?), already in name order
    variablesOf: prepareRead(
      client,
      all.variables,
      db
        .select(all.variables)
        .from(variables)
        .where(eq(variables.applicationId, p('applicationId')))
        .orderBy(asc(variables.name)),
    ),
    // announcements_app_idx (application_id=?)
    announcementsOf: prepareRead(
      client,
      all.announcements,
      db
        .select(all.announcements)
        .from(announcements)
        .where(eq(announcements.applicationId, p('applicationId')))
        .orderBy(desc(announcements.publishFrom), desc(announcements.id)),
    ),
    // files_app_name_uq (application_id=?)
    filesOf: prepareRead(
      client,
      all.files,
      db
        .select(all.files)
        .from(files)
        .where(eq(files.applicationId, p('applicationId')))
        .orderBy(asc(files.createdAt), sql`rowid`),
    ),
    // primary key (id=?)
    fileById: prepareRead(
      client,
      all.files,
      db
        .select(all.files)
        .from(files)
        .where(and(eq(files.applicationId, p('applicationId')), eq(files.id, p('id')))),
    ),
  };
}
