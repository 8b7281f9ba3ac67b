import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { lookupLicense } from '../../application/admin/lookup-license.js';
import { lookupUser } from '../../application/admin/lookup-user.js';
import { authenticateAdmin } from '../../application/authenticate-application.js';
import type { Deps } from '../../application/deps.js';
import type { ApplicationRecord } from '../../application/records.js';
import { fileRoutes } from './files/file-routes.js';
import { bearer } from './request-parts.js';
import { LicenseCode, closed } from './schemas.js';
import { licenseLookupJson, userAdminJson } from './views.js';

// The application of each admin request, set by the scope's onRequest hook.
const applications = new WeakMap<FastifyRequest, ApplicationRecord>();

function applicationOf(request: FastifyRequest): ApplicationRecord {
  const app = applications.get(request);
  // Only reachable if a route were registered outside the authenticated scope: a bug, not a 401.
  if (app === undefined) throw new Error('admin route reached without an authenticated application');
  return app;
}

/**
 * The admin API (README, API reference), under /api/admin: every route acts on the admin key's
 * application. The key is checked on request, before any parameter or body is looked at, so a
 * wrong key answers 401 whatever else is wrong.
 */
export const adminRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.addHook('onRequest', async (request) => {
    applications.set(request, await authenticateAdmin(deps, bearer(request)));
  });

  app.get(
    '/user/:usernameOrCode',
    { schema: { params: Type.Object({ usernameOrCode: Type.String({ minLength: 1, maxLength: 256 }) }, closed) } },
    async (request) => userAdminJson(await lookupUser(deps, applicationOf(request), request.params.usernameOrCode), deps.clock.now()),
  );

  app.get('/license/:code', { schema: { params: Type.Object({ code: LicenseCode }, closed) } }, async (request) =>
    licenseLookupJson(await lookupLicense(deps, applicationOf(request), request.params.code)),
  );

  await app.register(fileRoutes, {
    deps,
    source: 'ADMIN_API',
    application: async (request) => applicationOf(request),
    mountParams: {},
  });
};
