import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { identifyActor } from '../request-actor.js';
import { authenticateConsoleRequest } from '../../../application/console/browser-sessions.js';
import { ownerExistence } from '../../../application/console/owner-existence.js';
import { loginOwner, revokeConsoleToken } from '../../../application/console/owners.js';
import type { Deps } from '../../../application/deps.js';
import { callerOf } from '../request-parts.js';
import { takesNoBody, Uuid } from '../schemas.js';
import { applicationRoutes } from './application-routes.js';
import { auditRoutes } from './audit-routes.js';
import { banRoutes } from './ban-routes.js';
import { consoleCallerOf, ownerOf, setConsoleCaller, SignInBody } from './console-schemas.js';
import type { SessionCookies } from './session-cookie.js';
import { browserSessionRoutes, browserSignInRoute } from './session-routes.js';
import { ownedApplication } from '../../../application/console/applications.js';
import { fileRoutes } from '../files/file-routes.js';
import { contentRoutes } from './content-routes.js';
import { licenseRoutes } from './license-routes.js';
import { planRoutes } from './plan-routes.js';
import { consoleTokenRoutes } from './token-routes.js';
import { userRoutes } from './user-routes.js';
import { webhookRoutes } from './webhook-routes.js';
import { answers } from '../answers.js';
import { ConsoleSetup, NoBody, OwnerLogin } from '../wire-schemas.js';

/** The owner console API (docs/api.md, API reference, "Console API"), under /api/console. */
export const consoleRoutes: FastifyPluginAsyncTypebox<{ deps: Deps; cookies: SessionCookies }> = async (app, { deps, cookies }) => {
  app.post('/login', { schema: { body: SignInBody, response: answers({ 200: OwnerLogin }) }, config: { errors: ['INVALID_CREDENTIALS', 'ACCOUNT_LOCKED', 'PASSWORD_QUEUE_FULL'] } }, async (request) =>
    loginOwner(deps, request.body.email, request.body.password, callerOf(request), request.actor),
  );
  await app.register(browserSignInRoute, { deps, cookies });

  // Open, for the signed-out dashboard: whether there is an owner to sign in as.
  const ownerExists = ownerExistence(deps);
  app.get('/setup', { schema: { response: answers({ 200: ConsoleSetup }) } }, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return { owner_exists: await ownerExists() };
  });

  // Everything else needs a console token, from a Bearer header or the dashboard's cookie (with
  // its CSRF proof). The hook lives in its own scope so the sign-in routes stay open, and runs on
  // request: an unauthenticated body is never parsed or validated.
  await app.register(async (authed) => {
    authed.addHook('onRequest', async (request) => {
      const caller = await authenticateConsoleRequest(deps, cookies.consoleRequestOf(request));
      setConsoleCaller(request, caller);
      identifyActor(request, { type: 'owner', id: caller.owner.id });
    });

    authed.post('/logout', { ...takesNoBody, schema: { response: answers({ 204: NoBody }) } }, async (request, reply) => {
      await revokeConsoleToken(deps, consoleCallerOf(request).token);
      return reply.code(204).send();
    });

    await authed.register(browserSessionRoutes, { deps, cookies });
    await authed.register(consoleTokenRoutes, { deps });
    await authed.register(applicationRoutes, { deps });
    await authed.register(licenseRoutes, { deps });
    await authed.register(planRoutes, { deps });
    await authed.register(contentRoutes, { deps });
    await authed.register(userRoutes, { deps });
    await authed.register(banRoutes, { deps });
    await authed.register(webhookRoutes, { deps });
    await authed.register(auditRoutes, { deps });
    // The dashboard's uploads: the admin file endpoints, per application, recorded as DASHBOARD.
    await authed.register(fileRoutes, {
      prefix: '/applications/:app_id',
      deps,
      source: 'DASHBOARD',
      application: (request) => ownedApplication(deps, ownerOf(request), (request.params as { app_id: string }).app_id),
      mountParams: { app_id: Uuid },
    });
  });
};
