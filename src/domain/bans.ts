import { DomainError } from './errors.js';

export const banTypes = ['ip', 'hardware_id', 'license', 'user'] as const;
export type BanType = (typeof banTypes)[number];

/** The identifiers a request carried. `licenseId` and `userId` only once the request proved them. */
export interface RequestIdentifiers {
  ip?: string | null;
  hardwareId?: string | null;
  licenseId?: string | null;
  userId?: string | null;
}

export interface BanKey {
  type: BanType;
  /** ip: the address; hardware_id: the id; license: the license's id; user: the user's id. */
  value: string;
}

export function identifierKeys(ids: RequestIdentifiers): BanKey[] {
  const keys: BanKey[] = [];
  if (ids.ip) keys.push({ type: 'ip', value: ids.ip });
  if (ids.hardwareId) keys.push({ type: 'hardware_id', value: ids.hardwareId });
  if (ids.licenseId) keys.push({ type: 'license', value: ids.licenseId });
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
 * refused for one banned identifier bans every other identifier it carried.
 */
export function decideBans(ids: RequestIdentifiers, matching: readonly BanKey[], propagation: boolean): BanDecision {
  const carried = identifierKeys(ids);
  const hits = carried.filter((k) => matching.some((m) => sameKey(k, m)));
  if (hits.length === 0) return { banned: false, propagate: [] };
  return { banned: true, propagate: propagation ? carried.filter((k) => !hits.some((h) => sameKey(h, k))) : [] };
}

export const bannedError = () => new DomainError('BANNED', 'access from this account, address, device or license is banned');
