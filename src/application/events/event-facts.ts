// The events changes to users, sessions, devices, licenses and bans record (docs/events.md): each
// builder turns the change's records into a draft whose `data` is their facts, minus secrets, in
// epoch ms; the events adapter renders them for the wire (docs/choices.md, "Events are data").
import type { Instant } from '../../domain/time.js';
import type { AdjustmentRecord, BanRecord, DeviceRecord, LicenseRecord, UserRecord } from '../records.js';
import { type EventDraft, facts } from './event-draft.js';

/** A user as events show them. */
export type UserFacts = Pick<UserRecord, 'id' | 'username' | 'membership'>;
/** A license without its code (no digest, no sealed code). */
export type LicenseFacts = Pick<LicenseRecord, 'id' | 'minutes' | 'note' | 'createdAt' | 'usedAt' | 'usedByUserId' | 'banned' | 'planId' | 'seats' | 'redemptions'>;
export type DeviceFacts = Pick<DeviceRecord, 'id' | 'hardwareId' | 'registeredAt'>;

export interface UserCreatedFacts {
  user: UserFacts;
  source: 'sign_up' | 'sign_up_with_license_code';
  /** When it was made: the membership shows as of then. */
  at: Instant;
}
export interface SessionCreatedFacts {
  userId: string;
  session: { id: string; hardwareId: string | null; expiresAt: Instant };
}
export interface LicenseActivatedFacts {
  license: LicenseFacts;
  user: UserFacts;
  adjustment: AdjustmentRecord;
  at: Instant;
}
export interface MembershipAdjustedFacts {
  user: UserFacts;
  adjustment: AdjustmentRecord;
  at: Instant;
}
/** `membership.plan_changed`: a redemption switched the membership from one base plan to another. */
export interface MembershipPlanChangedFacts {
  user: UserFacts;
  planFrom: string;
  planTo: string;
  adjustment: AdjustmentRecord;
  at: Instant;
}
export interface TrialStartedFacts {
  user: UserFacts;
  /** The trial plan as it was granted. */
  plan: { id: string; name: string };
  adjustment: AdjustmentRecord;
  at: Instant;
}
export interface MembershipExpiringFacts {
  user: UserFacts;
  activeUntil: Instant;
  /** The application's expiry_notice_days when it was sent. */
  noticeDays: number;
  at: Instant;
}
export interface MembershipExpiredFacts {
  user: UserFacts;
  activeUntil: Instant;
  /** active_until plus the base plan's grace. */
  accessEndedAt: Instant;
  at: Instant;
}
export interface TimedOutFacts {
  userId: string;
  until: Instant;
  reason: string | null;
  /** The timeout it replaced, if any. */
  before: Instant | null;
}
export interface TimeoutLiftedFacts {
  userId: string;
  before: Instant | null;
}
export interface DeviceFactsOf {
  userId: string;
  device: DeviceFacts;
  reason?: 'owner' | 'reset' | 'user';
}
export interface LicenseFileIssuedFacts {
  userId: string;
  licenseFile: { id: string; hardwareId: string | null; issuedAt: Instant; expiresAt: Instant; issuedBy: { type: string; id: string } };
}

const userTarget = (u: Pick<UserRecord, 'id' | 'username'>) => ({ type: 'user', id: u.id, label: u.username });
const userFacts = (u: UserFacts): UserFacts => ({ id: u.id, username: u.username, membership: u.membership });
const licenseFacts = (l: LicenseFacts): LicenseFacts => ({
  id: l.id,
  minutes: l.minutes,
  note: l.note,
  createdAt: l.createdAt,
  usedAt: l.usedAt,
  usedByUserId: l.usedByUserId,
  banned: l.banned,
  planId: l.planId,
  seats: l.seats,
  redemptions: l.redemptions,
});
const deviceFacts = (d: DeviceFacts): DeviceFacts => ({ id: d.id, hardwareId: d.hardwareId, registeredAt: d.registeredAt });
const adjustmentFacts = (a: AdjustmentRecord): AdjustmentRecord => ({
  id: a.id,
  applicationId: a.applicationId,
  userId: a.userId,
  type: a.type,
  occurredAt: a.occurredAt,
  minutes: a.minutes,
  grantsLifetime: a.grantsLifetime,
  revokesLifetime: a.revokesLifetime,
  licenseId: a.licenseId,
  reason: a.reason,
  planFrom: a.planFrom,
  planTo: a.planTo,
});
const banFacts = (b: BanRecord): BanRecord => ({
  id: b.id,
  applicationId: b.applicationId,
  type: b.type,
  value: b.value,
  reason: b.reason,
  createdAt: b.createdAt,
  propagatedFrom: b.propagatedFrom,
  expiresAt: b.expiresAt,
});

