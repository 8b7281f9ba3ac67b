// Owners, their console tokens and their applications.
import { and, asc, eq, isNull } from 'drizzle-orm';
import type { ApplicationStore, OwnerStore } from '../../../application/ports.js';
import { DomainError } from '../../../domain/errors.js';
import { binary, type Connection, isUniqueViolation } from './db.js';
import type { HotReads } from './hot-reads.js';
import { applicationRow, settingsColumns, toApplication, toConsoleToken, toOwner } from '../row-mappers.js';
import { applications, authAccountCounters, authIpCounters, consoleTokens, owners } from './schema.js';

export function ownerStore({ db }: Connection): OwnerStore {
  return {
    async createOwner(owner) {
      try {
        await db.insert(owners).values(owner);
      } catch (e) {
        if (isUniqueViolation(e, 'owners_email_unique')) throw new DomainError('EMAIL_TAKEN', 'an owner with this email exists');
        throw e;
      }
    },
    async findOwnerByEmail(email) {
      const [row] = await db.select().from(owners).where(eq(owners.email, email));
      return row ? toOwner(row) : null;
    },
    async findOwnerById(id) {
      const [row] = await db.select().from(owners).where(eq(owners.id, id));
      return row ? toOwner(row) : null;
    },
    async listOwners() {
      return (await db.select().from(owners).orderBy(asc(owners.createdAt), asc(owners.email))).map(toOwner);
    },
    async updateOwnerPasswordHash(id, passwordHash) {
      await db.update(owners).set({ passwordHash }).where(eq(owners.id, id));
    },
    async createConsoleToken(token) {
      await db.insert(consoleTokens).values(token);
    },
    async findConsoleToken(digest) {
      const [row] = await db.select().from(consoleTokens).where(eq(consoleTokens.digest, digest));
      return row ? toConsoleToken(row) : null;
    },
    async revokeConsoleToken(id, now) {
      // The first revocation time is the one worth keeping.
      await db
        .update(consoleTokens)
        .set({ revokedAt: now })
        .where(and(eq(consoleTokens.id, id), isNull(consoleTokens.revokedAt)));
    },
  };
}

export function applicationStore({ db, transaction }: Connection, reads: HotReads): ApplicationStore {
  const find = async (id: string) => {
    const [row] = await db.select().from(applications).where(eq(applications.id, id));
    return row ? toApplication(row) : null;
  };
  return {
    async createApplication(app) {
      await db.insert(applications).values(applicationRow(app));
    },
    async sampleSealedSecret() {
      const [row] = await db.select({ sealed: applications.filesKeySealed }).from(applications).limit(1);
      return row?.sealed ?? null;
    },
    async listApplications(ownerId) {
      const rows = await db
        .select()
        .from(applications)
        .where(eq(applications.ownerId, ownerId))
        .orderBy(asc(applications.createdAt), asc(binary(applications.id)));
      return rows.map(toApplication);
    },
    async findApplication(id) {
      return find(id);
    },
    findApplicationByApiKey: reads.findApplicationByApiKey,
    async findApplicationByAdminKeyDigest(digest) {
      const [row] = await db.select().from(applications).where(eq(applications.adminApiKeyDigest, digest));
      return row ? toApplication(row) : null;
    },
    async updateApplication(id, patch) {
      const set = {
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.settings !== undefined ? settingsColumns(patch.settings) : {}),
        ...(patch.apiSecretDigest !== undefined ? { apiSecretDigest: patch.apiSecretDigest } : {}),
        ...(patch.adminApiKeyDigest !== undefined ? { adminApiKeyDigest: patch.adminApiKeyDigest } : {}),
      };
      // drizzle refuses an empty SET; an empty patch is a plain read.
      if (Object.keys(set).length > 0) await db.update(applications).set(set).where(eq(applications.id, id));
      return find(id);
    },
    async deleteApplication(id) {
      // Everything the application owns goes with it through ON DELETE CASCADE, but for the
      // throttle counters, which have no foreign key (owner sign-in shares their tables). They are
      // deleted address counters first, the order in which the throttle locks them.
      return transaction(async (tx) => {
        await tx.delete(authIpCounters).where(eq(authIpCounters.applicationId, id));
        await tx.delete(authAccountCounters).where(eq(authAccountCounters.applicationId, id));
        return (await tx.delete(applications).where(eq(applications.id, id))).count > 0;
      });
    },
  };
}
