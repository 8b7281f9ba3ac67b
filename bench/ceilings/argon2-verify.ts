// Ceiling of the login scenario: raw argon2id verify throughput with the server's parameters,
// through @node-rs/argon2 on libuv's thread pool of the same size (UV_THREADPOOL_SIZE is passed
// the same way), keeping BENCH_IN_FLIGHT verifications in flight for BENCH_SECONDS.
// Prints one JSON line: {verifications, seconds, perSecond}.
import { hash, verify } from '@node-rs/argon2';
import { defaultArgon2Parameters } from '../../src/adapters/crypto/argon2-hasher.js';

const ARGON2ID = 2;
const seconds = Number(process.env['BENCH_SECONDS'] ?? '5');
const inFlight = Number(process.env['BENCH_IN_FLIGHT'] ?? '16');
const password = 'correct horse battery staple';
const stored = await hash(password, { ...defaultArgon2Parameters, algorithm: ARGON2ID });

// A short warm-up, as the server's first logins are not measured either.
await Promise.all(Array.from({ length: inFlight }, () => verify(stored, password)));

let verifications = 0;
const started = performance.now();
const deadline = started + seconds * 1000;
async function lane(): Promise<void> {
  while (performance.now() < deadline) {
    if (!(await verify(stored, password))) throw new Error('verification failed');
    verifications += 1;
  }
}
await Promise.all(Array.from({ length: inFlight }, lane));
const elapsed = (performance.now() - started) / 1000;
console.log(JSON.stringify({ verifications, seconds: elapsed, perSecond: verifications / elapsed }));