/** `user.created`: by a sign-up (`sign_up`) or a sign-up with a license code. */
export const userCreated = (u: UserRecord, source: UserCreatedFacts['source'], now: Instant): EventDraft => ({
  applicationId: u.applicationId,
  action: 'user.created',
  target: userTarget(u),
  data: facts<UserCreatedFacts>({ user: userFacts(u), source, at: now }),
});

export const sessionCreated = (u: UserRecord, session: { id: string; hardwareId: string | null; expiresAt: number }): EventDraft => ({
  applicationId: u.applicationId,
  action: 'session.created',
  target: userTarget(u),
  data: facts<SessionCreatedFacts>({ userId: u.id, session: { id: session.id, hardwareId: session.hardwareId, expiresAt: session.expiresAt } }),
});

/** `session.revoked`: why (`logout`, `owner`, `timeout`, `ban`, `password_changed`, `devices_reset`) and how many; its facts are its data. */
export const sessionsRevoked = (applicationId: string, user: { id: string; label: string | null }, reason: string, count: number): EventDraft => ({
  applicationId,
  action: 'session.revoked',
  target: { type: 'user', id: user.id, label: user.label },
  data: { user_id: user.id, reason, revoked: count },
});

/** `refresh.reused`: a spent refresh token came back, so its family was revoked; its facts are its data. */
export const refreshReused = (u: Pick<UserRecord, 'applicationId' | 'id' | 'username'>, family: { id: string; hardwareId: string; sessionsRevoked: number }): EventDraft => ({
  applicationId: u.applicationId,
  action: 'refresh.reused',
  target: userTarget(u),
  data: { user_id: u.id, family_id: family.id, hardware_id: family.hardwareId, sessions_revoked: family.sessionsRevoked },
});

/** `license.created`: one per batch, with the batch's count and terms (never the codes); its facts are its data. */
export const licensesCreated = (batch: readonly LicenseRecord[]): EventDraft => {
  const first = batch[0]!;
  return {
    applicationId: first.applicationId,
    action: 'license.created',
    target: { type: 'license_batch', id: first.id, label: `${batch.length} license${batch.length === 1 ? '' : 's'}` },
    data: { count: batch.length, minutes: first.minutes, plan_id: first.planId, seats: first.seats, note: first.note, license_ids: batch.slice(0, 100).map((l) => l.id) },
  };
};

export const licenseActivated = (l: LicenseRecord, u: UserRecord, adjustment: AdjustmentRecord, now: Instant): EventDraft => ({
  applicationId: l.applicationId,
  action: 'license.activated',
  target: { type: 'license', id: l.id, label: null },
  data: facts<LicenseActivatedFacts>({
    license: licenseFacts({ ...l, usedAt: l.usedAt ?? now, usedByUserId: l.usedByUserId ?? u.id }),
    user: userFacts(u),
    adjustment: adjustmentFacts(adjustment),
    at: now,
  }),
});

export const licenseDeleted = (l: LicenseRecord): EventDraft => ({
  applicationId: l.applicationId,
  action: 'license.deleted',
  target: { type: 'license', id: l.id, label: null },
  data: { license: licenseFacts(l) },
});

export const membershipAdjusted = (u: UserRecord, adjustment: AdjustmentRecord, now: Instant): EventDraft => ({
  applicationId: u.applicationId,
  action: 'membership.adjusted',
  target: userTarget(u),
  data: facts<MembershipAdjustedFacts>({ user: userFacts(u), adjustment: adjustmentFacts(adjustment), at: now }),
});

/** `membership.plan_changed`: `adjustment` switched the user's membership between two base plans. */
export const membershipPlanChanged = (u: UserRecord, adjustment: AdjustmentRecord, now: Instant): EventDraft => ({
  applicationId: u.applicationId,
  action: 'membership.plan_changed',
  target: userTarget(u),
  data: facts<MembershipPlanChangedFacts>({ user: userFacts(u), planFrom: adjustment.planFrom as string, planTo: adjustment.planTo as string, adjustment: adjustmentFacts(adjustment), at: now }),
});

