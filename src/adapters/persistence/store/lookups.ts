// The reads every integration request makes (app_context, downloads, logins), as plain drizzle
// selects: each an indexed lookup, named beside it, so it stays flat as users and licenses grow.
// The fast path answers the same from prepared statements (fast/hot-reads.ts).
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { BanKey, MatchedBan } from '../../../domain/bans.js';
import { isBanLive, type BanType } from '../../../domain/bans.js';
import { heldLicenseKeys, holderOf } from '../held-licenses.js';
import type { SessionAccess } from '../../../application/ports/session-store.js';
import type { Dialect } from '../dialect.js';
import { toAnnouncement, toApplication, toFile, toSession, toUser } from '../row-mappers.js';

export function lookups(d: Dialect) {
  const { db, t, binary } = d;
  const { applications, sessions, users, licenses, variables, announcements, files, bans } = t;
  // Text with a NUL in it is in no row (PostgreSQL refuses it as a parameter): nothing matches it.
  const storable = (...texts: string[]) => texts.every((text) => !text.includes('\u0000'));
  const first = <Row, R>(rows: Row[], map: (row: Row) => R): R | null => (rows[0] === undefined ? null : map(rows[0]));
  // users primary key (application_id, id)
  const userById = (applicationId: string, id: string) =>
    db
      .select()
      .from(users)
      .where(and(eq(users.applicationId, applicationId), eq(users.id, id)))
      .then((rows) => first(rows, toUser));
  // licenses_used_by_idx (used_by_user_id=?)
  const redeemedLicenseIds = (applicationId: string, userId: string) =>
    db
      .select({ id: licenses.id })
      .from(licenses)
      .where(and(eq(licenses.applicationId, applicationId), eq(licenses.usedByUserId, userId)))
      .then((rows) => rows.map((r) => r.id));
  // The session a token names (of any application: the caller checks it is this one's) and the
  // user it names.
  const findSessionAccess = async (applicationId: string, sessionId: string, userId: string): Promise<SessionAccess> => {
    const [session] = storable(sessionId, userId) ? await db.select().from(sessions).where(eq(sessions.id, sessionId)) : [];
    if (session === undefined) return { session: null, user: null };
    return { session: toSession(session), user: await userById(applicationId, userId) };
  };
  return {
    // applications_api_key_unique (api_key=?)
    findApplicationByApiKey: (apiKey: string) =>
      db
        .select()
        .from(applications)
        .where(eq(applications.apiKey, apiKey))
        .then((rows) => first(rows, toApplication)),
    findSession: (id: string) =>
      db
        .select()
        .from(sessions)
        .where(eq(sessions.id, id))
        .then((rows) => first(rows, toSession)),
    findSessionAccess,
    findUserById: userById,
    // users_app_username_key_uq (application_id=? AND username_key=?)
    findUserByUsernameKey: (applicationId: string, key: string) =>
      db
        .select()
        .from(users)
        .where(and(eq(users.applicationId, applicationId), eq(users.usernameKey, key)))
        .then((rows) => first(rows, toUser)),
    // users_app_license_idx (application_id=? AND license_id=?)
    findUserByLicenseId: (applicationId: string, licenseId: string) =>
      db
        .select()
        .from(users)
        .where(and(eq(users.applicationId, applicationId), eq(users.licenseId, licenseId)))
        .then((rows) => first(rows, toUser)),
    // licenses_code_digest_unique (code_digest=?)
    findLicenseByDigest: (applicationId: string, codeDigest: string) =>
      db
        .select()
        .from(licenses)
        .where(and(eq(licenses.applicationId, applicationId), eq(licenses.codeDigest, codeDigest)))
        .then((rows) => first(rows, (row) => ({ ...row }))),
    redeemedLicenseIds,
    /** bans_app_type_value_uq, probed once a key: the keys as row values, `(type, value) IN
     * (VALUES ...)`, which both databases match on the whole index (an OR of terms would not).
     * A user key adds the user's redeemed licenses as keys, by licenses_used_by_idx. */
    async findMatchingBans(applicationId: string, keys: readonly BanKey[], now: number): Promise<MatchedBan[]> {
      if (keys.length === 0) return [];
      const pairs = sql.join(
        keys.map((k) => sql`(${k.type}, ${k.value})`),
        sql`, `,
      );
      const rows = await db
        .select({ type: bans.type, value: bans.value, id: bans.id, propagatedFrom: bans.propagatedFrom, expiresAt: bans.expiresAt })
        .from(bans)
        .where(and(eq(bans.applicationId, applicationId), sql`(${bans.type}, ${bans.value}) in (values ${pairs} union all ${heldLicenseKeys(licenses, applicationId, holderOf(keys))})`));
      // The type column only ever holds BanType values written from typed records.
      return rows.filter((ban) => isBanLive(ban, now)).map((ban) => ({ ...ban, type: ban.type as BanType }));
    },
    // primary key (application_id=?), already in name order
    listVariables: (applicationId: string) =>
      db
        .select()
        .from(variables)
        .where(eq(variables.applicationId, applicationId))
        .orderBy(asc(binary(variables.name)))
        .then((rows) => rows.map((row) => ({ ...row }))),
    // announcements_app_idx (application_id=?)
    listAnnouncements: (applicationId: string) =>
      db
        .select()
        .from(announcements)
        .where(eq(announcements.applicationId, applicationId))
        .orderBy(desc(announcements.publishFrom), desc(binary(announcements.id)))
        .then((rows) => rows.map(toAnnouncement)),
    // files_app_name_uq (application_id=?). Files created at the same instant are ordered by id.
    listFiles: (applicationId: string) =>
      db
        .select()
        .from(files)
        .where(eq(files.applicationId, applicationId))
        .orderBy(asc(files.createdAt), asc(binary(files.id)))
        .then((rows) => rows.map(toFile)),
    findFile: (applicationId: string, id: string) =>
      db
        .select()
        .from(files)
        .where(and(eq(files.applicationId, applicationId), eq(files.id, id)))
        .then((rows) => first(rows, toFile)),
  };
}

export type Lookups = ReturnType<typeof lookups>;
