// Refresh tokens (docs/machines.md, "Refresh tokens"): issued with a login's session, rotated by
// refreshSession, a reuse's revocation committed though the caller then refuses, and rollback.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Store } from '../../src/application/ports/store.js';
import type { Rotation } from '../../src/application/ports/refresh-token-store.js';
import type { RefreshTokenRecord } from '../../src/application/records.js';
import { SYSTEM } from '../../src/application/events/actor.js';
import type { ContractContext } from './store-contract.js';
import { domainError, HOUR_MS, makeSession, seedApp, seedUser, T0 } from './fixtures.js';

const HW = 'hw-1';
const DAY = 24 * HOUR_MS;

const makeToken = (applicationId: string, userId: string, familyId: string, sessionId: string, issuedAt = T0): RefreshTokenRecord => ({
  id: randomUUID(),
  applicationId,
  userId,
  familyId,
  hardwareId: HW,
  tokenDigest: `digest-${randomUUID()}`,
  sessionId,
  issuedAt,
  expiresAt: issuedAt + 30 * DAY,
  spentAt: null,
  revokedAt: null,
});

/** A user logged in with remember on HW (its device registered): the session and the family's first token. */
async function remembered(store: Store, over: { allowedSessions?: number } = {}) {
  const { app } = await seedApp(store);
  const user = await seedUser(store, app.id, { allowedSessions: over.allowedSessions ?? 1 });
  const familyId = randomUUID();
  const session = makeSession(app.id, user.id, { hardwareId: HW, refreshFamilyId: familyId });
  const token = makeToken(app.id, user.id, familyId, session.id);
  await store.openSession({ session, device: { hardwareId: HW, allowed: 2, newDeviceId: randomUUID() }, cap: 1, now: T0, refreshToken: token }, SYSTEM);
  return { app, user, familyId, session, token };
}

/** What a granted refresh at `now` writes. */
function rotationOf(applicationId: string, userId: string, familyId: string, now: number, cap = 1): Rotation {
  const session = makeSession(applicationId, userId, { hardwareId: HW, refreshFamilyId: familyId, createdAt: now, expiresAt: now + HOUR_MS });
  return { session, next: makeToken(applicationId, userId, familyId, session.id, now), cap, deviceAuth: true, floatingLease: now + HOUR_MS };
}

