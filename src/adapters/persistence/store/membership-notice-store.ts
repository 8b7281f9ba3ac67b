// Expiry notices, each recorded once per period (docs/architecture.md, "Persistence notes").
import { and, asc, eq, gt, gte, lt, notExists, or, sql } from 'drizzle-orm';
import type { Actor } from '../../../application/events/actor.js';
import type { EventDraft } from '../../../application/events/event-draft.js';
import { membershipExpired, membershipExpiring } from '../../../application/events/event-facts.js';
import type { MembershipNoticeStore } from '../../../application/ports/membership-notice-store.js';
import { EXPIRY_NOTICE_DAYS_MAX } from '../../../domain/application-settings.js';
import { accessEndsAt } from '../../../domain/grace.js';
import { DAY_MS, dueNotices, EXPIRED_LOOKBACK_MS, type NoticeKind } from '../../../domain/membership-notices.js';
import { MINUTE_MS } from '../../../domain/time.js';
import type { Db, Dialect } from '../dialect.js';
import type { Tables } from '../tables.js';
import { PLAN_GRACE_MINUTES_MAX } from '../../../domain/plan.js';
import type { RecordEvents } from './event-log.js';

// The one place the base plan's grace joins the scan (docs/plans.md, "Expiry notices"): each
// user's grace in minutes as SQL over `users` (the plan as it is now, 0 without one), and the most a
// plan may have, widening the range read.
const scanGraceOf = ({ users, plans }: Pick<Tables, 'users' | 'plans'>) => ({
  minutes: sql<number>`coalesce((select ${plans.graceMinutes} from ${plans} where ${plans.id} = ${users.planId}), 0)`,
  maxMinutes: PLAN_GRACE_MINUTES_MAX,
});

export function membershipNoticeStore(d: Dialect, recordEvents: RecordEvents): MembershipNoticeStore {
  const { users, applications, membershipNotices: notices } = d.t;
  const scanGrace = scanGraceOf(d.t);
  const noticeDays = sql<number>`(select ${applications.expiryNoticeDays} from ${applications} where ${applications.id} = ${users.applicationId})`;
  const asBig = (n: unknown) => sql`cast(${n} as bigint)`;
  const unsent = (tx: Db, kind: NoticeKind) =>
    notExists(
      tx
        .select({ one: sql`1` })
        .from(notices)
        .where(and(eq(notices.userId, users.id), eq(notices.kind, kind), eq(notices.periodEnd, users.activeUntil))),
    );

  /** The memberships with a notice due at `now` and not yet sent, by users_active_until_idx; the
   * conditions are dueNotices' (domain/membership-notices.ts), which has the last word. */
  function candidates(tx: Db, now: number, limit: number) {
    const accessEnd = sql`${users.activeUntil} + ${asBig(scanGrace.minutes)} * ${MINUTE_MS}`;
    const expiring = and(gt(users.activeUntil, now), sql`${users.activeUntil} - ${asBig(noticeDays)} * ${DAY_MS} < ${now}`, unsent(tx, 'expiring'));
    const expired = and(sql`${accessEnd} <= ${now}`, sql`${accessEnd} >= ${now - EXPIRED_LOOKBACK_MS}`, unsent(tx, 'expired'));
    const around = and(eq(users.isLifetime, false), gte(users.activeUntil, now - EXPIRED_LOOKBACK_MS - scanGrace.maxMinutes * MINUTE_MS), lt(users.activeUntil, now + EXPIRY_NOTICE_DAYS_MAX * DAY_MS));
    const fields = {
      id: users.id,
      applicationId: users.applicationId,
      username: users.username,
      activeUntil: users.activeUntil,
      isLifetime: users.isLifetime,
      noticeDays,
      graceMinutes: scanGrace.minutes,
    };
    return tx
      .select(fields)
      .from(users)
      .where(and(around, or(expiring, expired)))
      .orderBy(asc(users.activeUntil), asc(d.binary(users.id)))
      .limit(limit);
  }

  return {
    async recordMembershipNotices(now, limit, actor: Actor) {
      return d.transaction(async (tx) => {
        // Locked, so no extension commits between this read and the notice; one locked by another
        // transaction (an instance's pass, a login, a redemption) waits for the next pass.
        const rows = await d.locked(candidates(tx, now, limit), { skipLocked: true });
        const due = rows.flatMap((row) => {
          const membership = { activeUntil: row.activeUntil, isLifetime: row.isLifetime };
          const graceMinutes = Number(row.graceMinutes);
          return dueNotices(membership, graceMinutes, Number(row.noticeDays), now).map((notice) => ({ row, membership, graceMinutes, noticeDays: Number(row.noticeDays), notice }));
        });
        if (due.length === 0) return { scanned: rows.length, recorded: 0 };
        const values = due.map(({ row, notice }) => ({ applicationId: row.applicationId, userId: row.id, kind: notice.kind, periodEnd: notice.periodEnd, createdAt: now }));
        // The key lets one caller insert each notice; only what this one inserted is announced.
        const inserted = await tx.insert(notices).values(values).onConflictDoNothing().returning({ userId: notices.userId, kind: notices.kind });
        const mine = new Set(inserted.map((n) => `${n.kind} ${n.userId}`));
        const drafts: EventDraft[] = due
          .filter(({ row, notice }) => mine.has(`${notice.kind} ${row.id}`))
          .map(({ row, membership, graceMinutes, noticeDays: days, notice }) => {
            const user = { id: row.id, applicationId: row.applicationId, username: row.username, membership };
            return notice.kind === 'expiring' ? membershipExpiring(user, days, now) : membershipExpired(user, accessEndsAt(membership, graceMinutes) as number, now);
          });
        await recordEvents(tx, actor, drafts, now);
        return { scanned: rows.length, recorded: drafts.length };
      });
    },
  };
}
