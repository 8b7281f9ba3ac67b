// Owners and their console tokens.
// Methods marked ATOMIC are one transaction (see store.ts). Instants are epoch milliseconds.
import type { Instant } from '../../domain/time.js';
import type { ConsoleTokenRecord, OwnerRecord } from '../records.js';

export interface OwnerStore {
  /** Throws DomainError EMAIL_TAKEN when the email exists. */
  createOwner(owner: OwnerRecord): Promise<void>;
  findOwnerByEmail(email: string): Promise<OwnerRecord | null>;
  findOwnerById(id: string): Promise<OwnerRecord | null>;
  /** Every owner, oldest first (the CLI's `owner list`). */
  listOwners(): Promise<OwnerRecord[]>;
  /** Whether any owner exists (the dashboard's sign-in page asks before anyone signs in). */
  hasOwners(): Promise<boolean>;
  updateOwnerPasswordHash(id: string, passwordHash: string): Promise<void>;
  /** Records that the owner signed in from this address (first and last time seen). */
  recordOwnerIp(ownerId: string, ip: string, now: Instant): Promise<void>;
  /** Whether recordOwnerIp ever recorded this address for the owner. */
  hasOwnerSignedInFrom(ownerId: string, ip: string): Promise<boolean>;
  createConsoleToken(token: ConsoleTokenRecord): Promise<void>;
  findConsoleToken(digest: string): Promise<ConsoleTokenRecord | null>;
  revokeConsoleToken(id: string, now: Instant): Promise<void>;
  /** Records a use of the token (last_used_at = now, never moved back); a revoked one is left alone. */
  touchConsoleToken(id: string, now: Instant): Promise<void>;
  /** The owner's console tokens not revoked (expired ones included), oldest first. */
  listConsoleTokens(ownerId: string): Promise<ConsoleTokenRecord[]>;
  /** Revokes every unrevoked console token of the owner but `exceptId`'s; returns how many. */
  revokeConsoleTokensOf(ownerId: string, exceptId: string | null, now: Instant): Promise<number>;
}