export function refreshTokenContract({ store, test, section, connect }: ContractContext): void {
  section('refresh tokens', () => {
    test('openSession stores the family first token with its session; only the digest finds it', async () => {
      const { token, session } = await remembered(store());
      expect(await store().findRefreshToken(token.tokenDigest)).toEqual(token);
      expect(await store().findRefreshToken('digest-unknown')).toBeNull();
      expect((await store().findSession(session.id))?.refreshFamilyId).toBe(token.familyId);
    });

    test('refreshSession rotates: the token is spent, the family session ends, the next token and session are stored', async () => {
      const { app, user, familyId, session, token } = await remembered(store());
      const now = T0 + 10 * 60_000;
      const rotation = rotationOf(app.id, user.id, familyId, now);
      const outcome = await store().refreshSession({ applicationId: app.id, tokenDigest: token.tokenDigest, hardwareId: HW, rotation, now }, SYSTEM);
      expect(outcome).toMatchObject({ kind: 'rotated', user: { id: user.id } });
      expect((await store().findRefreshToken(token.tokenDigest))?.spentAt).toBe(now);
      expect((await store().findSession(session.id))?.revokedAt).toBe(now);
      expect(await store().findSession(rotation.session.id)).toMatchObject({ revokedAt: null, refreshFamilyId: familyId });
      expect(await store().findRefreshToken(rotation.next.tokenDigest)).toMatchObject({ familyId, spentAt: null, sessionId: rotation.session.id });
    });

    test('a spent token again revokes the family, committed, with refresh.reused; a revoked one is invalid', async () => {
      const { app, user, familyId, token } = await remembered(store());
      const first = rotationOf(app.id, user.id, familyId, T0 + 1);
      await store().refreshSession({ applicationId: app.id, tokenDigest: token.tokenDigest, hardwareId: HW, rotation: first, now: T0 + 1 }, SYSTEM);
      const replay = rotationOf(app.id, user.id, familyId, T0 + 2);
      expect(await store().refreshSession({ applicationId: app.id, tokenDigest: token.tokenDigest, hardwareId: HW, rotation: replay, now: T0 + 2 }, SYSTEM)).toEqual({ kind: 'reused' });
      expect((await store().findSession(first.session.id))?.revokedAt).toBe(T0 + 2);
      expect((await store().findRefreshToken(first.next.tokenDigest))?.revokedAt).toBe(T0 + 2);
      expect(await store().findSession(replay.session.id)).toBeNull();
      const actions = (await store().listEvents(app.id, {}, { limit: 20 })).map((e) => e.action);
      expect(actions).toContain('refresh.reused');
      const late = rotationOf(app.id, user.id, familyId, T0 + 3);
      expect(await store().refreshSession({ applicationId: app.id, tokenDigest: first.next.tokenDigest, hardwareId: HW, rotation: late, now: T0 + 3 }, SYSTEM)).toEqual({ kind: 'invalid' });
    });

    test('another machine, another application, a dropped device: invalid, nothing written', async () => {
      const { app, user, familyId, token } = await remembered(store());
      const rotation = rotationOf(app.id, user.id, familyId, T0 + 1);
      const attempt = (over: { applicationId?: string; hardwareId?: string }) =>
        store().refreshSession({ applicationId: over.applicationId ?? app.id, tokenDigest: token.tokenDigest, hardwareId: over.hardwareId ?? HW, rotation, now: T0 + 1 }, SYSTEM);
      expect(await attempt({ hardwareId: 'hw-2' })).toEqual({ kind: 'invalid' });
      const other = await seedApp(store());
      expect(await attempt({ applicationId: other.app.id })).toEqual({ kind: 'invalid' });
      const [device] = (await store().getUserDetails(app.id, user.id))?.devices ?? [];
      await store().deleteDevice(app.id, user.id, device!.id, T0, SYSTEM);
      expect(await attempt({})).toEqual({ kind: 'invalid' });
      expect(await store().findSession(rotation.session.id)).toBeNull();
      expect((await store().findRefreshToken(token.tokenDigest))?.spentAt).toBeNull();
    });

    test('a refusal under the lock rolls back: the token stays unspent and the session live', async () => {
      const { app, user, familyId, session, token } = await remembered(store(), { allowedSessions: 2 });
      await store().openSession({ session: makeSession(app.id, user.id, { hardwareId: 'hw-9' }), device: null, cap: 2, now: T0 }, SYSTEM);
      const now = T0 + 1;
      const input = (cap: number) => ({ applicationId: app.id, tokenDigest: token.tokenDigest, hardwareId: HW, rotation: rotationOf(app.id, user.id, familyId, now, cap), now });
      // The other session fills a cap lowered to one once the family's session ended: refused.
      await domainError(store().refreshSession(input(1), SYSTEM), 'SESSION_LIMIT_REACHED');
      expect((await store().findRefreshToken(token.tokenDigest))?.spentAt).toBeNull();
      expect((await store().findSession(session.id))?.revokedAt).toBeNull();
      // A timeout (which ends the sessions itself) refuses too, and the token is still not spent.
      await store().setUserTimeout(app.id, user.id, { until: T0 + 60_000, reason: null }, T0, SYSTEM);
      await domainError(store().refreshSession(input(2), SYSTEM), 'TIMED_OUT');
      expect((await store().findRefreshToken(token.tokenDigest))?.spentAt).toBeNull();
      await store().setUserTimeout(app.id, user.id, null, T0, SYSTEM);
      expect(await store().refreshSession(input(2), SYSTEM)).toMatchObject({ kind: 'rotated' });
    });

    test('a password change, a device reset and the owner ending sessions revoke the user refresh tokens', async () => {
      const { app, user, token } = await remembered(store());
      expect(await store().replacePassword(app.id, user.id, '$argon2id$other', T0 + 1, SYSTEM)).toBe(true);
      expect((await store().findRefreshToken(token.tokenDigest))?.revokedAt).toBe(T0 + 1);
      const again = await remembered(store());
      await store().revokeUserSessions(again.app.id, again.user.id, T0 + 2, SYSTEM);
      expect((await store().findRefreshToken(again.token.tokenDigest))?.revokedAt).toBe(T0 + 2);
    });

    test('two connections refresh one token at once: one rotates, the other sees a reuse', async () => {
      const { app, user, familyId, token } = await remembered(store());
      const peer = await connect();
      const go = (s: Store, at: number) =>
        s.refreshSession({ applicationId: app.id, tokenDigest: token.tokenDigest, hardwareId: HW, rotation: rotationOf(app.id, user.id, familyId, at), now: at }, SYSTEM);
      const outcomes = (await Promise.all([go(store(), T0 + 1), go(peer, T0 + 1), go(store(), T0 + 1), go(peer, T0 + 1)])).map((o) => o.kind).sort();
      expect(outcomes).toEqual(['reused', 'reused', 'reused', 'rotated']);
    });
  });
}
