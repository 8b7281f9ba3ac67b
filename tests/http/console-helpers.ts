// Shared set-up for the console API tests: a second owner, end users made through the integration API.
import { createOwner } from '../../src/application/console/owners.js';
import type { TestApp } from '../support/test-app.js';

export const bearerOf = (token: string) => ({ authorization: `Bearer ${token}` });

/** A second owner with their own console token. */
export async function otherOwnerToken(t: TestApp, email = 'other@example.com'): Promise<string> {
  return (await createOwner(t.deps, email, 'other-password-1')).token;
}

/** Signs a user up with a license code through the integration API; returns the user's id. */
export async function signUpWithCode(t: TestApp, headers: Record<string, string>, code: string, hardwareId = 'hw-1'): Promise<string> {
  const res = await t.inject({
    method: 'POST',
    url: '/api/integration/sign_up_with_license_code',
    headers,
    payload: { code, hardware_id: hardwareId },
  });
  if (res.statusCode !== 201) throw new Error(`sign up with code: ${res.statusCode} ${res.body}`);
  return res.json<{ id: string }>().id;
}

/** Signs a user up with a username and password; returns the user's id. */
export async function signUp(t: TestApp, headers: Record<string, string>, username: string, hardwareId = 'hw-1'): Promise<string> {
  const res = await t.inject({
    method: 'POST',
    url: '/api/integration/sign_up',
    headers,
    payload: { username, password: 'user-password-1', hardware_id: hardwareId },
  });
  if (res.statusCode !== 201) throw new Error(`sign up: ${res.statusCode} ${res.body}`);
  return res.json<{ id: string }>().id;
}

/** Logs a license-code user in; returns the raw response. */
export function loginWithCode(t: TestApp, headers: Record<string, string>, code: string, hardwareId = 'hw-1') {
  return t.inject({
    method: 'POST',
    url: '/api/integration/auth/login',
    headers,
    payload: { credentials: { code }, hardware_id: hardwareId },
  });
}

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const MISSING_ID = '00000000-0000-4000-8000-000000000000';

/** The Set-Cookie header of a response, as one string (undefined when none). */
export function setCookieOf(res: { headers: Record<string, unknown> }): string | undefined {
  const raw = res.headers['set-cookie'];
  return Array.isArray(raw) ? raw.join('\n') : (raw as string | undefined);
}

/** Signs in to a browser session; returns the Cookie header to send back and the CSRF token. */
export async function browserSignIn(t: TestApp, email = 'owner@example.com', password = 'owner-password-1') {
  const res = await t.inject({ method: 'POST', url: '/api/console/session', payload: { email, password } });
  if (res.statusCode !== 200) throw new Error(`browser sign-in: ${res.statusCode} ${res.body}`);
  const token = /gh_console=([^;]+)/.exec(setCookieOf(res) ?? '')?.[1];
  if (token === undefined) throw new Error('browser sign-in set no cookie');
  return { cookie: `gh_console=${token}`, token, csrf: res.json<{ csrf_token: string }>().csrf_token };
}
