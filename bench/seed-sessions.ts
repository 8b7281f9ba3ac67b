// Writes a long session history for one member straight into the server's database: the rows a
// license code that logs in hundreds of times a second leaves behind (security review, session
// history). Each session was replaced by the next login at once (revoked) but its expiry, a day
// after it opened, is still ahead: the rows a login's search for live sessions must step over.
// Going through the HTTP interface would take a million argon2 verifications (hours here).
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import type { Dialect } from '../src/adapters/persistence/dialect.js';
import { openPostgresDialect } from '../src/adapters/persistence/postgres/dialect.js';
import { openSqliteDialect } from '../src/adapters/persistence/sqlite/dialect.js';
import { SQLITE_FILE } from '../src/open-store.js';
import type { ServerProcess } from './server-process.js';

const DAY_MS = 86_400_000;
const ROWS_PER_INSERT = 1_000;
const INSERTS_PER_TRANSACTION = 20;

export async function openServerDialect(server: ServerProcess, serverEnv: Record<string, string>): Promise<Dialect> {
  const url = serverEnv['DATABASE_URL'];
  return url === undefined ? openSqliteDialect(join(server.dataDir, SQLITE_FILE)) : openPostgresDialect(url);
}

export async function seedSessions(server: ServerProcess, serverEnv: Record<string, string>, applicationId: string, username: string, count: number): Promise<void> {
  const d = await openServerDialect(server, serverEnv);
  try {
    const { users, sessions } = d.t;
    const [user] = await d.db.select({ id: users.id }).from(users).where(eq(users.username, username));
    if (user === undefined) throw new Error(`no user ${username} to give a session history`);
    const [device] = await d.db.select({ hardwareId: d.t.devices.hardwareId }).from(d.t.devices).where(eq(d.t.devices.userId, user.id));
    const now = Date.now();
    // Opened over the last 23 hours, oldest first, one replacing the next.
    const step = Math.max(1, Math.floor((23 * 3_600_000) / count));
    const row = (i: number) => {
      const createdAt = now - (count - i) * step;
      return {
        id: `seed-session-${i}`,
        applicationId,
        userId: user.id,
        hardwareId: device?.hardwareId ?? null,
        tokenDigest: `seed-${i}`,
        createdAt,
        expiresAt: createdAt + DAY_MS,
        revokedAt: createdAt + step,
        legacy: false,
      };
    };
    const perTransaction = ROWS_PER_INSERT * INSERTS_PER_TRANSACTION;
    for (let first = 0; first < count; first += perTransaction) {
      await d.transaction(async (tx) => {
        for (let start = first; start < Math.min(count, first + perTransaction); start += ROWS_PER_INSERT) {
          const end = Math.min(count, start + ROWS_PER_INSERT);
          await tx.insert(sessions).values(Array.from({ length: end - start }, (_, k) => row(start + k)));
        }
      });
    }
  } finally {
    await d.close();
  }
}
