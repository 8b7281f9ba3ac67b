// Bans of users, licenses, devices and addresses, with their propagation.
// Methods marked ATOMIC are one transaction (see store.ts). Instants are epoch milliseconds.
import type { Actor } from '../events/actor.js';
import type { BanKey, MatchedBan } from '../../domain/bans.js';
import type { Instant } from '../../domain/time.js';
import type { BanRecord } from '../records.js';

export interface BanStore {
  /** The live (unexpired) bans of the application matching any of the keys; with a `user` key,
   * also the `license` bans of every license that user redeemed (by join, whatever their number). */
  findMatchingBans(applicationId: string, keys: BanKey[], now: Instant): Promise<MatchedBan[]>;
  /** ATOMIC: adds bans, keeping one already stored for a key unless replacesStoredBan says otherwise.
   * A user ban revokes the user's sessions; a license ban flags the license. Returns the records now
   * stored for those keys, in input order. */
  addBans(applicationId: string, bans: BanRecord[], now: Instant, actor: Actor): Promise<BanRecord[]>;
  /** The live bans, newest first. */
  listBans(applicationId: string, now: Instant): Promise<BanRecord[]>;
  /** ATOMIC: removes a ban (clearing the license flag of a license ban) and, with `cascade`, the
   * bans it propagated. False when not found. */
  deleteBan(applicationId: string, banId: string, now: Instant, actor: Actor, options?: { cascade?: boolean }): Promise<boolean>;
  /** Deletes the bans that expired by `now` (propagated IP bans) in every application; returns how many. */
  purgeExpiredBans(now: Instant): Promise<number>;
}
