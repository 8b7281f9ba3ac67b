import { afterEach, beforeEach, expect, it } from 'vitest';
import { unlockOwner } from '../../src/application/console/owners.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp({ limits: { lockoutThreshold: 5, ipFailureLimit: 1000 } });
});
afterEach(() => t.close());

const signIn = (password: string, ip = '10.40.0.1') => t.inject({ method: 'POST', url: '/api/console/login', payload: { email: 'owner@example.com', password }, remoteAddress: ip });

it('owner sign-in is throttled: parallel guesses lock the owner account after the threshold', async () => {
  const results = await Promise.all(Array.from({ length: 20 }, () => signIn('not the password')));
  const counts = results.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.statusCode]: (acc[r.statusCode] ?? 0) + 1 }), {});
  expect(counts).toEqual({ 401: 5, 429: 15 });
  expect(results.find((r) => r.statusCode === 429)?.json().error_code).toBe('ACCOUNT_LOCKED');
  // Locked for the right password too, until the lock ends.
  expect((await signIn('owner-password-1')).statusCode).toBe(429);
  t.clock.advance(61_000);
  expect((await signIn('owner-password-1')).statusCode).toBe(200);
});

it("an attacker's guesses from one address do not stop the owner signing in from another", async () => {
  for (let i = 0; i < 5; i++) expect((await signIn(`guess-${i}`, '203.0.113.66')).statusCode).toBe(401);
  expect((await signIn('owner-password-1', '203.0.113.66')).statusCode).toBe(429);
  expect((await signIn('owner-password-1', '10.40.0.2')).statusCode).toBe(200);
});

it('unlocking an owner (gatehouse owner unlock) lifts their locks at every address', async () => {
  for (let i = 0; i < 5; i++) await signIn(`guess-${i}`, '203.0.113.66');
  expect((await signIn('owner-password-1', '203.0.113.66')).statusCode).toBe(429);
  const owner = await t.store.findOwnerByEmail('owner@example.com');
  await unlockOwner(t.deps, owner!);
  expect((await signIn('owner-password-1', '203.0.113.66')).statusCode).toBe(200);
});

it('ten wrong passwords from each of eleven networks do not lock the owner out where they signed in before', async () => {
  await t.close();
  t = await startTestApp({ limits: { lockoutThreshold: 10, ipFailureLimit: 100, accountFailureLimit: 100 } });
  expect((await signIn('owner-password-1', '10.40.0.1')).statusCode).toBe(200);
  for (let n = 0; n < 11; n++) {
    for (let i = 0; i < 10; i++) expect([401, 429]).toContain((await signIn(`guess-${i}`, `100.${64 + n}.0.9`)).statusCode);
  }
  // A new address is held by the account-wide lock; the owner's own address is not.
  expect((await signIn('owner-password-1', '192.0.2.200')).statusCode).toBe(429);
  expect((await signIn('owner-password-1', '10.40.0.1')).statusCode).toBe(200);
});

it('addresses of one /24 share one allowance of guesses on the owner account', async () => {
  for (let i = 0; i < 5; i++) expect((await signIn(`guess-${i}`, `203.0.113.${i + 1}`)).statusCode).toBe(401);
  // The sixth neighbour is already locked out, before any password is checked.
  expect((await signIn('owner-password-1', '203.0.113.77')).statusCode).toBe(429);
  expect((await signIn('owner-password-1', '10.40.0.2')).statusCode).toBe(200);
});
