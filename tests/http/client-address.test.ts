import { Agent, request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createApplication, startTestApp, type TestApp } from '../support/test-app.js';
import { ban, call, expectError } from '../support/integration.js';
import { readTestAppThrottle } from '../support/throttle-counters.js';

let t: TestApp;
afterEach(() => t.close());

const spoofed = { 'x-forwarded-for': '10.50.0.1' };

it('X-Forwarded-For is ignored unless the request comes from a configured proxy', async () => {
  t = await startTestApp();
  const app = await createApplication(t, { anonymous_access: true });
  await ban(t, app, 'ip', '10.50.0.1');
  // A client cannot claim another address, neither to dodge a ban nor to frame one.
  expect((await call(t, app, 'GET', '/app_context', undefined, { headers: spoofed, ip: '10.60.0.1' })).statusCode).toBe(200);
  expectError(await call(t, app, 'GET', '/app_context', undefined, { ip: '10.50.0.1' }), 403, 'BANNED');
});

it('behind a configured proxy, the forwarded client address is the one checked and recorded', async () => {
  t = await startTestApp({ trustProxy: ['10.70.0.1'] });
  const app = await createApplication(t, { anonymous_access: true, device_auth: false });
  await ban(t, app, 'ip', '10.50.0.1');
  expectError(await call(t, app, 'GET', '/app_context', undefined, { headers: spoofed, ip: '10.70.0.1' }), 403, 'BANNED');
  const res = await call(t, app, 'POST', '/sign_up', { username: 'alice', password: 'password123' }, { headers: { 'x-forwarded-for': '10.80.0.9' }, ip: '10.70.0.1' });
  expect(res.statusCode).toBe(201);
  const user = await t.inject({ method: 'GET', url: `/api/admin/user/alice`, headers: { authorization: `Bearer ${app.credentials.admin_api_key}` } });
  expect(user.json().last_ip).toBe('10.80.0.9');
});

it('one connection from a trusted proxy carrying several clients: each request is checked as its own address', async () => {
  // A proxy reuses its connection for many clients: the address is each request's own
  // (request-parts.ts parses it once per request), never the connection's.
  t = await startTestApp({ trustProxy: ['127.0.0.1'] });
  const app = await createApplication(t, { anonymous_access: true });
  await ban(t, app, 'ip', '10.50.0.1');
  const base = new URL(await t.http.listen({ host: '127.0.0.1', port: 0 }));
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const sockets = new Set<unknown>();
  const get = (forwarded: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request({ host: base.hostname, port: base.port, path: '/api/integration/app_context', agent, headers: { ...app.headers, 'x-forwarded-for': forwarded } }, (res) => {
        sockets.add(res.socket);
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
  try {
    const statuses = [];
    for (const forwarded of ['10.50.0.1', '10.60.0.1', '10.50.0.1', '10.60.0.1', '::ffff:10.50.0.1']) statuses.push(await get(forwarded));
    expect(statuses).toEqual([403, 200, 403, 200, 403]);
    expect(sockets.size).toBe(1);
  } finally {
    agent.destroy();
  }
});

describe('one spelling per address, however it arrives', () => {
  const proxy = '10.70.0.1';
  const via = (forwarded: string) => ({ headers: { 'x-forwarded-for': forwarded }, ip: proxy });

  it('an IP ban in compressed form refuses the uncompressed and upper-case forms a trusted proxy forwards', async () => {
    t = await startTestApp({ trustProxy: [proxy] });
    const app = await createApplication(t, { anonymous_access: true });
    await ban(t, app, 'ip', '::1');
    await ban(t, app, 'ip', '2001:db8::7');
    for (const spelling of ['0:0:0:0:0:0:0:1', '0000:0000:0000:0000:0000:0000:0000:0001', '::0:1', '2001:0DB8:0000:0000:0000:0000:0000:0007', '2001:db8:0::0:7']) {
      expectError(await call(t, app, 'GET', '/app_context', undefined, via(spelling)), 403, 'BANNED');
    }
    expect((await call(t, app, 'GET', '/app_context', undefined, via('2001:db8::8'))).statusCode).toBe(200);
  });

  it('IPv4-mapped IPv6, in any spelling, matches a ban on the IPv4 address', async () => {
    t = await startTestApp({ trustProxy: [proxy] });
    const app = await createApplication(t, { anonymous_access: true });
    await ban(t, app, 'ip', '1.2.3.4');
    for (const spelling of ['::ffff:1.2.3.4', '::FFFF:1.2.3.4', '0:0:0:0:0:ffff:1.2.3.4', '::ffff:0102:0304', '0:0:0:0:0:FFFF:102:304']) {
      expectError(await call(t, app, 'GET', '/app_context', undefined, via(spelling)), 403, 'BANNED');
    }
    // Some proxies write the client's port too.
    expectError(await call(t, app, 'GET', '/app_context', undefined, via('1.2.3.4:5678')), 403, 'BANNED');
    expectError(await call(t, app, 'GET', '/app_context', undefined, via('[::ffff:1.2.3.4]:443')), 403, 'BANNED');
    // Straight from the socket too.
    expectError(await call(t, app, 'GET', '/app_context', undefined, { ip: '::ffff:1.2.3.4' }), 403, 'BANNED');
  });

  it('a forwarded address that is not an IP address is refused, and never becomes a throttle or ban key', async () => {
    t = await startTestApp({ trustProxy: [proxy] });
    const app = await createApplication(t, { anonymous_access: true, device_auth: false });
    for (const junk of ['not-an-ip', 'unknown', '1.2.3.400', '::g', '1.2.3.4.5', '01.2.3.4']) {
      expectError(await call(t, app, 'POST', '/auth/login', { credentials: { username: 'alice', password: 'wrong password' } }, via(junk)), 400, 'MALFORMED_REQUEST');
      expectError(await call(t, app, 'POST', '/sign_up', { username: 'alice', password: 'password123' }, via(junk)), 400, 'MALFORMED_REQUEST');
    }
    const throttle = await readTestAppThrottle(t, app.id, 'user:alice', 'not-an-ip');
    expect(throttle.ip).toBeNull();
    // Nobody signed up under a junk address.
    const user = await t.inject({ method: 'GET', url: '/api/admin/user/alice', headers: { authorization: `Bearer ${app.credentials.admin_api_key}` } });
    expect(user.statusCode).toBe(404);
  });
});
