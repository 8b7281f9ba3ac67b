// The read of token authentication (hot-reads.ts): the session a token names and the user it
// names, in one statement, by the primary keys of sessions (id=?) and users. On PostgreSQL the
// requests of a turn share that statement (FastReads.prepareForRequests).
import { and, eq, getTableColumns } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { SessionAccess } from '../../../application/ports/session-store.js';
import type { RequestRows } from './compiled.js';
import type { FastReads } from './fast-reads.js';
import { readRememberedByVersion } from './remembered-by-version.js';
import { toSession, toUser } from '../row-mappers.js';

export function accessReads({ db, t, prepareForRequests, rowVersions }: FastReads) {
  const { sessions, users } = t;
  // The columns of the tables are told apart by a prefix of their keys: the rows are decoded by
  // position (the dialects' prepared reads). The session is joined whatever application it is
  // of: the caller checks it is this one's.
  const prefixed = (prefix: string, columns: Record<string, PgColumn>): Record<string, PgColumn> => Object.fromEntries(Object.entries(columns).map(([k, c]) => [prefix + k, c]));
  const accessFields = { ...prefixed('s.', getTableColumns(sessions)), ...prefixed('u.', getTableColumns(users)) };
  const accessKeys = ['applicationId', 'sessionId', 'userId'];
  const versioned = { 's.version': sessions, 'u.version': users };
  const accessOver = (requests: RequestRows, fields: Record<string, PgColumn>) =>
    db
      .select({ ...requests.tag, ...requests.versions, ...fields })
      .from(requests.source)
      .innerJoin(sessions, eq(sessions.id, requests.key('sessionId')))
      .leftJoin(users, and(eq(users.applicationId, requests.key('applicationId')), eq(users.id, requests.key('userId'))));
  const sessionAccess = prepareForRequests<Record<string, unknown>>(accessFields, accessKeys, (r) => accessOver(r, accessFields), versioned);
  // Where rows carry versions (PostgreSQL), the same statement with the versions only stands for
  // the whole one while they are the ones an answer was read with (remembered-by-version.ts;
  // docs/choices.md, "Remembered access").
  const versionFields = { 's.id': sessions.id };
  const accessVersions = rowVersions ? prepareForRequests<Record<string, unknown>>(versionFields, accessKeys, (r) => accessOver(r, versionFields), versioned) : null;
  // Each key beside its prefixed name, made once: building the names per row was most of this
  // read's cost in a profile of app_context.
  const namesOf = (prefix: string, table: PgTable) => Object.keys(getTableColumns(table)).map((key) => [prefix + key, key] as const);
  const sessionNames = namesOf('s.', sessions);
  const userNames = namesOf('u.', users);
  /** A row as its driver gives it: columns by name. */
  type TableRow = Record<string, unknown>;
  const unprefixed = (row: TableRow, names: ReadonlyArray<readonly [string, string]>) => {
    const out: TableRow = {};
    for (const [name, key] of names) out[key] = row[name];
    return out;
  };
  /** An answer's rows: each table's own, frozen, so that a remembered one can make fresh records for every request. */
  interface AccessRows {
    session: TableRow;
    user: TableRow | null;
  }
  const rowsOfAccess = (row: TableRow): AccessRows => ({
    session: Object.freeze(unprefixed(row, sessionNames)),
    user: row['u.id'] === null ? null : Object.freeze(unprefixed(row, userNames)),
  });
  /** Fresh records of a session's and its user's rows. */
  const answerOf = (rows: AccessRows): SessionAccess => ({
    session: toSession(rows.session as (typeof sessions)['$inferSelect']),
    user: rows.user === null ? null : toUser(rows.user as (typeof users)['$inferSelect']),
  });
  const noAccess = (): SessionAccess => ({ session: null, user: null });
  // Nulls (no such row) as a dash: an xmin is a number.
  const versionOf = (version: unknown) => (typeof version === 'number' || typeof version === 'string' || typeof version === 'bigint' ? String(version) : '-');
  const versionsOf = (row: TableRow) => `${versionOf(row['s.version'])}/${versionOf(row['u.version'])}`;
  // SQLite hands back the same frozen rows while the file is unchanged (unchanged-reads.ts):
  // they are taken apart once, not once a request.
  const takenApart = new WeakMap<readonly TableRow[], AccessRows>();
  const partsOf = (rows: readonly TableRow[]): AccessRows => {
    let parts = takenApart.get(rows);
    if (parts === undefined) {
      parts = rowsOfAccess(rows[0] as TableRow);
      if (Object.isFrozen(rows)) takenApart.set(rows, parts);
    }
    return parts;
  };
  const read = readRememberedByVersion({ whole: sessionAccess, versions: accessVersions, versionsOf, partsOf, answerOf, none: noAccess });
  const findSessionAccess = (applicationId: string, sessionId: string, userId: string): Promise<SessionAccess> =>
    // Each part with its length: no other three texts make the same key.
    read({ applicationId, sessionId, userId }, `${applicationId.length}:${applicationId}${sessionId.length}:${sessionId}${userId}`);
  return { findSessionAccess };
}
