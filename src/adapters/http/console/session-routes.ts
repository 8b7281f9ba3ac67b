// The dashboard's browser session: sign in to a cookie, ask who is signed in (and the CSRF
// token), sign out. Bearer clients keep using /login and /logout.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { csrfTokenOf, signInBrowser } from '../../../application/console/browser-sessions.js';
import { revokeConsoleToken } from '../../../application/console/owners.js';
import type { Deps } from '../../../application/deps.js';
import { callerOf, header } from '../request-parts.js';
import { takesNoBody } from '../schemas.js';
import { consoleCallerOf, SignInBody } from './console-schemas.js';
import type { SessionCookies } from './session-cookie.js';
import { answers } from '../answers.js';
import { BrowserSession, NoBody } from '../wire-schemas.js';

/** `POST /session`: open, like `/login` (registered outside the authenticated scope). */
export const browserSignInRoute: FastifyPluginAsyncTypebox<{ deps: Deps; cookies: SessionCookies }> = async (app, { deps, cookies }) => {
  app.post(
    '/session',
    { schema: { body: SignInBody, response: answers({ 200: BrowserSession }) }, config: { errors: ['INVALID_CREDENTIALS', 'ACCOUNT_LOCKED', 'PASSWORD_QUEUE_FULL', 'CSRF_REJECTED'] } },
    async (request, reply) => {
      const { email, password } = request.body;
      const session = await signInBrowser(deps, { email, password, origin: header(request, 'origin'), own: cookies.ownOrigin(request) }, callerOf(request), request.actor);
      cookies.set(request, reply, session.token);
      return { owner: session.owner, csrf_token: session.csrfToken };
    },
  );
};

/** `GET` and `DELETE /session`: inside the authenticated scope (cookie or Bearer). */
export const browserSessionRoutes: FastifyPluginAsyncTypebox<{ deps: Deps; cookies: SessionCookies }> = async (app, { deps, cookies }) => {
  app.get('/session', { schema: { response: answers({ 200: BrowserSession }) } }, async (request) => {
    const caller = consoleCallerOf(request);
    return { owner: { id: caller.owner.id, email: caller.owner.email }, csrf_token: csrfTokenOf(deps, caller.presented) };
  });

  app.delete('/session', { ...takesNoBody, schema: { response: answers({ 204: NoBody }) } }, async (request, reply) => {
    await revokeConsoleToken(deps, consoleCallerOf(request).token);
    cookies.clear(request, reply);
    return reply.code(204).send();
  });
};
