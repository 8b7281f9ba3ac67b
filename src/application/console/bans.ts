import type { Actor } from '../events/actor.js';
import { parseIpAddress } from '../../domain/ip-address.js';
import type { BanType } from '../../domain/bans.js';
import { DomainError, validationError } from '../../domain/errors.js';
import type { Deps } from '../deps.js';
import type { ApplicationStore } from '../ports/application-store.js';
import type { BanStore } from '../ports/ban-store.js';
import type { LicenseStore } from '../ports/license-store.js';
import type { UserStore } from '../ports/user-store.js';
import type { ApplicationRecord, BanRecord, OwnerRecord } from '../records.js';
import { ownedApplication } from './applications.js';
import { findLicenseByCode } from './licenses.js';

export const BAN_VALUE_MAX = 256;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A ban with the value an owner recognises: a license ban shows the code, not the license id. */
export interface ShownBan {
  ban: BanRecord;
  shownValue: string;
}

async function resolveValue(deps: Pick<Deps, 'secrets'> & { store: LicenseStore & UserStore }, app: ApplicationRecord, type: BanType, raw: string): Promise<{ stored: string; shown: string }> {
  const value = raw.trim();
  if (value === '' || value.length > BAN_VALUE_MAX) throw validationError('value', `must be 1 to ${BAN_VALUE_MAX} characters`);
  switch (type) {
    case 'ip': {
      // The spelling requests are checked in, so a ban typed in any notation matches.
      const ip = parseIpAddress(value);
      if (ip === null) throw validationError('value', 'must be an IPv4 or IPv6 address');
      return { stored: ip, shown: ip };
    }
    case 'hardware_id':
      return { stored: value, shown: value };
    case 'license': {
      const found = await findLicenseByCode(deps, app.id, value);
      if (found === null) throw new DomainError('LICENSE_NOT_FOUND', 'no such license');
      return { stored: found.license.id, shown: found.code };
    }
    case 'user': {
      // Only a well-formed id is looked up: anything else names no user.
      const user = UUID.test(value) ? await deps.store.findUserById(app.id, value.toLowerCase()) : null;
      if (user === null) throw new DomainError('USER_NOT_FOUND', 'no such user');
      return { stored: user.id, shown: user.id };
    }
  }
}

/** Bans an identifier; banning one that is already banned answers the existing ban, except that
 * an owner's ban takes over one made by propagation (it then neither expires nor stays propagated). */
export async function addBan(
  deps: Pick<Deps, 'clock' | 'ids' | 'secrets'> & { store: ApplicationStore & BanStore & LicenseStore & UserStore },
  owner: OwnerRecord,
  appId: string,
  input: { type: BanType; value: string; reason?: string | null },
  actor: Actor,
): Promise<ShownBan> {
  const app = await ownedApplication(deps, owner, appId);
  const { stored, shown } = await resolveValue(deps, app, input.type, input.value);
  const reason = input.reason === undefined || input.reason === null || input.reason.trim() === '' ? null : input.reason;
  const now = deps.clock.now();
  const [ban] = await deps.store.addBans(
    app.id,
    [{ id: deps.ids.uuid(), applicationId: app.id, type: input.type, value: stored, reason, createdAt: now, propagatedFrom: null, expiresAt: null }],
    now,
    actor,
  );
  if (ban === undefined) throw new Error('the store returned no ban for the one it was given');
  return { ban, shownValue: shown };
}

/** The live bans, newest first. A license ban whose license no longer exists shows the license id. */
export async function listBans(deps: Pick<Deps, 'clock' | 'secrets'> & { store: ApplicationStore & BanStore & LicenseStore }, owner: OwnerRecord, appId: string): Promise<ShownBan[]> {
  const app = await ownedApplication(deps, owner, appId);
  const bans = await deps.store.listBans(app.id, deps.clock.now());
  return Promise.all(
    bans.map(async (ban) => {
      if (ban.type !== 'license') return { ban, shownValue: ban.value };
      const license = await deps.store.findLicenseById(app.id, ban.value);
      return { ban, shownValue: license === null ? ban.value : deps.secrets.open(license.codeSealed) };
    }),
  );
}

/** Lifts a ban; with `cascade`, also the bans it propagated. */
export async function deleteBan(
  deps: Pick<Deps, 'clock'> & { store: ApplicationStore & BanStore },
  owner: OwnerRecord,
  appId: string,
  banId: string,
  options: { cascade: boolean },
  actor: Actor,
): Promise<void> {
  const app = await ownedApplication(deps, owner, appId);
  if (!(await deps.store.deleteBan(app.id, banId, deps.clock.now(), actor, options))) throw new DomainError('BAN_NOT_FOUND', 'no such ban');
}
