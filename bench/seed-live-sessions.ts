// Gives every seeded member (seed-users.ts) one live session with a lease, written straight into
// the server's database with tokens from the server's own key: what as many logins would leave,
// without as many argon2 verifications (docs/performance.md, "heartbeat").
import { eq } from 'drizzle-orm';
import { readConfig } from '../src/config.js';
import { boot } from '../src/boot.js';
import type { ServerProcess } from './server-process.js';
import { openServerDialect } from './seed-sessions.js';

const ROWS_PER_INSERT = 500;

/** The tokens of the new sessions, one per member of the application, leased until `leaseExpiresAt`. */
export async function seedLiveSessions(server: ServerProcess, serverEnv: Record<string, string>, applicationId: string, ttlMs: number, leaseMs: number): Promise<string[]> {
  const booted = await boot(readConfig({ ...serverEnv, GATEHOUSE_DATA_DIR: server.dataDir }));
  const d = await openServerDialect(server, serverEnv);
  try {
    const { users, devices, sessions } = d.t;
    const members = await d.db.select({ id: users.id, hardwareId: devices.hardwareId }).from(users).innerJoin(devices, eq(devices.userId, users.id)).where(eq(users.applicationId, applicationId));
    const now = Date.now();
    const tokens: string[] = [];
    const rows: Array<typeof sessions.$inferInsert> = [];
    for (const [i, m] of members.entries()) {
      const id = `seed-live-${i}-${m.id}`;
      const token = await booted.deps.tokens.issue({ sessionId: id, applicationId, userId: m.id, hardwareId: m.hardwareId, expiresAt: now + ttlMs });
      tokens.push(token);
      const digest = booted.deps.secrets.digest(token);
      rows.push({
        id,
        applicationId,
        userId: m.id,
        hardwareId: m.hardwareId,
        tokenDigest: digest,
        createdAt: now,
        expiresAt: now + ttlMs,
        revokedAt: null,
        legacy: false,
        leaseExpiresAt: now + leaseMs,
      });
    }
    for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
      await d.transaction((tx) => tx.insert(sessions).values(rows.slice(start, start + ROWS_PER_INSERT)));
    }
    return tokens;
  } finally {
    await d.close();
    await booted.close();
  }
}
