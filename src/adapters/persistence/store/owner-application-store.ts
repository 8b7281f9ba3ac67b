// Owners, their console tokens and their applications.
import { and, asc, eq, isNull, lt, ne, or } from 'drizzle-orm';
import type { Instant } from '../../../domain/time.js';
import { assertNamedTrialPlan } from './trial-store.js';
import type { RecordEvents } from './event-log.js';
import type { Actor } from '../../../application/events/actor.js';
import { applicationSettingsChanged, credentialsRotated } from '../../../application/events/content-facts.js';
import type { ApplicationStore } from '../../../application/ports/application-store.js';
import type { OwnerStore } from '../../../application/ports/owner-store.js';
import type { ApplicationRecord, ApplicationSigningKeys } from '../../../application/records.js';
import { mergeSettings } from '../../../domain/application-settings.js';
import { DomainError } from '../../../domain/errors.js';
import { type Db, type Dialect, exists, firstAs, firstRow, isUniqueViolation, listOrder } from '../dialect.js';
import type { Lookups } from './lookups.js';
import { applicationRow, settingsColumns, signingColumns, toApplication, toConsoleToken } from '../row-mappers.js';

export function ownerStore(d: Dialect): OwnerStore {
  const { db } = d;
  const { owners, consoleTokens, ownerIps } = d.t;
  const { oldestFirst } = listOrder(d);
  const liveTokensOf = (ownerId: string) => and(eq(consoleTokens.ownerId, ownerId), isNull(consoleTokens.revokedAt));
  return {
    async createOwner(owner) {
      try {
        await d.write((w) => w.insert(owners).values(owner));
      } catch (e) {
        if (isUniqueViolation(d, e, owners.email)) throw new DomainError('EMAIL_TAKEN', 'an owner with this email exists');
        throw e;
      }
    },
    findOwnerByEmail: (email) => firstRow(d, db.select().from(owners).where(eq(owners.email, email))),
    findOwnerById: (id) => firstRow(d, db.select().from(owners).where(eq(owners.id, id))),
    async listOwners() {
      return await db.select().from(owners).orderBy(oldestFirst(owners.createdAt, owners.email));
    },
    hasOwners: () => exists(db.select({ id: owners.id }).from(owners)),
    async updateOwnerPasswordHash(id, passwordHash) {
      await d.write((w) => w.update(owners).set({ passwordHash }).where(eq(owners.id, id)));
    },
    async recordOwnerIp(ownerId, ip, now) {
      const seenAgain = { target: [ownerIps.ownerId, ownerIps.ip], set: { lastSeen: now } };
      await d.write((w) => w.insert(ownerIps).values({ ownerId, ip, firstSeen: now, lastSeen: now }).onConflictDoUpdate(seenAgain));
    },
    async hasOwnerSignedInFrom(ownerId, ip) {
      const fromThere = and(eq(ownerIps.ownerId, ownerId), eq(ownerIps.ip, ip));
      return exists(db.select({ ip: ownerIps.ip }).from(ownerIps).where(fromThere));
    },
    async createConsoleToken(token) {
      await d.write((w) => w.insert(consoleTokens).values(token));
    },
    findConsoleToken: (digest) => firstAs(db.select().from(consoleTokens).where(eq(consoleTokens.digest, digest)), toConsoleToken),
    async revokeConsoleToken(id, now) {
      // The first revocation time is the one worth keeping.
      const stillLive = and(eq(consoleTokens.id, id), isNull(consoleTokens.revokedAt));
      await d.write((w) => w.update(consoleTokens).set({ revokedAt: now }).where(stillLive));
    },
    async touchConsoleToken(id, now) {
      // Two requests racing to touch it: the later instant wins, whichever writes last.
      const liveAndOlder = and(eq(consoleTokens.id, id), isNull(consoleTokens.revokedAt), or(isNull(consoleTokens.lastUsedAt), lt(consoleTokens.lastUsedAt, now)));
      await d.write((w) => w.update(consoleTokens).set({ lastUsedAt: now }).where(liveAndOlder));
    },
    async listConsoleTokens(ownerId) {
      const rows = await db.select().from(consoleTokens).where(liveTokensOf(ownerId)).orderBy(oldestFirst(consoleTokens.createdAt, consoleTokens.id));
      return rows.map(toConsoleToken);
    },
    async revokeConsoleTokensOf(ownerId, exceptId, now) {
      const mine = exceptId === null ? liveTokensOf(ownerId) : and(liveTokensOf(ownerId), ne(consoleTokens.id, exceptId));
      const revoked = await d.write((w) => w.update(consoleTokens).set({ revokedAt: now }).where(mine).returning({ id: consoleTokens.id }));
      return revoked.length;
    },
  };
}

/** The credentials a patch replaces, by the names the console rotates them under (never their values). */
const rotatedCredentials = (patch: { apiSecretDigest?: string; adminApiKeyDigest?: string }) => [
  ...(patch.apiSecretDigest === undefined ? [] : ['api_secret']),
  ...(patch.adminApiKeyDigest === undefined ? [] : ['admin_api_key']),
];

/** `k` with the request-signing key replaced by `nextSealed`, the replaced one kept as the previous one. */
const requestKeyRotated = (k: ApplicationSigningKeys, nextSealed: string, now: Instant): ApplicationSigningKeys => ({
  ...k,
  requestSealed: nextSealed,
  previousRequest: k.requestSealed === null ? null : { sealed: k.requestSealed, replacedAt: now },
});

