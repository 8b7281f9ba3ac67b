import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { lookupUser } from '../../application/admin/lookup-user.js';
import { authenticateAdmin } from '../../application/authenticate-application.js';
import type { Deps } from '../../application/deps.js';
import { bearer } from './request-parts.js';
import { closed } from './schemas.js';
import { userAdminJson } from './views.js';

/** The admin API of interface.md, under /api/admin: every route acts on the admin key's application. */
export const adminRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.get(
    '/user/:usernameOrCode',
    { schema: { params: Type.Object({ usernameOrCode: Type.String({ minLength: 1, maxLength: 256 }) }, closed) } },
    async (request) => {
      const application = await authenticateAdmin(deps, bearer(request));
      return userAdminJson(await lookupUser(deps, application, request.params.usernameOrCode), deps.clock.now());
    },
  );
};
