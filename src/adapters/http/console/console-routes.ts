import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { authenticateConsole, loginOwner, logoutOwner } from '../../../application/console/owners.js';
import type { Deps } from '../../../application/deps.js';
import { bearer, callerOf } from '../request-parts.js';
import { Password, closed, takesNoBody, Uuid } from '../schemas.js';
import { applicationRoutes } from './application-routes.js';
import { banRoutes } from './ban-routes.js';
import { ownerOf, setOwner } from './console-schemas.js';
import { ownedApplication } from '../../../application/console/applications.js';
import { fileRoutes } from '../files/file-routes.js';
import { contentRoutes } from './content-routes.js';
import { licenseRoutes } from './license-routes.js';
import { userRoutes } from './user-routes.js';

/** The owner console API of console-api.md, under /api/console. */
export const consoleRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.post(
    '/login',
    { schema: { body: Type.Object({ email: Type.String({ minLength: 1, maxLength: 320 }), password: Password }, closed) } },
    async (request) => loginOwner(deps, request.body.email, request.body.password, callerOf(request)),
  );

  // Everything else needs a console token. The hook lives in its own scope so /login stays open,
  // and runs on request: an unauthenticated body is never parsed or validated.
  await app.register(async (authed) => {
    authed.addHook('onRequest', async (request) => {
      setOwner(request, await authenticateConsole(deps, bearer(request)));
    });

    authed.post('/logout', takesNoBody, async (request, reply) => {
      await logoutOwner(deps, bearer(request));
      return reply.code(204).send();
    });

    await authed.register(applicationRoutes, { deps });
    await authed.register(licenseRoutes, { deps });
    await authed.register(contentRoutes, { deps });
    await authed.register(userRoutes, { deps });
    await authed.register(banRoutes, { deps });
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
