import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { addBan, deleteBan, listBans } from '../../../application/console/bans.js';
import type { Deps } from '../../../application/deps.js';
import { Uuid, closed } from '../schemas.js';
import { banJson } from '../views.js';
import { AppParams, Reason, ownerOf } from './console-schemas.js';
import { answers } from '../answers.js';
import { Ban, NoBody } from '../wire-schemas.js';

// value: the IP address, the hardware id, the license code or the user id.
const BanBody = Type.Object(
  {
    type: Type.Enum(['ip', 'hardware_id', 'license', 'user']),
    value: Type.String({ minLength: 1, maxLength: 256 }),
    reason: Type.Optional(Type.Union([Reason, Type.Null()])),
  },
  closed,
);

export const banRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.post(
    '/applications/:app_id/bans',
    { schema: { params: AppParams, body: BanBody, response: answers({ 201: Ban }) }, config: { errors: ['APPLICATION_NOT_FOUND', 'LICENSE_NOT_FOUND', 'USER_NOT_FOUND'] } },
    async (request, reply) => {
      const { ban, shownValue } = await addBan(deps, ownerOf(request), request.params.app_id, request.body, request.actor);
      return reply.code(201).send(banJson(ban, shownValue));
    },
  );

  app.get('/applications/:app_id/bans', { schema: { params: AppParams, response: answers({ 200: Type.Array(Ban) }) }, config: { errors: ['APPLICATION_NOT_FOUND'] } }, async (request) =>
    (await listBans(deps, ownerOf(request), request.params.app_id)).map(({ ban, shownValue }) => banJson(ban, shownValue)),
  );

  app.delete(
    '/applications/:app_id/bans/:ban_id',
    {
      schema: {
        params: Type.Object({ app_id: Uuid, ban_id: Uuid }, closed),
        // cascade=true also deletes the bans this one propagated.
        querystring: Type.Object({ cascade: Type.Optional(Type.Enum(['true', 'false'])) }, closed),
        response: answers({ 204: NoBody }),
      },
      config: { errors: ['APPLICATION_NOT_FOUND', 'BAN_NOT_FOUND'] },
    },
    async (request, reply) => {
      await deleteBan(deps, ownerOf(request), request.params.app_id, request.params.ban_id, { cascade: request.query.cascade === 'true' }, request.actor);
      return reply.code(204).send();
    },
  );
};
