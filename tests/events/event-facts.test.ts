// The event fact builders (application/events/event-facts.ts, content-facts.ts): records in,
// drafts out whose data is the records' facts (camelCase, epoch-ms instants) without secrets,
// JSON as stored. No database: the store calls these inside its transactions.
import { describe, expect, it } from 'vitest';
import { announcementChanged, applicationSettingsChanged, fileEvent, userVariableChanged, variableChanged, webhookEndpointChanged } from '../../src/application/events/content-facts.js';
import type { EventDraft } from '../../src/application/events/event-draft.js';
import {
  banCreated,
  deviceRegistered,
  licenseActivated,
  licenseDeleted,
  licenseFileIssued,
  membershipAdjusted,
  membershipExpired,
  membershipExpiring,
  membershipPlanChanged,
  sessionCreated,
  trialStarted,
  userCreated,
  userTimedOut,
} from '../../src/application/events/event-facts.js';
import { adjustment, announcement, application, AT, ban, device, endpoint, file, license, SECRETS, user } from '../support/event-records.js';

const LATER = AT + 7_200_000;

describe('event facts', () => {
  it('a user is its id, username and membership, with the instant it was shown at; never its password hash', () => {
    const draft = userCreated(user, 'sign_up', LATER);
    expect(draft).toEqual({
      applicationId: 'app-1',
      action: 'user.created',
      target: { type: 'user', id: 'u-1', label: 'alice' },
      data: { user: { id: 'u-1', username: 'alice', membership: { activeUntil: AT + 3_600_000, isLifetime: false } }, source: 'sign_up', at: LATER },
    });
  });

  it('a redeemed license is shown used at the redemption, by the user, without its code', () => {
    const draft = licenseActivated(license, user, adjustment, LATER);
    expect(draft.data).toEqual({
      license: { id: 'l-1', minutes: 60, note: null, createdAt: AT, usedAt: LATER, usedByUserId: 'u-1', banned: false, planId: null, seats: 1, redemptions: 0 },
      user: { id: 'u-1', username: 'alice', membership: user.membership },
      adjustment,
      at: LATER,
    });
    expect(licenseDeleted(license).data).toEqual({
      license: { id: 'l-1', minutes: 60, note: null, createdAt: AT, usedAt: null, usedByUserId: null, banned: false, planId: null, seats: 1, redemptions: 0 },
    });
  });

  it("a seat of a plan's code keeps the license's first redeemer; a switch of plans names both plans", () => {
    const seat = { ...license, minutes: null, planId: 'p-team', seats: 5, redemptions: 2, usedAt: AT, usedByUserId: 'u-0' };
    expect(licenseActivated(seat, user, adjustment, LATER).data['license']).toEqual({
      id: 'l-1',
      minutes: null,
      note: null,
      createdAt: AT,
      usedAt: AT,
      usedByUserId: 'u-0',
      banned: false,
      planId: 'p-team',
      seats: 5,
      redemptions: 2,
    });
    const switched = { ...adjustment, planFrom: 'p-basic', planTo: 'p-pro' };
    expect(membershipPlanChanged(user, switched, AT)).toEqual({
      applicationId: 'app-1',
      action: 'membership.plan_changed',
      target: { type: 'user', id: 'u-1', label: 'alice' },
      data: { user: { id: 'u-1', username: 'alice', membership: user.membership }, planFrom: 'p-basic', planTo: 'p-pro', adjustment: switched, at: AT },
    });
  });

  it('expiry notices: the user, the period they end, the notice days or the end of access, and when they were sent', () => {
    expect(membershipExpiring(user, 7, AT)).toEqual({
      applicationId: 'app-1',
      action: 'membership.expiring',
      target: { type: 'user', id: 'u-1', label: 'alice' },
      data: { user: { id: 'u-1', username: 'alice', membership: user.membership }, activeUntil: AT + 3_600_000, noticeDays: 7, at: AT },
    });
    expect(membershipExpired(user, AT + 3_600_000, LATER).data).toEqual({
      user: { id: 'u-1', username: 'alice', membership: user.membership },
      activeUntil: AT + 3_600_000,
      accessEndedAt: AT + 3_600_000,
      at: LATER,
    });
  });

  it('trial.started: the user as granted, the plan by id and name, the trial adjustment', () => {
    const trial = { ...adjustment, type: 'trial' as const, licenseId: null, planTo: 'p-1' };
    expect(trialStarted({ ...user, planId: 'p-1' }, { id: 'p-1', name: 'Trial' }, trial, AT)).toEqual({
      applicationId: 'app-1',
      action: 'trial.started',
      target: { type: 'user', id: 'u-1', label: 'alice' },
      data: { user: { id: 'u-1', username: 'alice', membership: user.membership }, plan: { id: 'p-1', name: 'Trial' }, adjustment: trial, at: AT },
    });
  });

  it('keeps instants as epoch ms: sessions, devices, timeouts and license files', () => {
    expect(sessionCreated(user, { id: 's-1', hardwareId: 'hw-b', expiresAt: LATER }).data).toEqual({ userId: 'u-1', session: { id: 's-1', hardwareId: 'hw-b', expiresAt: LATER } });
    expect(deviceRegistered('app-1', user, device).data).toEqual({ userId: 'u-1', device: { id: 'd-1', hardwareId: 'hw-a', registeredAt: AT } });
    // The timeout it replaced is a fact too: the renderer derives `changes` from it.
    const timedOut = userTimedOut(user, LATER, 'again');
    expect(timedOut.data).toEqual({ userId: 'u-1', until: LATER, reason: 'again', before: AT + 3_600_000 });
    expect(timedOut.changes).toBeUndefined();
    const issuedBy = { type: 'owner', id: 'o-1' };
    expect(licenseFileIssued('app-1', user, { id: 'j-1', hardwareId: null, issuedAt: AT, expiresAt: LATER, issuedBy }).data).toEqual({
      userId: 'u-1',
      licenseFile: { id: 'j-1', hardwareId: null, issuedAt: AT, expiresAt: LATER, issuedBy },
    });
  });

  it("a variable's value is its length and SHA-256, in the facts and the changes", () => {
    const hello = { length: 5, sha256: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824' };
    const set = variableChanged('app-1', 'motd', null, { applicationId: 'app-1', name: 'motd', value: 'hello', isPublic: true });
    expect(set.data).toEqual({ scope: 'application', variable: { name: 'motd', value: hello, isPublic: true } });
    expect(set.changes).toEqual({ value: [null, hello], is_public: [null, true] });
    const gone = userVariableChanged(user, 'slot', { applicationId: 'app-1', userId: 'u-1', name: 'slot', value: 'hello', updatedAt: AT }, null);
    expect(gone.data).toEqual({ scope: 'user', userId: 'u-1', variable: null });
    expect(gone.changes).toEqual({ value: [hello, null] });
  });

  it('edits keep the record before and after; the renderer derives what changed', () => {
    const updated = announcementChanged('app-1', 'an-1', 'updated', announcement, { ...announcement, title: 'Newer' });
    expect(updated.data).toEqual({ change: 'updated', before: announcement, after: { ...announcement, title: 'Newer' } });
    expect(updated.target).toEqual({ type: 'announcement', id: 'an-1', label: 'Newer' });
    const renamed = applicationSettingsChanged(application, { ...application, name: 'Renamed' });
    expect(renamed.data).toEqual({
      before: { id: 'app-1', name: 'Test App', settings: application.settings, createdAt: AT },
      after: { id: 'app-1', name: 'Renamed', settings: application.settings, createdAt: AT },
    });
    const moved = webhookEndpointChanged('webhook.updated', { ...endpoint, url: 'https://hooks.example.com/b' }, endpoint);
    expect(moved.data['before']).toMatchObject({ url: 'https://hooks.example.com/a' });
    expect(moved.data['webhook']).toMatchObject({ url: 'https://hooks.example.com/b' });
  });

  it('no draft holds a secret of its records, and every draft is stored and read back as JSON unchanged', () => {
    const drafts: EventDraft[] = [
      userCreated(user, 'sign_up', AT),
      licenseActivated(license, user, adjustment, AT),
      licenseDeleted(license),
      membershipAdjusted(user, adjustment, AT),
      membershipExpiring(user, 7, AT),
      membershipExpired(user, AT, AT),
      trialStarted(user, { id: 'p-1', name: 'Trial' }, adjustment, AT),
      banCreated(ban),
      fileEvent('file.completed', file),
      applicationSettingsChanged(application, application),
      webhookEndpointChanged('webhook.created', endpoint),
      webhookEndpointChanged('webhook.updated', endpoint, endpoint),
    ];
    for (const draft of drafts) {
      const text = JSON.stringify(draft);
      for (const secret of SECRETS) expect(text, `${draft.action} holds ${secret}`).not.toContain(secret);
      expect(JSON.parse(JSON.stringify(draft.data))).toEqual(draft.data);
    }
    // The webhook endpoint's facts are the fields the console shows, no more.
    expect(Object.keys(webhookEndpointChanged('webhook.created', endpoint).data['webhook'] as object).sort()).toEqual([
      'createdAt',
      'description',
      'disabledReason',
      'enabled',
      'events',
      'failingSince',
      'id',
      'updatedAt',
      'url',
    ]);
  });
});
