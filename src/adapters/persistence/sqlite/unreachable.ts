// When the SQLite file cannot be read or written (Dialect.unreachable): failed I/O (including its
// extended codes), a file that cannot be opened, or a lock another process held past busy_timeout.
import { driverError } from '../dialect.js';

const UNREACHABLE_PREFIXES = ['SQLITE_IOERR', 'SQLITE_CANTOPEN', 'SQLITE_BUSY'];

export function sqliteUnreachable(e: unknown): boolean {
  const found = driverError(e, (cur) => {
    const { code } = cur as { code?: unknown };
    return typeof code === 'string' && UNREACHABLE_PREFIXES.some((prefix) => code.startsWith(prefix)) ? true : null;
  });
  return found === true;
}
