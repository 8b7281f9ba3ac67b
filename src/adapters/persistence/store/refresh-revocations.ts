// Ending refresh tokens in the caller's transaction: a whole family on reuse, or a user's (on one
// machine) when what they were bound to changes (docs/machines.md, "Refresh tokens").
import { and, eq, isNull } from 'drizzle-orm';
import type { Instant } from '../../../domain/time.js';
import type { Db, Dialect } from '../dialect.js';

/** Revokes the family's unrevoked tokens and sessions; returns how many sessions ended. */
export async function revokeFamily(d: Dialect, tx: Db, familyId: string, now: Instant): Promise<number> {
  const { refreshTokens: r, sessions } = d.t;
  await tx
    .update(r)
    .set({ revokedAt: now })
    .where(and(eq(r.familyId, familyId), isNull(r.revokedAt)));
  const ended = await tx
    .update(sessions)
    .set({ revokedAt: now })
    .where(and(eq(sessions.refreshFamilyId, familyId), isNull(sessions.revokedAt)))
    .returning({ id: sessions.id });
  return ended.length;
}

/** Revokes the user's unspent, unrevoked refresh tokens, only those of `hardwareId` when given. */
export async function revokeRefreshTokens(d: Dialect, tx: Db, userId: string, now: Instant, hardwareId?: string): Promise<void> {
  const { refreshTokens: r } = d.t;
  const onMachine = hardwareId === undefined ? undefined : eq(r.hardwareId, hardwareId);
  await tx
    .update(r)
    .set({ revokedAt: now })
    .where(and(eq(r.userId, userId), onMachine, isNull(r.spentAt), isNull(r.revokedAt)));
}