/** `trial.started`: start_trial granted the application's trial plan (docs/plans.md, "Trials"). */
export const trialStarted = (u: UserRecord, plan: { id: string; name: string }, adjustment: AdjustmentRecord, now: Instant): EventDraft => ({
  applicationId: u.applicationId,
  action: 'trial.started',
  target: userTarget(u),
  data: facts<TrialStartedFacts>({ user: userFacts(u), plan: { id: plan.id, name: plan.name }, adjustment: adjustmentFacts(adjustment), at: now }),
});

/** `membership.expiring`: less than `noticeDays` remain before the user's active_until. */
export const membershipExpiring = (u: Pick<UserRecord, 'id' | 'applicationId' | 'username' | 'membership'>, noticeDays: number, now: Instant): EventDraft => ({
  applicationId: u.applicationId,
  action: 'membership.expiring',
  target: userTarget(u),
  data: facts<MembershipExpiringFacts>({ user: userFacts(u), activeUntil: u.membership.activeUntil as Instant, noticeDays, at: now }),
});

/** `membership.expired`: the user's access ended at `accessEndedAt` (grace included). */
export const membershipExpired = (u: Pick<UserRecord, 'id' | 'applicationId' | 'username' | 'membership'>, accessEndedAt: Instant, now: Instant): EventDraft => ({
  applicationId: u.applicationId,
  action: 'membership.expired',
  target: userTarget(u),
  data: facts<MembershipExpiredFacts>({ user: userFacts(u), activeUntil: u.membership.activeUntil as Instant, accessEndedAt, at: now }),
});

export const banCreated = (b: BanRecord): EventDraft => ({
  applicationId: b.applicationId,
  action: 'ban.created',
  target: { type: 'ban', id: b.id, label: `${b.type}:${b.value}` },
  data: { ban: banFacts(b) },
});

export const banRemoved = (b: BanRecord): EventDraft => ({
  applicationId: b.applicationId,
  action: 'ban.removed',
  target: { type: 'ban', id: b.id, label: `${b.type}:${b.value}` },
  data: { ban: banFacts(b) },
});

export const userTimedOut = (u: UserRecord, until: Instant, reason: string | null): EventDraft => ({
  applicationId: u.applicationId,
  action: 'user.timed_out',
  target: userTarget(u),
  data: facts<TimedOutFacts>({ userId: u.id, until, reason, before: u.timeout?.until ?? null }),
});

export const userTimeoutLifted = (u: UserRecord): EventDraft => ({
  applicationId: u.applicationId,
  action: 'user.timeout_lifted',
  target: userTarget(u),
  data: facts<TimeoutLiftedFacts>({ userId: u.id, before: u.timeout?.until ?? null }),
});

export const deviceRegistered = (applicationId: string, user: Pick<UserRecord, 'id' | 'username'>, device: DeviceRecord): EventDraft => ({
  applicationId,
  action: 'device.registered',
  target: userTarget(user),
  data: facts<DeviceFactsOf>({ userId: user.id, device: deviceFacts(device) }),
});

export const deviceRemoved = (applicationId: string, user: Pick<UserRecord, 'id' | 'username'>, device: DeviceRecord, reason: 'owner' | 'reset' | 'user'): EventDraft => ({
  applicationId,
  action: 'device.removed',
  target: userTarget(user),
  data: facts<DeviceFactsOf>({ userId: user.id, device: deviceFacts(device), reason }),
});

/** An offline license file was issued (audit-only): its id, machine, expiry and issuer, never its text. */
export const licenseFileIssued = (applicationId: string, user: Pick<UserRecord, 'id' | 'username'>, f: LicenseFileIssuedFacts['licenseFile']): EventDraft => ({
  applicationId,
  action: 'license_file.issued',
  target: userTarget(user),
  data: facts<LicenseFileIssuedFacts>({
    userId: user.id,
    licenseFile: { id: f.id, hardwareId: f.hardwareId, issuedAt: f.issuedAt, expiresAt: f.expiresAt, issuedBy: { type: f.issuedBy.type, id: f.issuedBy.id } },
  }),
});
