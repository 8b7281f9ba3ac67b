// The reads of token authentication (hot-reads.ts): the session a token names, the user it names
// and that user's licenses, in one statement, and the same with the application the request's
// API key names. Both are indexed lookups, as every hot read.
import { and, type Column, eq, getTableColumns, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { ApplicationWithSessionAccess, SessionAccess } from '../../../application/ports/session-store.js';
import type { BuiltSelect, RequestRows } from './compiled.js';
import type { FastReads } from './fast-reads.js';
import { rememberedByVersion } from './remembered-by-version.js';
import { toApplication, toSession, toUser } from '../row-mappers.js';

const p = sql.placeholder;

export function accessReads({ db, t, prepare, prepareForRequests, rowVersions }: FastReads) {
  const { applications, sessions, users, licenses } = t;
  // primary keys of sessions (id=?) and users, licenses_used_by_idx (used_by_user_id=?): the
  // session behind a token, the user it names and that user's licenses in one statement, a row
  // per license (one when there is none). The columns of the tables are told apart by a prefix
  // of their keys: the rows are decoded by position (the dialects' prepared reads).
  const prefixed = (prefix: string, columns: Record<string, Column>) => Object.fromEntries(Object.entries(columns).map(([k, c]) => [prefix + k, c]));
  const accessFields = { ...prefixed('s.', getTableColumns(sessions)), ...prefixed('u.', getTableColumns(users)), licenseId: licenses.id };
  const sessionAccess = prepare(
    accessFields,
    db
      .select(accessFields)
      .from(sessions)
      .leftJoin(users, and(eq(users.applicationId, p('applicationId')), eq(users.id, p('userId'))))
      .leftJoin(licenses, and(eq(licenses.applicationId, p('applicationId')), eq(licenses.usedByUserId, p('userId'))))
      .where(eq(sessions.id, p('sessionId'))) as unknown as BuiltSelect<Record<string, unknown>>,
  );
  // applications_api_key_unique (api_key=?), then as sessionAccess: the application a request
  // names by its API key and the session its token names, in one statement. On PostgreSQL the
  // requests of a turn share that statement (FastReads.prepareForRequests; docs/performance-log.md,
  // app_context). The session is joined whatever application it is of: the caller checks it is
  // this one's, as with sessionAccess.
  const applicationFields = { ...prefixed('a.', getTableColumns(applications)), ...accessFields };
  const accessKeys = ['apiKey', 'sessionId', 'userId'];
  const versioned = { 'a.version': applications, 's.version': sessions, 'u.version': users };
  const accessOver = (requests: RequestRows, fields: Record<string, PgColumn>) =>
    db
      .select({ ...requests.tag, ...requests.versions, ...fields })
      .from(requests.source)
      .innerJoin(applications, eq(applications.apiKey, requests.key('apiKey')))
      .leftJoin(sessions, eq(sessions.id, requests.key('sessionId')))
      .leftJoin(users, and(eq(users.applicationId, applications.id), eq(users.id, requests.key('userId'))))
      .leftJoin(licenses, and(eq(licenses.applicationId, applications.id), eq(licenses.usedByUserId, requests.key('userId'))));
  const applicationAccess = prepareForRequests<Record<string, unknown>>(applicationFields, accessKeys, (r) => accessOver(r, applicationFields), versioned);
  // Where rows carry versions (PostgreSQL), the same statement with the versions and license ids
  // only stands for the whole one while the versions are the ones an answer was read with
  // (remembered-by-version.ts; docs/choices.md, "Remembered access").
  const versionFields = { 'a.id': applications.id, licenseId: licenses.id };
  const accessVersions = rowVersions ? prepareForRequests<Record<string, unknown>>(versionFields, accessKeys, (r) => accessOver(r, versionFields), versioned) : null;
  // Each key beside its prefixed name, made once: building the names per row was most of this
  // read's cost in a profile of app_context.
  const namesOf = (prefix: string, table: PgTable) => Object.keys(getTableColumns(table)).map((key) => [prefix + key, key] as const);
  const applicationNames = namesOf('a.', applications);
  const sessionNames = namesOf('s.', sessions);
  const userNames = namesOf('u.', users);
  /** A row as its driver gives it: columns by name. */
  type TableRow = Record<string, unknown>;
  const unprefixed = (row: TableRow, names: ReadonlyArray<readonly [string, string]>) => {
    const out: TableRow = {};
    for (const [name, key] of names) out[key] = row[name];
    return out;
  };
  const licenseIdsOf = (rows: TableRow[]) => rows.flatMap((r) => (r['licenseId'] === null ? [] : [r['licenseId'] as string]));
  const noAccess = (): SessionAccess => ({ session: null, user: null, licenseIds: [] });
  /** Fresh records of a session's and its user's rows (each table's own columns, unprefixed). */
  const accessRecords = (session: TableRow | null, user: TableRow | null, licenseIds: string[]): SessionAccess =>
    session === null
      ? noAccess()
      : {
          session: toSession(session as (typeof sessions)['$inferSelect']),
          user: user === null ? null : toUser(user as (typeof users)['$inferSelect']),
          licenseIds,
        };
  /** An answer's rows: each table's own, frozen, so that a remembered one can make fresh records for every request. */
  interface AccessRows {
    app: TableRow;
    session: TableRow | null;
    user: TableRow | null;
  }
  const rowsOfAccess = (row: TableRow): AccessRows => ({
    app: Object.freeze(unprefixed(row, applicationNames)),
    session: row['s.id'] === null ? null : Object.freeze(unprefixed(row, sessionNames)),
    user: row['s.id'] === null || row['u.id'] === null ? null : Object.freeze(unprefixed(row, userNames)),
  });
  const findSessionAccess = (applicationId: string, sessionId: string, userId: string): Promise<SessionAccess> =>
    sessionAccess({ applicationId, sessionId, userId }).then((rows) => {
      const [row] = rows;
      if (row === undefined || row['s.id'] === null) return noAccess();
      // The columns are the tables' own, decoded as their selects decode them: their rows.
      return accessRecords(unprefixed(row, sessionNames), row['u.id'] === null ? null : unprefixed(row, userNames), licenseIdsOf(rows));
    });
  const answerOf = (rows: AccessRows, licenseIds: string[]): ApplicationWithSessionAccess => ({
    app: toApplication(rows.app as (typeof applications)['$inferSelect']),
    access: accessRecords(rows.session, rows.user, licenseIds),
  });
  // Nulls (no such row) as a dash: an xmin is a number.
  const versionOf = (version: unknown) => (typeof version === 'number' || typeof version === 'string' || typeof version === 'bigint' ? String(version) : '-');
  const versionsOf = (row: TableRow) => `${String(row['a.version'])}/${versionOf(row['s.version'])}/${versionOf(row['u.version'])}`;
  const remembered = accessVersions === null ? null : rememberedByVersion<AccessRows>();
  // SQLite hands back the same frozen rows while the file is unchanged (sqlite/unchanged-reads.ts):
  // they are taken apart once, not once a request.
  const takenApart = new WeakMap<TableRow[], { read: AccessRows; licenseIds: string[] }>();
  const readWhole = (values: Record<string, string>, key: string): Promise<ApplicationWithSessionAccess> =>
    applicationAccess(values).then((rows) => {
      const [row] = rows;
      // No row: no application, and no session is read for it.
      if (row === undefined) return { app: null, access: noAccess() };
      let parts = takenApart.get(rows);
      if (parts === undefined) {
        parts = { read: rowsOfAccess(row), licenseIds: licenseIdsOf(rows) };
        if (Object.isFrozen(rows)) takenApart.set(rows, parts);
      }
      remembered?.set(key, versionsOf(row), parts.read);
      return answerOf(parts.read, [...parts.licenseIds]);
    });
  const findApplicationWithSessionAccess = (apiKey: string, sessionId: string, userId: string): Promise<ApplicationWithSessionAccess> => {
    const values = { apiKey, sessionId, userId };
    // Each part with its length: no other three texts make the same key.
    const key = `${apiKey.length}:${apiKey}${sessionId.length}:${sessionId}${userId}`;
    // Nothing remembered: the whole read at once, rather than its versions first.
    if (accessVersions === null || remembered === null || !remembered.has(key)) return readWhole(values, key);
    return accessVersions(values).then((rows) => {
      const [row] = rows;
      if (row === undefined) return { app: null, access: noAccess() };
      const read = remembered.get(key, versionsOf(row));
      return read === undefined ? readWhole(values, key) : answerOf(read, licenseIdsOf(rows));
    });
  };
  return { findSessionAccess, findApplicationWithSessionAccess };
}
