// The Store's tables in PostgreSQL (tables.ts): instants and byte sizes are bigint read as JS
// numbers (sizes exceed int4), small counters integer, flags boolean. drizzle-kit reads this module
// (drizzle.postgres.config.ts) to generate the PostgreSQL migrations.
import { bigint, boolean, check, index, integer, pgTable, primaryKey, text, unique } from 'drizzle-orm/pg-core';
import { defineTables, type Kit } from '../tables.js';

const number = (name: string) => bigint(name, { mode: 'number' });

export const postgresKit: Kit = {
  table: pgTable,
  text,
  integer: (name) => integer(name),
  instant: number,
  bigNumber: number,
  flag: (name) => boolean(name),
  insertionOrder: (name) => number(name).notNull().generatedAlwaysAsIdentity(),
  index,
  unique,
  primaryKey,
  check,
};

// drizzle-kit reads a dialect's tables from the top-level exports of this module.
// prettier-ignore
export const { owners, consoleTokens, ownerIps, applications, users, membershipNotices, devices, licenseFiles, sessions, loginDays, licenses, plans, licenseRedemptions, addOnGrants, trialLedger, refreshTokens, adjustments, userIps, variables, userVariables, announcements, bans, authAccountCounters, authAccountWindows, authIpCounters, signUpCounters, requestNonces, files, jobs, events, auditChainHeads, webhookEndpoints, webhookDeliveries, webhookAttempts, webhookTestWindows } = defineTables(postgresKit);
