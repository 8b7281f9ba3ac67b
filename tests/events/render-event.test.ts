// The events adapter's renderer (adapters/events/render-event.ts): a stored event's facts in, the
// exact wire `data` and `changes` out (docs/events.md, Events), the same at any time of rendering;
// a row stored rendered before facts (data_form 'rendered') shows as stored.
import { describe, expect, it } from 'vitest';
import { renderEvent } from '../../src/adapters/events/render-event.js';
import { announcementChanged, applicationSettingsChanged, fileEvent, variableChanged, webhookEndpointChanged } from '../../src/application/events/content-facts.js';
import type { EventDraft } from '../../src/application/events/event-draft.js';
import {
  banCreated,
  deviceRemoved,
  licenseActivated,
  membershipAdjusted,
  membershipExpired,
  membershipExpiring,
  membershipPlanChanged,
  sessionCreated,
  trialStarted,
  userCreated,
  userTimedOut,
  userTimeoutLifted,
} from '../../src/application/events/event-facts.js';
import { deviceLimitReached } from '../../src/application/events/refusals.js';
import type { RenderedEvent } from '../../src/application/ports/event-renderer.js';
import { adjustment, announcement, application, AT, ban, device, endpoint, file, license, user } from '../support/event-records.js';

const ISO = '2026-06-08T12:00:00.000Z';
const LATER = AT + 7_200_000;

/** The draft as the store writes it and reads it back (JSON), rendered at `occurredAt`. */
function rendered(draft: EventDraft, occurredAt = AT): RenderedEvent {
  const stored = JSON.parse(JSON.stringify({ data: draft.data, changes: draft.changes ?? null })) as RenderedEvent;
  return renderEvent({ action: draft.action, occurredAt, dataForm: 'facts', ...stored });
}

/** The wire text, keys in the views' order. */
const text = (r: RenderedEvent) => JSON.stringify(r);

