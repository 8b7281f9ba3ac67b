// Owners, their console tokens and their applications.
import { and, asc, eq, isNull } from 'drizzle-orm';
import type { ApplicationStore, OwnerStore } from '../../../application/ports.js';
import { DomainError } from '../../../domain/errors.js';
import { type Connection, isUniqueViolation } from './db.js';
import { applicationRow, settingsColumns, toApplication, toConsoleToken, toOwner } from '../row-mappers.js';
import { applications, authAccountCounters, authIpCounters, consoleTokens, owners } from './schema.js';

export function ownerStore({ db }: Connection): OwnerStore {
  return {
    async createOwner(owner) {
      try {
        db.insert(owners).values(owner).run();
      } catch (e) {
        if (isUniqueViolation(e, 'owners.email')) throw new DomainError('EMAIL_TAKEN', 'an owner with this email exists');
        throw e;
      }
    },
    async findOwnerByEmail(email) {
      const row = db.select().from(owners).where(eq(owners.email, email)).get();
      return row ? toOwner(row) : null;
    },
    async findOwnerById(id) {
      const row = db.select().from(owners).where(eq(owners.id, id)).get();
      return row ? toOwner(row) : null;
    },
    async listOwners() {
      return db.select().from(owners).orderBy(asc(owners.createdAt), asc(owners.email)).all().map(toOwner);
    },
    async updateOwnerPasswordHash(id, passwordHash) {
      db.update(owners).set({ passwordHash }).where(eq(owners.id, id)).run();
    },
    async createConsoleToken(token) {
      db.insert(consoleTokens).values(token).run();
    },
    async findConsoleToken(digest) {
      const row = db.select().from(consoleTokens).where(eq(consoleTokens.digest, digest)).get();
      return row ? toConsoleToken(row) : null;
    },
    async revokeConsoleToken(id, now) {
      // The first revocation time is the one worth keeping.
      db.update(consoleTokens)
        .set({ revokedAt: now })
        .where(and(eq(consoleTokens.id, id), isNull(consoleTokens.revokedAt)))
        .run();
    },
  };
}

export function applicationStore({ db, reads, immediate }: Connection): ApplicationStore {
  const find = (id: string) => {
    const row = db.select().from(applications).where(eq(applications.id, id)).get();
    return row ? toApplication(row) : null;
  };
  return {
    async createApplication(app) {
      db.insert(applications).values(applicationRow(app)).run();
    },
    async sampleSealedSecret() {
      return db.select({ sealed: applications.filesKeySealed }).from(applications).limit(1).get()?.sealed ?? null;
    },
    async listApplications(ownerId) {
      return db
        .select()
        .from(applications)
        .where(eq(applications.ownerId, ownerId))
        .orderBy(asc(applications.createdAt), asc(applications.id))
        .all()
        .map(toApplication);
    },
    async findApplication(id) {
      return find(id);
    },
    async findApplicationByApiKey(apiKey) {
      const row = reads.applicationByApiKey.get({ apiKey });
      return row ? toApplication(row) : null;
    },
    async findApplicationByAdminKeyDigest(digest) {
      const row = db.select().from(applications).where(eq(applications.adminApiKeyDigest, digest)).get();
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
      if (Object.keys(set).length > 0) db.update(applications).set(set).where(eq(applications.id, id)).run();
      return find(id);
    },
    async deleteApplication(id) {
      // Everything the application owns goes with it through ON DELETE CASCADE, but for the
      // throttle counters, which have no foreign key (owner sign-in shares their tables).
      return immediate((tx) => {
        tx.delete(authAccountCounters).where(eq(authAccountCounters.applicationId, id)).run();
        tx.delete(authIpCounters).where(eq(authIpCounters.applicationId, id)).run();
        return tx.delete(applications).where(eq(applications.id, id)).run().changes > 0;
      });
    },
  };
}
