import type { Actor } from '../events/actor.js';
import { DomainError } from '../../domain/errors.js';
import { canonicalLicenseCode, formatLicenseCode, LICENSE_CODE_BYTES, licenseTerms } from '../../domain/license.js';
import type { Plan } from '../../domain/plan.js';
import type { Deps } from '../deps.js';
import type { ApplicationStore } from '../ports/application-store.js';
import type { LicenseStore } from '../ports/license-store.js';
import type { PlanStore } from '../ports/plan-store.js';
import type { LicenseRecord, LicenseRedemption, OwnerRecord } from '../records.js';
import { ownedApplication } from './applications.js';

export const LICENSE_BATCH_MAX = 10_000;

/** A license with its code in the clear, for the owner's eyes. */
export interface IssuedLicense {
  license: LicenseRecord;
  code: string;
}

const notFound = () => new DomainError('LICENSE_NOT_FOUND', 'no such license');

/** The application's plan new licenses may be issued of (the store checks again under the plan's lock). */
async function issuablePlan(deps: { store: PlanStore }, appId: string, planId: string): Promise<Plan> {
  const plan = await deps.store.findPlan(appId, planId);
  if (plan === null) throw new DomainError('PLAN_NOT_FOUND', 'no such plan');
  if (plan.archived) throw new DomainError('PLAN_ARCHIVED', 'an archived plan has no new licenses');
  return plan;
}

export async function createLicenses(
  deps: Pick<Deps, 'clock' | 'ids' | 'secrets'> & { store: ApplicationStore & LicenseStore & PlanStore },
  owner: OwnerRecord,
  appId: string,
  input: { count: number; minutes?: number | null; plan_id?: string; note?: string | null },
  actor: Actor,
): Promise<IssuedLicense[]> {
  const app = await ownedApplication(deps, owner, appId);
  if (!Number.isInteger(input.count) || input.count < 1 || input.count > LICENSE_BATCH_MAX) {
    throw new DomainError('VALIDATION_FAILED', `count must be an integer from 1 to ${LICENSE_BATCH_MAX}`, {
      errors: [{ field: 'count', message: `must be an integer from 1 to ${LICENSE_BATCH_MAX}` }],
    });
  }
  const terms = licenseTerms({ minutes: input.minutes, planId: input.plan_id });
  // A plan's code takes the plan's seats as they are now; its minutes stay null (the plan's duration counts at redemption).
  const plan = terms.kind === 'plan' ? await issuablePlan(deps, app.id, terms.planId) : null;
  const now = deps.clock.now();
  const note = input.note === undefined || input.note === null || input.note.trim() === '' ? null : input.note;
  const issued: IssuedLicense[] = [];
  for (let i = 0; i < input.count; i++) {
    const code = formatLicenseCode(deps.secrets.randomBytes(LICENSE_CODE_BYTES));
    issued.push({
      code,
      license: {
        id: deps.ids.uuid(),
        applicationId: app.id,
        codeDigest: deps.secrets.digest(code),
        codeSealed: deps.secrets.seal(code),
        minutes: terms.kind === 'minutes' ? terms.minutes : null,
        note,
        createdAt: now,
        usedAt: null,
        usedByUserId: null,
        planId: plan?.id ?? null,
        seats: plan?.seats ?? 1,
        redemptions: 0,
        seatExhaustedAt: null,
        banned: false,
      },
    });
  }
  await deps.store.insertLicenses(
    issued.map((l) => l.license),
    actor,
  );
  return issued;
}

export async function listLicenses(deps: Pick<Deps, 'secrets'> & { store: ApplicationStore & LicenseStore }, owner: OwnerRecord, appId: string, status?: 'used' | 'unused'): Promise<IssuedLicense[]> {
  const app = await ownedApplication(deps, owner, appId);
  const licenses = await deps.store.listLicenses(app.id, status);
  return licenses.map((license) => ({ license, code: deps.secrets.open(license.codeSealed) }));
}

/** A license of the application by its code, as a person may type it. */
export async function findLicenseByCode(deps: Pick<Deps, 'secrets'> & { store: LicenseStore }, appId: string, code: string): Promise<IssuedLicense | null> {
  const canonical = canonicalLicenseCode(code);
  if (canonical === null) return null;
  const license = await deps.store.findLicenseByDigest(appId, deps.secrets.digest(canonical));
  return license === null ? null : { license, code: canonical };
}

export async function getLicense(deps: Pick<Deps, 'secrets'> & { store: ApplicationStore & LicenseStore }, owner: OwnerRecord, appId: string, code: string): Promise<IssuedLicense> {
  const app = await ownedApplication(deps, owner, appId);
  const found = await findLicenseByCode(deps, app.id, code);
  if (found === null) throw notFound();
  return found;
}

/** Only an unused license can be deleted: a used one is part of a membership's history. */
export async function deleteLicense(deps: Pick<Deps, 'secrets' | 'clock'> & { store: ApplicationStore & LicenseStore }, owner: OwnerRecord, appId: string, code: string, actor: Actor): Promise<void> {
  const { license } = await getLicense(deps, owner, appId, code);
  const outcome = await deps.store.deleteUnusedLicense(license.applicationId, license.id, deps.clock.now(), actor);
  if (outcome === 'missing') throw notFound();
  if (outcome === 'used') throw new DomainError('LICENSE_CONSUMED', 'a used license cannot be deleted');
}

/** Who redeemed a plan's code, by the license's id. */
export async function listRedemptions(deps: { store: ApplicationStore & LicenseStore }, owner: OwnerRecord, appId: string, licenseId: string): Promise<LicenseRedemption[]> {
  const app = await ownedApplication(deps, owner, appId);
  const redemptions = await deps.store.listRedemptions(app.id, licenseId);
  if (redemptions === null) throw notFound();
  return redemptions;
}

/** Frees `userId`'s seat of a plan's code, taking back what that redemption granted (docs/plans.md, "Seats"). */
export async function releaseSeat(
  deps: Pick<Deps, 'clock' | 'ids'> & { store: ApplicationStore & LicenseStore },
  owner: OwnerRecord,
  appId: string,
  ids: { licenseId: string; userId: string },
  actor: Actor,
): Promise<void> {
  const app = await ownedApplication(deps, owner, appId);
  const released = await deps.store.releaseSeat({ applicationId: app.id, ...ids, adjustmentId: deps.ids.uuid(), now: deps.clock.now() }, actor);
  if (!released) throw new DomainError('REDEMPTION_NOT_FOUND', 'this user holds no seat of this license');
}
