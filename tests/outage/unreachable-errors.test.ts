// Which driver errors mean "the database cannot be reached" (Dialect.unreachable), and the store
// turning those, and only those, into SERVICE_UNAVAILABLE (docs/api.md, When the database is down).
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { isDomainError } from '../../src/domain/errors.js';
import { postgresUnreachable } from '../../src/adapters/persistence/postgres/dialect.js';
import { sqliteUnreachable } from '../../src/adapters/persistence/sqlite/dialect.js';
import { answeringUnreachable } from '../../src/adapters/persistence/unreachable-database.js';

const driverError = (fields: Record<string, string>) => Object.assign(new Error('driver error'), fields);
/** As drizzle throws it: its own error with the driver's as the cause. */
const wrapped = (cause: Error) => new Error('Failed query: select 1', { cause });

describe('postgresUnreachable', () => {
  it.each([
    ['a refused connection', { code: 'ECONNREFUSED', syscall: 'connect' }],
    ['a missing socket file', { code: 'ENOENT', syscall: 'connect' }],
    ['a reset connection', { code: 'ECONNRESET' }],
    ['a connection postgres.js saw close', { code: 'CONNECTION_CLOSED' }],
    ['a pool that was ended', { code: 'CONNECTION_ENDED' }],
    ['admin_shutdown', { code: '57P01' }],
    ['crash_shutdown', { code: '57P02' }],
    ['cannot_connect_now', { code: '57P03' }],
    ['connection_failure', { code: '08006' }],
    ['too_many_connections', { code: '53300' }],
  ])('%s is an outage, also behind drizzle', (_name, fields) => {
    expect(postgresUnreachable(driverError(fields))).toBe(true);
    expect(postgresUnreachable(wrapped(driverError(fields)))).toBe(true);
  });

  it.each([
    ['unique_violation', { code: '23505' }],
    ['undefined_table', { code: '42P01' }],
    ['serialization_failure', { code: '40001' }],
    ['division_by_zero', { code: '22012' }],
    ['a file not found outside a connect', { code: 'ENOENT', syscall: 'open' }],
  ])('%s is not', (_name, fields) => {
    expect(postgresUnreachable(wrapped(driverError(fields)))).toBe(false);
  });

  it('nor is an error without a code', () => {
    expect(postgresUnreachable(new Error('bug'))).toBe(false);
    expect(postgresUnreachable('text')).toBe(false);
  });
});

describe('sqliteUnreachable', () => {
  it.each(['SQLITE_IOERR', 'SQLITE_IOERR_READ', 'SQLITE_IOERR_FSYNC', 'SQLITE_CANTOPEN', 'SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT'])('%s is an outage', (code) => {
    expect(sqliteUnreachable(new Database.SqliteError('failed', code))).toBe(true);
    expect(sqliteUnreachable(wrapped(new Database.SqliteError('failed', code)))).toBe(true);
  });

  it.each(['SQLITE_ERROR', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CORRUPT', 'SQLITE_MISMATCH'])('%s is not', (code) => {
    expect(sqliteUnreachable(new Database.SqliteError('failed', code))).toBe(false);
  });
});

describe('answeringUnreachable', () => {
  const refused = driverError({ code: 'ECONNREFUSED', syscall: 'connect' });
  const store = answeringUnreachable(
    {
      rejects: async (e: unknown) => {
        throw e;
      },
      throws: (e: unknown) => {
        throw e;
      },
      answers: (n: number) => n + 1,
      limit: 3,
    },
    postgresUnreachable,
  );

  it('turns an outage, rejected or thrown, into SERVICE_UNAVAILABLE with Retry-After and the driver error as cause', async () => {
    const rejected = await store.rejects(refused).catch((e: unknown) => e);
    let thrown: unknown;
    try {
      store.throws(refused);
    } catch (e) {
      thrown = e;
    }
    for (const error of [rejected, thrown]) {
      expect(isDomainError(error)).toBe(true);
      expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { retryAfterSeconds: 5 }, cause: refused });
      expect((error as Error).message).not.toMatch(/ECONNREFUSED|postgres/i);
    }
  });

  it('passes any other failure, and every answer, through as it was', async () => {
    const other = driverError({ code: '23505' });
    await expect(store.rejects(other)).rejects.toBe(other);
    expect(() => store.throws(other)).toThrow(other);
    expect(store.answers(1)).toBe(2);
    expect(store.limit).toBe(3);
  });
});
