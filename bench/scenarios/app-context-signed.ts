// Scenario 1b: what response signing costs app_context. Two applications on one server with the
// same content and as many members, one with response_signing on (the default) and one with it
// off, take the app_context load of scenario 1 in turns. Both loads send a fresh x-nonce on every
// request, as a client pinning the key does, so the only difference is the signature: the SHA-256
// of the body and one Ed25519 signature a key (docs/api.md, Response signing). The unsigned
// application is the ceiling.
import { alternate } from '../alternate.js';
import { integrationHeaders } from '../fixture.js';
import type { BenchContext } from '../profile.js';
import { startBenchServer } from '../bench-server.js';
import type { BenchRow } from '../report.js';
import { APP_CONTEXT_CONNECTIONS, APP_CONTEXT_PATH, loadAppContext, loadRows, setUpAppContext, type AppContextSetup } from './app-context.js';

/** One answer of the load, checked for what the side is meant to show; its body length. */
async function sampleBodyLength(setup: AppContextSetup, signed: boolean): Promise<number> {
  const response = await fetch(`${setup.server.baseUrl}${APP_CONTEXT_PATH}`, {
    headers: { ...integrationHeaders(setup.app), authorization: `Bearer ${setup.tokens[0]}`, 'x-nonce': 'bench-sample-nonce-0001' },
  });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`app_context answered ${response.status}: ${body}`);
  if (response.headers.has('x-signature') !== signed) throw new Error(`the ${signed ? 'signed' : 'unsigned'} application's answer ${signed ? 'lacks' : 'carries'} x-signature`);
  return body.length;
}

export async function appContextSignedScenario(ctx: BenchContext): Promise<BenchRow[]> {
  const { profile } = ctx;
  const server = await startBenchServer(ctx);
  try {
    const signed = await setUpAppContext(server, profile.contextMembers, 'app-context-signed', { signed: true });
    const unsigned = await setUpAppContext(server, profile.contextMembers, 'app-context-unsigned', { signed: false });
    const lengths = [await sampleBodyLength(signed, true), await sampleBodyLength(unsigned, false)];
    ctx.log(`app_context_signed: ${lengths.join(' and ')} bytes a response (signed, unsigned); ${APP_CONTEXT_CONNECTIONS} connections`);

    const load = (setup: AppContextSetup, seconds: number) => loadAppContext(setup, seconds, { nonces: true });
    await load(signed, profile.warmupSeconds);
    await load(unsigned, profile.warmupSeconds);
    const runs = await alternate(
      profile.rounds,
      () => load(signed, profile.seconds),
      () => load(unsigned, profile.seconds),
    );
    return loadRows('app_context_signed', ctx.backendName, runs.a, runs.b, 0.75, 'requests_per_s');
  } finally {
    await server.stop();
  }
}
