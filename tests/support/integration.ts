// Shorthands for driving the integration API the way a client application does.
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { createLicenses, type TestApp } from './test-app.js';

export interface TestApplication {
  id: string;
  headers: Record<string, string>;
}

export interface CallOptions {
  headers?: Record<string, string>;
  ip?: string;
}

export function call(t: TestApp, app: TestApplication, method: 'GET' | 'POST' | 'DELETE', path: string, payload?: unknown, options: CallOptions = {}): Promise<LightMyRequestResponse> {
  return t.inject({
    method,
    url: `/api/integration${path}`,
    headers: { ...app.headers, ...options.headers },
    ...(payload === undefined ? {} : { payload: payload as object }),
    ...(options.ip ? { remoteAddress: options.ip } : {}),
  });
}

export async function signUp(t: TestApp, app: TestApplication, username: string, password: string, extra: Record<string, unknown> = {}, options: CallOptions = {}) {
  const res = await call(t, app, 'POST', '/sign_up', { username, password, ...extra }, options);
  if (res.statusCode !== 201) throw new Error(`sign_up: ${res.statusCode} ${res.body}`);
  return res.json<{ id: string; username: string }>();
}

/** A username-and-password user with `minutes` of membership (null: lifetime). */
export async function member(t: TestApp, app: TestApplication, username: string, password = 'correct horse battery', minutes: number | null = 60, extra: Record<string, unknown> = {}) {
  const user = await signUp(t, app, username, password, extra);
  const [code] = await createLicenses(t, app.id, 1, minutes);
  const res = await call(t, app, 'POST', '/activate_license', { code, username, password, ...extra });
  if (res.statusCode !== 200) throw new Error(`activate_license: ${res.statusCode} ${res.body}`);
  return { ...user, password, code: code as string };
}

export async function login(t: TestApp, app: TestApplication, credentials: Record<string, string>, extra: Record<string, unknown> = {}, options: CallOptions = {}) {
  return call(t, app, 'POST', '/auth/login', { credentials, ...extra }, options);
}

export async function token(t: TestApp, app: TestApplication, credentials: Record<string, string>, extra: Record<string, unknown> = {}) {
  const res = await login(t, app, credentials, extra);
  if (res.statusCode !== 200) throw new Error(`login: ${res.statusCode} ${res.body}`);
  return res.json<{ session_token: string }>().session_token;
}

export const bearer = (tok: string) => ({ authorization: `Bearer ${tok}` });

/** Asserts the status and error body of decisions.md. */
export function expectError(res: LightMyRequestResponse, status: number, code: string) {
  const body = res.json<{ error_code: string; message: string; detail: string }>();
  expect({ status: res.statusCode, code: body.error_code }, res.body).toEqual({ status, code });
  expect(typeof body.message).toBe('string');
  expect(body.detail).toBe(body.message);
  return body;
}

/** Bans an identifier through the console API. */
export async function ban(t: TestApp, app: TestApplication, type: string, value: string) {
  const res = await t.inject({
    method: 'POST',
    url: `/api/console/applications/${app.id}/bans`,
    headers: { authorization: `Bearer ${t.ownerToken}` },
    payload: { type, value },
  });
  if (res.statusCode !== 201) throw new Error(`ban: ${res.statusCode} ${res.body}`);
  return res.json<{ id: string }>();
}

export async function bans(t: TestApp, app: TestApplication) {
  const res = await t.inject({ method: 'GET', url: `/api/console/applications/${app.id}/bans`, headers: { authorization: `Bearer ${t.ownerToken}` } });
  return res.json<Array<{ type: string; value: string }>>();
}
