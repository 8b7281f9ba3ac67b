// The bans among a request's identifiers, remembered in process while the application's bansVersion
// (bumped in every ban write's transaction) equals the one the request just read, so a new ban bites
// on the next request everywhere (docs/choices.md, "Bans").
import { type BanKey, isBanLive, type MatchedBan } from '../domain/bans.js';
import type { Instant } from '../domain/time.js';
import type { BanStore } from './ports/ban-store.js';
import type { ApplicationRecord } from './records.js';

export interface BanMemory {
  /** The application's live bans among `keys` at `now`, as of at least `app.bansVersion`. */
  matching(app: Pick<ApplicationRecord, 'id' | 'bansVersion'>, keys: BanKey[], now: Instant): Promise<MatchedBan[]>;
}

/** Answers one process keeps (a caller's identifiers each); the least recently used goes first. */
export const BAN_MEMORY_ANSWERS = 10_000;

/** The keys as one text no other keys give: each type and value with its length. */
const textOf = (applicationId: string, keys: readonly BanKey[]) => {
  let text = `${applicationId.length}:${applicationId}`;
  for (const { type, value } of keys) text += `|${type}${value.length}:${value}`;
  return text;
};

export function createBanMemory(store: Pick<BanStore, 'findMatchingBans'>, capacity = BAN_MEMORY_ANSWERS): BanMemory {
  // Insertion order is recency: a hit moves its entry to the end. The answer is a promise, so
  // requests that arrive while it loads share one load.
  const entries = new Map<string, { version: number; bans: Promise<MatchedBan[]> }>();
  const live = (bans: Promise<MatchedBan[]>, now: Instant) => bans.then((all) => all.filter((ban) => isBanLive(ban, now)));
  return {
    matching(app, keys, now) {
      const key = textOf(app.id, keys);
      const hit = entries.get(key);
      if (hit !== undefined && hit.version === app.bansVersion) {
        entries.delete(key);
        entries.set(key, hit);
        return live(hit.bans, now);
      }
      // Asked after the version was read, so at least that new; a request that read an older
      // version than the remembered one (it started before the change) asks for itself.
      const bans = store.findMatchingBans(app.id, keys, now);
      if (hit !== undefined && hit.version > app.bansVersion) return bans;
      const entry = { version: app.bansVersion, bans };
      entries.delete(key);
      entries.set(key, entry);
      if (entries.size > capacity) entries.delete(entries.keys().next().value as string);
      // A failed probe is not kept: the next request asks again.
      bans.catch(() => entries.get(key) === entry && entries.delete(key));
      return bans;
    },
  };
}
