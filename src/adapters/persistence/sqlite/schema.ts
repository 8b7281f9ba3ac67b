// The Store's tables in SQLite (tables.ts): instants, sizes and counters are integers read as JS
// numbers, flags 0/1 integers read as booleans. drizzle-kit reads this module
// (drizzle.sqlite.config.ts) to generate the SQLite migrations.
import { check, index, integer, primaryKey, sqliteTable, text, unique } from 'drizzle-orm/sqlite-core';
import { defineTables, type Kit } from '../tables.js';

const number = (name: string) => integer(name, { mode: 'number' });

/** SQLite's builders behind the kit's (PostgreSQL-typed) signatures: the tables they build have the
 * same names and the same JS row types, which is all the shared store relies on (dialect.ts). */
const sqliteBuilders = {
  table: sqliteTable,
  text,
  integer: number,
  instant: number,
  bigNumber: number,
  flag: (name: string) => integer(name, { mode: 'boolean' }),
  // Written as one more than the largest present by the insert (insertionOrder in dialect.ts):
  // SQLite has one auto-numbered column a table, its rowid, and the id is the primary key here.
  insertionOrder: (name: string) => number(name).notNull().default(0),
  index,
  unique,
  primaryKey,
  check,
};

export const sqliteKit = sqliteBuilders as unknown as Kit;

// drizzle-kit reads a dialect's tables from the top-level exports of this module.
// prettier-ignore
export const { owners, consoleTokens, ownerIps, applications, users, membershipNotices, devices, licenseFiles, sessions, loginDays, licenses, plans, licenseRedemptions, addOnGrants, trialLedger, refreshTokens, adjustments, userIps, variables, userVariables, announcements, bans, authAccountCounters, authAccountWindows, authIpCounters, signUpCounters, requestNonces, files, jobs, events, auditChainHeads, webhookEndpoints, webhookDeliveries, webhookAttempts, webhookTestWindows } = defineTables(sqliteKit);
