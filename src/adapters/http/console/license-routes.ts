import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createLicenses, deleteLicense, getLicense, listLicenses, listRedemptions, releaseSeat } from '../../../application/console/licenses.js';
import type { Deps } from '../../../application/deps.js';
import { LicenseCode, Uuid, closed } from '../schemas.js';
import { licenseJson, licenseRedemptionJson } from '../views.js';
import { AppParams, MINUTES_MAX, ownerOf } from './console-schemas.js';
import { answers } from '../answers.js';
import { IssuedLicenses, License, LicenseRedemption, NoBody } from '../wire-schemas.js';

// Exactly one of minutes and plan_id (the domain's licenseTerms): null minutes says "lifetime"
// explicitly, so a forgotten field never mints lifetime licenses. Positivity is the domain's rule.
const CreateBody = Type.Object(
  {
    count: Type.Integer({ minimum: 1, maximum: 10_000 }),
    minutes: Type.Optional(Type.Union([Type.Integer({ maximum: MINUTES_MAX }), Type.Null()])),
    plan_id: Type.Optional(Uuid),
    note: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
  },
  closed,
);

const CodeParams = Type.Object({ app_id: Uuid, code: LicenseCode }, closed);
const LicenseParams = Type.Object({ app_id: Uuid, license_id: Uuid }, closed);
const SeatParams = Type.Object({ app_id: Uuid, license_id: Uuid, user_id: Uuid }, closed);

export const licenseRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.post(
    '/applications/:app_id/licenses',
    { schema: { params: AppParams, body: CreateBody, response: answers({ 201: IssuedLicenses }) }, config: { errors: ['APPLICATION_NOT_FOUND', 'PLAN_NOT_FOUND', 'PLAN_ARCHIVED'] } },
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

  // Seats of a plan's code (docs/api.md, Licenses): who took one, and releasing one.
  app.get(
    '/applications/:app_id/licenses/:license_id/redemptions',
    { schema: { params: LicenseParams, response: answers({ 200: Type.Array(LicenseRedemption) }) }, config: { errors: ['APPLICATION_NOT_FOUND', 'LICENSE_NOT_FOUND'] } },
    async (request) => (await listRedemptions(deps, ownerOf(request), request.params.app_id, request.params.license_id)).map(licenseRedemptionJson),
  );

  app.delete(
    '/applications/:app_id/licenses/:license_id/redemptions/:user_id',
    { schema: { params: SeatParams, response: answers({ 204: NoBody }) }, config: { errors: ['APPLICATION_NOT_FOUND', 'REDEMPTION_NOT_FOUND'] } },
    async (request, reply) => {
      const { app_id, license_id, user_id } = request.params;
      await releaseSeat(deps, ownerOf(request), app_id, { licenseId: license_id, userId: user_id }, request.actor);
      return reply.code(204).send();
    },
  );
};