describe('rendering an event', () => {
  it('user.created: the user as the API shows them, their membership as of the change', () => {
    expect(text(rendered(userCreated(user, 'sign_up', AT)))).toBe(
      JSON.stringify({
        data: { user: { id: 'u-1', username: 'alice', membership: { is_active: true, is_lifetime: false, active_until: '2026-06-08T13:00:00.000Z' } }, source: 'sign_up' },
        changes: null,
      }),
    );
    // Made two hours later, the same membership had already run out: the facts keep that instant.
    expect(rendered(userCreated(user, 'sign_up', LATER)).data).toMatchObject({ user: { membership: { is_active: false } } });
  });

  it('is deterministic: the time of rendering and of the row change nothing', () => {
    const draft = membershipAdjusted(user, adjustment, AT);
    expect(rendered(draft, AT)).toEqual(rendered(draft, LATER + 1_000_000_000));
  });

  it('license.activated: the license without its code, the user and the adjustment', () => {
    expect(text(rendered(licenseActivated(license, user, adjustment, AT)))).toBe(
      JSON.stringify({
        data: {
          license: { id: 'l-1', minutes: 60, note: null, created_at: ISO, used_at: ISO, used_by_user_id: 'u-1', banned: false, plan_id: null, seats: 1, redemptions: 0 },
          user: { id: 'u-1', username: 'alice', membership: { is_active: true, is_lifetime: false, active_until: '2026-06-08T13:00:00.000Z' } },
          adjustment: {
            id: 'adj-1',
            type: 'license',
            occurred_at: ISO,
            minutes: 60,
            grants_lifetime_access: false,
            revokes_lifetime_access: false,
            license_id: 'l-1',
            reason: null,
            plan_from: null,
            plan_to: null,
          },
        },
        changes: null,
      }),
    );
  });

  it('license.activated stored before plans: a minutes license of one seat, used once; an adjustment that kept its plan', () => {
    const data = {
      license: { id: 'l-1', minutes: 60, note: null, createdAt: AT, usedAt: AT, usedByUserId: 'u-1', banned: false },
      user: { id: 'u-1', username: 'alice', membership: user.membership },
      adjustment: { id: 'adj-1', applicationId: 'app-1', userId: 'u-1', type: 'license', occurredAt: AT, minutes: 60, grantsLifetime: false, revokesLifetime: false, licenseId: 'l-1', reason: null },
      at: AT,
    };
    const shown = renderEvent({ action: 'license.activated', occurredAt: AT, dataForm: 'facts', data, changes: null }).data;
    expect(shown).toMatchObject({ license: { plan_id: null, seats: 1, redemptions: 1 }, adjustment: { plan_from: null, plan_to: null } });
  });

  it('membership.plan_changed: the user, both plans and the adjustment', () => {
    const switched = { ...adjustment, planFrom: 'p-basic', planTo: 'p-pro' };
    expect(text(rendered(membershipPlanChanged(user, switched, AT)))).toBe(
      JSON.stringify({
        data: {
          user: { id: 'u-1', username: 'alice', membership: { is_active: true, is_lifetime: false, active_until: '2026-06-08T13:00:00.000Z' } },
          plan_from: 'p-basic',
          plan_to: 'p-pro',
          adjustment: {
            id: 'adj-1',
            type: 'license',
            occurred_at: ISO,
            minutes: 60,
            grants_lifetime_access: false,
            revokes_lifetime_access: false,
            license_id: 'l-1',
            reason: null,
            plan_from: 'p-basic',
            plan_to: 'p-pro',
          },
        },
        changes: null,
      }),
    );
  });

  it('trial.started: the user as of the grant, the plan, the adjustment as the API shows it', () => {
    const trial = { ...adjustment, type: 'trial' as const, licenseId: null, planTo: 'p-1' };
    expect(text(rendered(trialStarted(user, { id: 'p-1', name: 'Trial' }, trial, AT)))).toBe(
      JSON.stringify({
        data: {
          user: { id: 'u-1', username: 'alice', membership: { is_active: true, is_lifetime: false, active_until: '2026-06-08T13:00:00.000Z' } },
          plan: { id: 'p-1', name: 'Trial' },
          adjustment: {
            id: 'adj-1',
            type: 'trial',
            occurred_at: ISO,
            minutes: 60,
            grants_lifetime_access: false,
            revokes_lifetime_access: false,
            license_id: null,
            reason: null,
            plan_from: null,
            plan_to: 'p-1',
          },
        },
        changes: null,
      }),
    );
  });

  it('membership.expiring and membership.expired: the user as of the notice, ISO instants, whole days remaining', () => {
    expect(text(rendered(membershipExpiring(user, 7, AT)))).toBe(
      JSON.stringify({
        data: {
          user: { id: 'u-1', username: 'alice', membership: { is_active: true, is_lifetime: false, active_until: '2026-06-08T13:00:00.000Z' } },
          active_until: '2026-06-08T13:00:00.000Z',
          days_remaining: 1,
          notice_days: 7,
        },
        changes: null,
      }),
    );
    expect(text(rendered(membershipExpired(user, AT + 3_600_000, LATER)))).toBe(
      JSON.stringify({
        data: {
          user: { id: 'u-1', username: 'alice', membership: { is_active: false, is_lifetime: false, active_until: '2026-06-08T13:00:00.000Z' } },
          active_until: '2026-06-08T13:00:00.000Z',
          access_ended_at: '2026-06-08T13:00:00.000Z',
        },
        changes: null,
      }),
    );
  });

  it('sessions, devices, bans and timeouts: ISO instants, and the changes of a timeout', () => {
    expect(rendered(sessionCreated(user, { id: 's-1', hardwareId: 'hw-b', expiresAt: AT + 300_000 }))).toEqual({
      data: { user_id: 'u-1', session: { id: 's-1', hardware_id: 'hw-b', expires_at: '2026-06-08T12:05:00.000Z' } },
      changes: null,
    });
    expect(rendered(deviceRemoved('app-1', user, device, 'owner')).data).toEqual({ user_id: 'u-1', device: { id: 'd-1', hardware_id: 'hw-a', registered_at: ISO }, reason: 'owner' });
    expect(text(rendered(banCreated(ban)))).toBe(
      JSON.stringify({
        data: { ban: { id: 'b-1', type: 'ip', value: '203.0.113.9', reason: 'abuse', created_at: ISO, propagated_from: null, expires_at: null }, propagated_from: null },
        changes: null,
      }),
    );
    expect(rendered(userTimedOut({ ...user, timeout: null }, AT + 3_600_000, 'cool off'))).toEqual({
      data: { user_id: 'u-1', timed_out_until: '2026-06-08T13:00:00.000Z', reason: 'cool off' },
      changes: { timed_out_until: [null, '2026-06-08T13:00:00.000Z'] },
    });
    expect(rendered(userTimeoutLifted(user))).toEqual({ data: { user_id: 'u-1' }, changes: { timed_out_until: ['2026-06-08T13:00:00.000Z', null] } });
  });

  it('files, variables and announcements as the API shows them, with the changes derived', () => {
    expect(rendered(fileEvent('file.completed', file)).data).toEqual({
      file: {
        id: 'f-1',
        application_id: 'app-1',
        name: 'build.bin',
        is_public: false,
        processing_status: 'COMPLETED',
        storage_status: 'STORED',
        mime_type: 'application/octet-stream',
        size_bytes: 7,
        storage_path: 'files/app-1/f-1-1',
        original_filename: 'build.bin',
        store_encrypted: false,
        source: 'ADMIN_API',
        created_at: ISO,
        sha256: 'ab'.repeat(32),
        processing_error: null,
        updated_at: ISO,
      },
    });
    const hello = { length: 5, sha256: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824' };
    expect(text(rendered(variableChanged('app-1', 'motd', null, { applicationId: 'app-1', name: 'motd', value: 'hello', isPublic: true })))).toBe(
      JSON.stringify({ data: { scope: 'application', variable: { name: 'motd', value: hello, is_public: true }, deleted: false }, changes: { value: [null, hello], is_public: [null, true] } }),
    );
    const created = rendered(announcementChanged('app-1', 'an-1', 'created', null, announcement));
    const shown = { id: 'an-1', title: 'News', content_html: '<p>hi</p>', publish_from: ISO, publish_until: null, status: 'DRAFT', publication_date: '2026-06-08' };
    expect(created.data).toEqual({ change: 'created', announcement: shown });
    expect(created.changes).toEqual({
      id: [null, 'an-1'],
      title: [null, 'News'],
      content_html: [null, '<p>hi</p>'],
      publish_from: [null, ISO],
      status: [null, 'DRAFT'],
      publication_date: [null, '2026-06-08'],
    });
    const deleted = rendered(announcementChanged('app-1', 'an-1', 'deleted', announcement, null));
    expect(deleted.data).toEqual({ change: 'deleted', announcement: shown });
  });

  it('the application without its keys, and only the settings that differ', () => {
    const after = { ...application, name: 'Renamed', settings: { ...application.settings, sessionTtlSeconds: 7200 } };
    const r = rendered(applicationSettingsChanged(application, after));
    expect(r.changes).toEqual({ name: ['Test App', 'Renamed'], session_ttl_seconds: [300, 7200] });
    expect(r.data['application']).toMatchObject({ id: 'app-1', name: 'Renamed', session_ttl_seconds: 7200, created_at: ISO });
    expect(JSON.stringify(r)).not.toMatch(/api_key|signing_public_key|key_id/);
  });

  it("webhook endpoints as the console shows them; an update's changes name what it changed", () => {
    const created = rendered(webhookEndpointChanged('webhook.created', endpoint));
    expect(created).toEqual({
      data: {
        webhook: {
          id: 'w-1',
          url: 'https://hooks.example.com/a',
          events: ['user.created'],
          description: null,
          enabled: true,
          failing_since: null,
          disabled_reason: null,
          created_at: ISO,
          updated_at: ISO,
        },
      },
      changes: null,
    });
    const updated = rendered(webhookEndpointChanged('webhook.updated', { ...endpoint, enabled: false }, endpoint));
    expect(updated.changes).toEqual({ enabled: [true, false] });
    expect(rendered(webhookEndpointChanged('webhook.updated', endpoint, endpoint)).changes).toEqual({});
  });

  it('an action whose facts are its data (refusals, audit-only entries) shows them as stored', () => {
    const refused = deviceLimitReached('app-1', user, 'hw-2');
    expect(rendered(refused)).toEqual({ data: { user_id: 'u-1', hardware_id: 'hw-2' }, changes: null });
    const pruned = { through_seq: 2, through_hash: 'ab'.repeat(32), removed: 2, before: ISO };
    expect(renderEvent({ action: 'audit.pruned', occurredAt: AT, dataForm: 'facts', data: pruned, changes: null })).toEqual({ data: pruned, changes: null });
  });

  it('a row stored rendered, before facts, shows exactly as stored, whatever its action', () => {
    const old = {
      data: { user: { id: 'u-1', username: 'alice', membership: { is_active: false, is_lifetime: false, active_until: null } }, source: 'sign_up' },
      changes: { timed_out_until: [null, ISO] as [unknown, unknown] },
    };
    const shown = renderEvent({ action: 'user.created', occurredAt: AT, dataForm: 'rendered', ...old });
    expect(shown).toEqual(old);
    expect(renderEvent({ action: 'ban.created', occurredAt: AT, dataForm: 'rendered', data: { legacy: true }, changes: null })).toEqual({ data: { legacy: true }, changes: null });
  });
});
