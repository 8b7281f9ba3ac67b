// The expiry notices of memberships (docs/events.md, membership.expiring and membership.expired):
// each sent once per period, across every instance and process. Instants are epoch milliseconds.
import type { Actor } from '../events/actor.js';
import type { Instant } from '../../domain/time.js';

export interface NoticePass {
  /** Memberships looked at (at most the limit): fewer means none due is left. */
  scanned: number;
  /** Notices recorded, each with its event. */
  recorded: number;
}

export interface MembershipNoticeStore {
  /** ATOMIC: records, with its event as `actor`, each notice due at `now` (domain/membership-notices.ts)
   * and not yet sent, for up to `limit` memberships. Of callers at once, in any process, one records
   * each notice; a membership another transaction has locked waits for the next pass. */
  recordMembershipNotices(now: Instant, limit: number, actor: Actor): Promise<NoticePass>;
}
