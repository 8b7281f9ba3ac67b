import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { identifyActor } from './request-actor.js';
import { lookupLicense } from '../../application/admin/lookup-license.js';
import { lookupUser } from '../../application/admin/lookup-user.js';
import { authenticateAdmin } from '../../application/authenticate-application.js';
import type { Deps } from '../../application/deps.js';
import { issueLicenseFileAsAdmin } from '../../application/license-files/issue-license-file.js';
import type { ApplicationRecord } from '../../application/records.js';
import { fileRoutes } from './files/file-routes.js';
import { bearer } from './request-parts.js';
import { HardwareId, LicenseCode, LicenseFileTtl, closed } from './schemas.js';
import { licenseFileJson, licenseLookupJson, userAdminJson } from './views.js';
import { answers } from './answers.js';
import { AdminUser, LicenseFile, LicenseLookup } from './wire-schemas.js';

const UsernameOrCode = Type.String({ minLength: 1, maxLength: 256 });

/** The application of an admin request (request-state.ts), set by the scope's onRequest hook. */
function applicationOf(request: FastifyRequest): ApplicationRecord {
  const app = request.adminApplication;
  // Only reachable if a route were registered outside the authenticated scope: a bug, not a 401.
  if (app === null) throw new Error('admin route reached without an authenticated application');
  return app;
}

/** The admin API (docs/api.md, API reference), under /api/admin: every route acts on the admin key's
 * application. The key is checked on request, before any parameter or body is looked at, so a
 * wrong key answers 401 whatever else is wrong. */
export const adminRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.addHook('onRequest', async (request) => {
    const application = await authenticateAdmin(deps, bearer(request));
    request.adminApplication = application;
    identifyActor(request, { type: 'admin_key', id: application.id });
  });

  app.get(
    '/user/:usernameOrCode',
    { schema: { params: Type.Object({ usernameOrCode: UsernameOrCode }, closed), response: answers({ 200: AdminUser }) }, config: { errors: ['USER_NOT_FOUND', 'LICENSE_HELD_BY_SEVERAL'] } },
    async (request) => userAdminJson(await lookupUser(deps, applicationOf(request), request.params.usernameOrCode), deps.clock.now()),
  );

  // An offline license file for an air-gapped machine (docs/api.md, Offline license files).
  app.post(
    '/license_files',
    {
      schema: {
        body: Type.Object({ username_or_license_code: UsernameOrCode, hardware_id: HardwareId, ttl_minutes: Type.Optional(LicenseFileTtl) }, closed),
        response: answers({ 201: LicenseFile }),
      },
      config: { errors: ['USER_NOT_FOUND', 'LICENSE_HELD_BY_SEVERAL', 'BANNED', 'TIMED_OUT', 'MEMBERSHIP_INACTIVE', 'DEVICE_LIMIT_REACHED'] },
    },
    async (request, reply) => {
      const { username_or_license_code, hardware_id, ttl_minutes } = request.body;
      const issued = await issueLicenseFileAsAdmin(deps, applicationOf(request), username_or_license_code, { hardwareId: hardware_id, ttlMinutes: ttl_minutes }, request.actor);
      return reply.code(201).send(licenseFileJson(issued));
    },
  );

  app.get('/license/:code', { schema: { params: Type.Object({ code: LicenseCode }, closed), response: answers({ 200: LicenseLookup }) }, config: { errors: ['LICENSE_NOT_FOUND'] } }, async (request) =>
    licenseLookupJson(await lookupLicense(deps, applicationOf(request), request.params.code)),
  );

  await app.register(fileRoutes, {
    deps,
    source: 'ADMIN_API',
    application: async (request) => applicationOf(request),
    mountParams: {},
  });
};
