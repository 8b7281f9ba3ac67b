// Ceiling of the app_context and heartbeat scenarios: a bare Fastify route, in a process of its own
// like the server's, answering <BENCH_METHOD> (GET by default) <BENCH_ROUTE> with the JSON body in
// BENCH_BODY_FILE: no authentication, no database, nothing but Fastify and the same object's serialisation.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const route = process.env['BENCH_ROUTE'] ?? '/';
const body = JSON.parse(readFileSync(process.env['BENCH_BODY_FILE'] ?? '', 'utf8')) as unknown;

const method = process.env['BENCH_METHOD'] === 'POST' ? 'POST' : 'GET';

const app = Fastify({ logger: false });
app.route({ method, url: route, handler: async () => body });
const address = await app.listen({ host: '127.0.0.1', port: 0 });
console.log(`ceiling listening on ${address}`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
