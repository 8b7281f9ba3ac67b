import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createLicenses, deleteLicense, getLicense, listLicenses } from '../../../application/console/licenses.js';
import type { Deps } from '../../../application/deps.js';
import { LicenseCode, Uuid, closed } from '../schemas.js';
import { licenseJson } from '../views.js';
import { AppParams, MINUTES_MAX, ownerOf } from './console-schemas.js';
import { answers } from '../answers.js';
import { IssuedLicenses, License, NoBody } from '../wire-schemas.js';

// minutes is required: null says "lifetime" explicitly, so a forgotten field never mints lifetime
// licenses. Positivity is the domain's rule (validateLicenseMinutes).
const CreateBody = Type.Object(
  {
    count: Type.Integer({ minimum: 1, maximum: 10_000 }),
    minutes: Type.Union([Type.Integer({ maximum: MINUTES_MAX }), Type.Null()]),
    note: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
  },
  closed,
);

const CodeParams = Type.Object({ app_id: Uuid, code: LicenseCode }, closed);

export const licenseRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.post(
    '/applications/:app_id/licenses',
    { schema: { params: AppParams, body: CreateBody, response: answers({ 201: IssuedLicenses }) }, config: { errors: ['APPLICATION_NOT_FOUND'] } },
    async (request, reply) => {
      const issued = await createLicenses(deps, ownerOf(request), request.params.app_id, request.body, request.actor);
      return reply.code(201).send({ licenses: issued.map(({ license, code }) => licenseJson(license, code)) });
    },
  );

  app.get(
    '/applications/:app_id/licenses',
    {
      schema: {
        params: AppParams,
        querystring: Type.Object({ status: Type.Optional(Type.Enum(['used', 'unused'])) }, closed),
        response: answers({ 200: Type.Array(License) }),
      },
      config: { errors: ['APPLICATION_NOT_FOUND'] },
    },
    async (request) => {
      const all = await listLicenses(deps, ownerOf(request), request.params.app_id, request.query.status);
      return all.map(({ license, code }) => licenseJson(license, code));
    },
  );

  app.get(
    '/applications/:app_id/licenses/:code',
    { schema: { params: CodeParams, response: answers({ 200: License }) }, config: { errors: ['APPLICATION_NOT_FOUND', 'LICENSE_NOT_FOUND'] } },
    async (request) => {
      const { license, code } = await getLicense(deps, ownerOf(request), request.params.app_id, request.params.code);
      return licenseJson(license, code);
    },
  );

  app.delete(
    '/applications/:app_id/licenses/:code',
    { schema: { params: CodeParams, response: answers({ 204: NoBody }) }, config: { errors: ['APPLICATION_NOT_FOUND', 'LICENSE_NOT_FOUND', 'LICENSE_CONSUMED'] } },
    async (request, reply) => {
      await deleteLicense(deps, ownerOf(request), request.params.app_id, request.params.code, request.actor);
      return reply.code(204).send();
    },
  );
};
