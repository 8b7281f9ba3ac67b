import { DomainError } from './errors.js';
import type { Instant } from './time.js';

export const banTypes = ['ip', 'hardware_id', 'license', 'user'] as const;
export type BanType = (typeof banTypes)[number];

/** The identifiers a request carried. Licenses and the user only once the request proved them. */
export interface RequestIdentifiers {
  ip?: string | null;
  hardwareId?: string | null;
  /** The license the request presented (by its code), if any. */
  licenseIds?: readonly string[];
  /** The proven user. The licenses they redeemed count among the request's identifiers too: the
   * store matches their bans by join (BanStore.findMatchingBans), so none are listed here. */
  userId?: string | null;
}

/** What a request proved beyond its address. A claimed hardware id is banned by propagation only
 * when registered to the proven user, or anyone holding a banned identifier could ban other people's
 * devices by sending their ids beside it (docs/choices.md, "Bans"). */
export interface BanProof {
  registeredHardwareIds: readonly string[];
  /** The licenses the proven user redeemed: banned by propagation as the user's own identifiers. */
  redeemedLicenseIds: readonly string[];
}

export const unproven: BanProof = { registeredHardwareIds: [], redeemedLicenseIds: [] };

export interface BanKey {
  type: BanType;
  /** ip: the address; hardware_id: the id; license: the license's id; user: the user's id. */
  value: string;
}

export function identifierKeys(ids: RequestIdentifiers): BanKey[] {
  const keys: BanKey[] = [];
  if (ids.ip) keys.push({ type: 'ip', value: ids.ip });
  if (ids.hardwareId) keys.push({ type: 'hardware_id', value: ids.hardwareId });
  for (const licenseId of ids.licenseIds ?? []) keys.push({ type: 'license', value: licenseId });
  if (ids.userId) keys.push({ type: 'user', value: ids.userId });
  return keys;
}

const sameKey = (a: BanKey, b: BanKey) => a.type === b.type && a.value === b.value;

/** A live ban among a request's identifiers, as the store finds it. */
export interface MatchedBan extends BanKey {
  id: string;
  /** The ban whose refusal made this one by propagation; null for a ban an owner made. */
  propagatedFrom: string | null;
  /** When it stops holding (null: never): a remembered match holds only until then. */
  expiresAt: Instant | null;
}

/** A ban to make by propagation, recording the ban it came from. */
export interface PropagatedBan extends BanKey {
  propagatedFrom: string;
  /** IP bans: when it stops holding (null: never); other types never expire. */
  expiresAt: Instant | null;
}

export interface PropagationPolicy {
  /** The application's ban_propagation. */
  enabled: boolean;
  /** The application's ban_propagation_to_addresses: whether the caller's address is banned too. */
  toAddresses: boolean;
  /** The application's propagated_ip_ban_hours: how long an IP ban made by propagation holds (null: for good). */
  ipBanHours: number | null;
}

export interface BanDecision {
  banned: boolean;
  /** With propagation, the identifiers to ban because the request carried them beside a banned one. */
  propagate: PropagatedBan[];
}

const HOUR_MS = 3_600_000;

/** Whether a ban still holds at `now`: owner bans hold until deleted, propagated IP bans until they expire. */
export const isBanLive = (ban: { expiresAt: Instant | null }, now: Instant) => ban.expiresAt === null || ban.expiresAt > now;

/** Decides a request against the live bans matching its identifiers, banning the others it carried and proved when
 * propagation is on. Only owners' bans of users, licenses and hardware ids propagate, and a propagated ban stops where it
 * landed, so no ban cascades through shared addresses to innocent users (docs/choices.md, "Bans"). */
export function decideBans(ids: RequestIdentifiers, matching: readonly MatchedBan[], policy: PropagationPolicy, now: Instant, proof: BanProof = unproven): BanDecision {
  const listed = identifierKeys(ids);
  // A license ban the store matched beside a proven user is of a license that user redeemed.
  const held = (m: MatchedBan) => m.type === 'license' && Boolean(ids.userId);
  const hits = matching.filter((m) => listed.some((k) => sameKey(k, m)) || held(m));
  if (hits.length === 0) return { banned: false, propagate: [] };
  const origin = hits.find((h) => h.type !== 'ip' && h.propagatedFrom === null);
  if (!policy.enabled || origin === undefined) return { banned: true, propagate: [] };
  const presented = ids.licenseIds ?? [];
  const redeemed = ids.userId ? proof.redeemedLicenseIds.filter((id) => !presented.includes(id)) : [];
  const carried = identifierKeys({ ...ids, licenseIds: [...redeemed, ...presented] });
  const provable = (k: BanKey) => k.type !== 'hardware_id' || proof.registeredHardwareIds.includes(k.value);
  // One banned user's login from a campus NAT or a carrier address would bar everyone behind it.
  const reachable = (k: BanKey) => k.type !== 'ip' || policy.toAddresses;
  return {
    banned: true,
    propagate: carried
      .filter((k) => !hits.some((h) => sameKey(h, k)) && provable(k) && reachable(k))
      .map((k) => ({
        ...k,
        propagatedFrom: origin.id,
        expiresAt: k.type === 'ip' && policy.ipBanHours !== null ? now + policy.ipBanHours * HOUR_MS : null,
      })),
  };
}

/** Whether a new ban replaces the one stored for the same identifier: an expired ban is gone, and
 * an owner's ban takes over one that propagation made (becoming permanent and an origin itself). */
export function replacesStoredBan(stored: { expiresAt: Instant | null; propagatedFrom: string | null }, incoming: { propagatedFrom: string | null }, now: Instant): boolean {
  return !isBanLive(stored, now) || (stored.propagatedFrom !== null && incoming.propagatedFrom === null);
}

export const bannedError = () => new DomainError('BANNED', 'access from this account, address, device or license is banned');
