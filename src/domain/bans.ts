import { DomainError } from './errors.js';

export const banTypes = ['ip', 'hardware_id', 'license', 'user'] as const;
export type BanType = (typeof banTypes)[number];

/** The identifiers a request carried. Licenses and the user only once the request proved them. */
export interface RequestIdentifiers {
  ip?: string | null;
  hardwareId?: string | null;
  /** The license presented, or every license the proven user redeemed. */
  licenseIds?: readonly string[];
  userId?: string | null;
}

/**
 * What a request proved beyond its address (the address is the connection's own, so it needs no
 * proof). Users and licenses are among a request's identifiers only once proven (a verified
 * password, license code or live session); a claimed hardware id is banned by propagation only
 * when it is registered to the proven user, or anyone holding a banned identifier could ban other
 * people's devices by sending their ids beside it.
 */
export interface BanProof {
  registeredHardwareIds: readonly string[];
}

export const unproven: BanProof = { registeredHardwareIds: [] };

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

export interface BanDecision {
  banned: boolean;
  /** With propagation, the identifiers to ban because the request carried them beside a banned one. */
  propagate: BanKey[];
}

/**
 * Decides a request against the bans that match its identifiers. With propagation on, a request
 * refused for one banned identifier bans the other identifiers it carried and proved.
 */
export function decideBans(ids: RequestIdentifiers, matching: readonly BanKey[], propagation: boolean, proof: BanProof = unproven): BanDecision {
  const carried = identifierKeys(ids);
  const hits = carried.filter((k) => matching.some((m) => sameKey(k, m)));
  if (hits.length === 0) return { banned: false, propagate: [] };
  if (!propagation) return { banned: true, propagate: [] };
  const provable = (k: BanKey) => k.type !== 'hardware_id' || proof.registeredHardwareIds.includes(k.value);
  return { banned: true, propagate: carried.filter((k) => !hits.some((h) => sameKey(h, k)) && provable(k)) };
}

export const bannedError = () => new DomainError('BANNED', 'access from this account, address, device or license is banned');
