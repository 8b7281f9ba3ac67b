// The reads every integration request makes, each an indexed lookup named beside it, so it stays
// flat as users and licenses grow. The fast path answers the same (fast/hot-reads.ts).
import { and, asc, eq, getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { BanKey, MatchedBan } from '../../../domain/bans.js';
import { isBanLive, type BanType } from '../../../domain/bans.js';
import { heldLicenseKeys, holderOf } from '../held-licenses.js';
import type { SessionAccess } from '../../../application/ports/session-store.js';
import { type Dialect, firstAs, listOrder, ofApplication } from '../dialect.js';
import { toAnnouncement, toApplication, toFile, toSession, toUser } from '../row-mappers.js';
import { findByDigest, findUser } from './writes.js';

export function lookups(d: Dialect) {
  const { db, t, binary } = d;
  const { applications, sessions, users, licenses, variables, announcements, files, bans, devices } = t;
  // Text with a NUL in it is in no row (PostgreSQL refuses it as a parameter): nothing matches it.
  const storable = (...texts: string[]) => texts.every((text) => !text.includes('\u0000'));
  const { oldestFirst, newestFirst } = listOrder(d);
  const holdersOf = (applicationId: string, licenseId: string) => and(eq(users.applicationId, applicationId), eq(users.licenseId, licenseId));
  const firstUser = (where: SQL | undefined) => firstAs(db.select().from(users).where(where), toUser);
  // users primary key (application_id, id)
  const userById = (applicationId: string, id: string) => findUser(d, db, applicationId, id);
  // licenses_used_by_idx (used_by_user_id=?) and license_redemptions_user_idx (user_id=?): the
  // minutes codes the user used and the plans' codes it holds a seat of (held-licenses.ts).
  const redeemedLicenseIds = async (applicationId: string, userId: string) => {
    const r = t.licenseRedemptions;
    const [used, seats] = await Promise.all([
      db
        .select({ id: licenses.id })
        .from(licenses)
        .where(and(eq(licenses.applicationId, applicationId), eq(licenses.usedByUserId, userId))),
      db
        .select({ id: r.licenseId })
        .from(r)
        .where(and(eq(r.applicationId, applicationId), eq(r.userId, userId))),
    ]);
    return [...new Set([...used, ...seats].map((row) => row.id))];
  };
  // The session a token names (of any application: the caller checks it is this one's) and the
  // user it names.
  const findSessionAccess = async (applicationId: string, sessionId: string, userId: string): Promise<SessionAccess> => {
    const [session] = storable(sessionId, userId) ? await db.select().from(sessions).where(eq(sessions.id, sessionId)) : [];
    if (session === undefined) return { session: null, user: null };
    return { session: toSession(session), user: await userById(applicationId, userId) };
  };
  return {
    // applications_api_key_unique (api_key=?)
    findApplicationByApiKey: (apiKey: string) => firstAs(db.select().from(applications).where(eq(applications.apiKey, apiKey)), toApplication),
    findSession: (id: string) => firstAs(db.select().from(sessions).where(eq(sessions.id, id)), toSession),
    findSessionAccess,
    findUserById: userById,
    // users_app_username_key_uq (application_id=? AND username_key=?)
    findUserByUsernameKey: (applicationId: string, key: string) => firstUser(and(eq(users.applicationId, applicationId), eq(users.usernameKey, key))),
    // users_app_license_idx (application_id=? AND license_id=?), two rows at most
    findLicenseHolders: async (applicationId: string, licenseId: string) => (await db.select().from(users).where(holdersOf(applicationId, licenseId)).limit(2)).map(toUser),
    // users_app_license_idx, then devices_user_hardware_uq (user_id=? AND hardware_id=?) for each holder
    findLicenseHoldersByDevice: async (applicationId: string, licenseId: string, hardwareId: string) => {
      if (!storable(hardwareId)) return [];
      const registered = and(eq(devices.userId, users.id), eq(devices.hardwareId, hardwareId));
      return (await db.select(getTableColumns(users)).from(users).innerJoin(devices, registered).where(holdersOf(applicationId, licenseId)).limit(2)).map(toUser);
    },
    // licenses_code_digest_unique (code_digest=?)
    findLicenseByDigest: (applicationId: string, codeDigest: string) => findByDigest(d, db, applicationId, codeDigest),
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
      const matching = and(eq(bans.applicationId, applicationId), sql`(${bans.type}, ${bans.value}) in (values ${pairs} union all ${heldLicenseKeys(t, applicationId, holderOf(keys))})`);
      const rows = await db.select({ type: bans.type, value: bans.value, id: bans.id, propagatedFrom: bans.propagatedFrom, expiresAt: bans.expiresAt }).from(bans).where(matching);
      // The type column only ever holds BanType values written from typed records.
      return rows.filter((ban) => isBanLive(ban, now)).map((ban) => ({ ...ban, type: ban.type as BanType }));
    },
    // primary key (application_id=?), already in name order
    listVariables: async (applicationId: string) => {
      const byName = asc(binary(variables.name));
      return (await db.select().from(variables).where(eq(variables.applicationId, applicationId)).orderBy(byName)).map((row) => ({ ...row }));
    },
    // announcements_app_idx (application_id=?)
    listAnnouncements: async (applicationId: string) => {
      const newest = newestFirst(announcements.publishFrom, announcements.id);
      return (await db.select().from(announcements).where(eq(announcements.applicationId, applicationId)).orderBy(newest)).map(toAnnouncement);
    },
    // files_app_name_uq (application_id=?). Files created at the same instant are ordered by id.
    listFiles: async (applicationId: string) => {
      const oldest = oldestFirst(files.createdAt, files.id);
      return (await db.select().from(files).where(eq(files.applicationId, applicationId)).orderBy(oldest)).map(toFile);
    },
    findFile: (applicationId: string, id: string) => {
      const theFile = ofApplication(files, applicationId, id);
      return firstAs(db.select().from(files).where(theFile), toFile);
    },
  };
}

export type Lookups = ReturnType<typeof lookups>;
