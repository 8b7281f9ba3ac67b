// The owner's credentials: list console tokens, revoke one, sign out everywhere, change the
// password (docs/api.md, Console API: Owners).
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import { type ConsoleTokenView, listOwnConsoleTokens, revokeAllConsoleTokens, revokeOwnConsoleToken } from '../../../application/console/console-tokens.js';
import type { Deps } from '../../../application/deps.js';
import { changeOwnerPassword } from '../../../application/console/owners.js';
import { callerOf } from '../request-parts.js';
import { toIso } from '../../../domain/time.js';
import { closed, Password, takesNoBody, Uuid } from '../schemas.js';
import { consoleCallerOf } from './console-schemas.js';
import type { Static } from 'typebox';
import { answers } from '../answers.js';
import { ConsoleToken, NoBody, Revoked } from '../wire-schemas.js';

const tokenJson = (t: ConsoleTokenView): Static<typeof ConsoleToken> => ({
  id: t.id,
  kind: t.kind,
  created_at: toIso(t.createdAt),
  last_used_at: t.lastUsedAt === null ? null : toIso(t.lastUsedAt),
  expires_at: t.expiresAt === null ? null : toIso(t.expiresAt),
  current: t.current,
});

export const consoleTokenRoutes: FastifyPluginAsyncTypebox<{ deps: Deps }> = async (app, { deps }) => {
  app.get('/tokens', { schema: { response: answers({ 200: Type.Array(ConsoleToken) }) } }, async (request) => (await listOwnConsoleTokens(deps, consoleCallerOf(request))).map(tokenJson));

  app.delete(
    '/tokens/:token_id',
    { schema: { params: Type.Object({ token_id: Uuid }, closed), response: answers({ 204: NoBody }) }, config: { errors: ['CONSOLE_TOKEN_NOT_FOUND'] } },
    async (request, reply) => {
      await revokeOwnConsoleToken(deps, consoleCallerOf(request), request.params.token_id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/tokens/revoke_all',
    {
      ...takesNoBody,
      // include_current=true signs this token out as well.
      schema: { querystring: Type.Object({ include_current: Type.Optional(Type.Enum(['true', 'false'])) }, closed), response: answers({ 200: Revoked }) },
    },
    async (request) => ({ revoked: await revokeAllConsoleTokens(deps, consoleCallerOf(request), request.query.include_current === 'true') }),
  );

  app.post(
    '/password',
    {
      schema: { body: Type.Object({ current_password: Password, new_password: Password }, closed), response: answers({ 200: Revoked }) },
      config: { errors: ['INVALID_CREDENTIALS', 'ACCOUNT_LOCKED', 'PASSWORD_QUEUE_FULL'] },
    },
    async (request) => ({
      revoked: await changeOwnerPassword(deps, consoleCallerOf(request), { currentPassword: request.body.current_password, newPassword: request.body.new_password }, callerOf(request), request.actor),
    }),
  );
};