export function applicationStore(d: Dialect, reads: Lookups, recordEvents: RecordEvents): ApplicationStore {
  const { db } = d;
  const { applications, authAccountCounters, authAccountWindows, authIpCounters, signUpCounters } = d.t;
  const { oldestFirst } = listOrder(d);
  const find = (id: string) => firstAs(db.select().from(applications).where(eq(applications.id, id)), toApplication);
  const lockedApplication = (tx: Db, id: string) => firstAs(d.locked(tx.select().from(applications).where(eq(applications.id, id))), toApplication);
  /** ATOMIC: the application's signing keys as `change` makes them from the stored ones. */
  const changeSigningKeys = (id: string, change: (current: ApplicationSigningKeys) => ApplicationSigningKeys, rotated?: { credential: string; now: Instant; actor: Actor }) =>
    d.transaction(async (tx): Promise<ApplicationRecord | null> => {
      const current = await lockedApplication(tx, id);
      if (current === null) return null;
      const signing = change(current.signing);
      await tx.update(applications).set(signingColumns(signing)).where(eq(applications.id, id));
      const next = { ...current, signing };
      if (rotated !== undefined) await recordEvents(tx, rotated.actor, [credentialsRotated(next, rotated.credential)], rotated.now);
      return next;
    });
  return {
    async createApplication(app) {
      await d.write((w) => w.insert(applications).values(applicationRow(app)));
    },
    async sampleSealedSecret() {
      const [row] = await db.select({ sealed: applications.filesKeySealed }).from(applications).limit(1);
      return row?.sealed ?? null;
    },
    async listApplications(ownerId) {
      const rows = await db.select().from(applications).where(eq(applications.ownerId, ownerId)).orderBy(oldestFirst(applications.createdAt, applications.id));
      return rows.map(toApplication);
    },
    findApplication: find,
    findApplicationByApiKey: reads.findApplicationByApiKey,
    findApplicationByAdminKeyDigest: (digest) => firstAs(db.select().from(applications).where(eq(applications.adminApiKeyDigest, digest)), toApplication),
    async updateApplication(id, { name, settings, apiSecretDigest, adminApiKeyDigest }, now, actor) {
      // drizzle leaves a field that is undefined out of the SET and refuses an empty SET: an empty patch is a plain read.
      if (name === undefined && settings === undefined && apiSecretDigest === undefined && adminApiKeyDigest === undefined) return find(id);
      return d.transaction(async (tx) => {
        const before = await lockedApplication(tx, id);
        if (before === null) return null;
        const set = { name, ...(settings === undefined ? {} : settingsColumns(settings)), apiSecretDigest, adminApiKeyDigest };
        await tx.update(applications).set(set).where(eq(applications.id, id));
        const after = toApplication((await tx.select().from(applications).where(eq(applications.id, id)))[0]!);
        const drafts = rotatedCredentials({ apiSecretDigest, adminApiKeyDigest }).map((credential) => credentialsRotated(after, credential));
        if (name !== undefined || settings !== undefined) drafts.push(applicationSettingsChanged(before, after));
        await recordEvents(tx, actor, drafts, now);
        return after;
      });
    },
    async patchApplication(id, patch, now, actor) {
      return d.transaction(async (tx) => {
        const current = await lockedApplication(tx, id);
        if (current === null) return null;
        const name = patch.name ?? current.name;
        const settings = mergeSettings(current.settings, patch.settings);
        // A newly named trial plan is checked under its lock; the one named before may stay named.
        const named = settings.trialPlanId;
        if (named !== null && named !== current.settings.trialPlanId) await assertNamedTrialPlan(d, tx, id, named);
        const set = { name, ...settingsColumns(settings) };
        await tx.update(applications).set(set).where(eq(applications.id, id));
        const next = { ...current, name, settings };
        await recordEvents(tx, actor, [applicationSettingsChanged(current, next)], now);
        return next;
      });
    },
    async deleteApplication(id) {
      // The throttle counters have no foreign key: deleted here, in the throttle's lock order (docs/architecture.md, "Persistence notes").
      return d.transaction(async (tx) => {
        for (const counters of [authIpCounters, authAccountCounters, authAccountWindows, signUpCounters]) {
          await tx.delete(counters).where(eq(counters.applicationId, id));
        }
        const deleted = await tx.delete(applications).where(eq(applications.id, id)).returning({ id: applications.id });
        return deleted.length > 0;
      });
    },
    rotateResponseSigningKey: (id, next, now, actor) => changeSigningKeys(id, (k) => ({ ...k, response: next, previousResponse: k.response }), { credential: 'response_signing_key', now, actor }),
    dropPreviousResponseSigningKey: (id) => changeSigningKeys(id, (k) => ({ ...k, previousResponse: null })),
    rotateRequestSigningKey: (id, nextSealed, now, actor) => changeSigningKeys(id, (k) => requestKeyRotated(k, nextSealed, now), { credential: 'request_signing_key', now, actor }),
    async applicationsWithoutSigningKeys() {
      const missingAKey = or(isNull(applications.responseSigningPublicKey), isNull(applications.requestSigningKeySealed));
      const byIdBytes = asc(d.binary(applications.id));
      const rows = await db.select({ id: applications.id }).from(applications).where(missingAKey).orderBy(byIdBytes);
      return rows.map((r) => r.id);
    },
    fillMissingSigningKeys: (id, keys) => changeSigningKeys(id, (k) => ({ ...k, response: k.response ?? keys.response, requestSealed: k.requestSealed ?? keys.requestSealed })),
  };
}
