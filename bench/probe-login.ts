// Temporary probe (not committed): one login's statements on PostgreSQL.
import { createBenchApp, createMembers, integrationHeaders, loginBody } from './fixture.js';
import { startServer } from './server-process.js';
const url = process.env['PROBE_URL']!;
const server = await startServer({ env: { DATABASE_URL: url } });
try {
  const app = await createBenchApp(server, 'probe');
  const [m] = await createMembers(server, app, 'login', 1);
  const headers = { ...integrationHeaders(app), 'content-type': 'application/json' };
  for (let i = 0; i < 3; i++) await fetch(`${server.baseUrl}/api/integration/auth/login`, { method: 'POST', headers, body: JSON.stringify(loginBody(m!)) });
  console.log('MARK-START');
  await fetch(`${server.baseUrl}/api/integration/auth/login`, { method: 'POST', headers, body: JSON.stringify(loginBody(m!)) });
  await new Promise((r) => setTimeout(r, 200));
  const res = await fetch(`${server.baseUrl}/api/integration/auth/login`, { method: 'POST', headers, body: JSON.stringify(loginBody(m!)) });
  const tok = ((await res.json()) as { session_token: string }).session_token;
  await new Promise((r) => setTimeout(r, 200));
  await fetch(`${server.baseUrl}/api/integration/app_context`, { headers: { ...integrationHeaders(app), authorization: `Bearer ${tok}` } });
} finally {
  await server.stop();
}
