// Browser sessions of the owner console: sign-in that issues a 12-hour console token for a cookie,
// and the authentication of every console request from a Bearer header or that cookie, with the
// CSRF proof a cookie needs.
import { BROWSER_SESSION_MS, type ConsoleCredentialSource, isForeignOrigin, needsCsrfToken } from '../../domain/console-session.js';
import { DomainError } from '../../domain/errors.js';
import type { Caller, Deps } from '../deps.js';
import { type ConsoleIdentity, type ConsoleTokenDeps, issueConsoleToken, type OwnerSignInDeps, resolveConsoleToken, type TokenIssueDeps, verifyOwnerSignIn } from './owners.js';
import type { Actor } from '../events/actor.js';

/** What a console request presents, as the HTTP adapter read it. */
export interface ConsoleRequest {
  method: string;
  /** The Authorization header's token; it wins over the cookie when both are present. */
  bearer: string | undefined;
  /** The session cookie's console token. */
  cookie: string | undefined;
  /** The X-CSRF-Token header. */
  csrfToken: string | undefined;
  origin: string | undefined;
  /** The server's own protocol and host, as the trusted-proxy setting resolves them. */
  own: { protocol: string; host: string };
}

export interface ConsoleCaller extends ConsoleIdentity {
  source: ConsoleCredentialSource;
  /** The console token as presented (to derive its CSRF token). */
  presented: string;
}

export interface BrowserSession {
  owner: { id: string; email: string };
  /** The console token for the cookie: never put in a response body. */
  token: string;
  csrfToken: string;
}

const rejected = (message: string) => new DomainError('CSRF_REJECTED', message);

/** The CSRF token the dashboard must echo in X-CSRF-Token for this console token. */
export const csrfTokenOf = (deps: Pick<Deps, 'secrets'>, consoleToken: string): string => deps.secrets.csrfToken(consoleToken);

/** `POST /session`: signs in like `POST /login` and issues a token that expires 12 hours later.
 * A foreign Origin is refused first, so another site cannot sign a browser in to its account. */
export async function signInBrowser(
  deps: OwnerSignInDeps & TokenIssueDeps,
  input: { email: string; password: string; origin: string | undefined; own: ConsoleRequest['own'] },
  caller: Caller,
  actor: Actor,
): Promise<BrowserSession> {
  if (isForeignOrigin(input.origin, input.own)) throw rejected('cross-origin sign-in refused');
  const owner = await verifyOwnerSignIn(deps, input.email, input.password, caller, actor);
  const session = await issueConsoleToken(deps, owner, deps.clock.now() + BROWSER_SESSION_MS);
  return { ...session, csrfToken: csrfTokenOf(deps, session.token) };
}

/** The caller of a console request: the token must be live (401 INVALID_CONSOLE_TOKEN otherwise),
 * and a cookie-authenticated request that changes state must come from our own origin and carry
 * the session's CSRF token (403 CSRF_REJECTED otherwise). */
export async function authenticateConsoleRequest(deps: ConsoleTokenDeps, request: ConsoleRequest): Promise<ConsoleCaller> {
  const source: ConsoleCredentialSource = request.bearer !== undefined ? 'bearer' : 'cookie';
  const presented = (source === 'bearer' ? request.bearer : request.cookie) ?? '';
  const identity = await resolveConsoleToken(deps, presented);
  if (needsCsrfToken(source, request.method)) {
    if (isForeignOrigin(request.origin, request.own)) throw rejected('cross-origin request refused');
    const expected = csrfTokenOf(deps, presented);
    if (request.csrfToken === undefined || !deps.secrets.sameDigest(expected, request.csrfToken)) {
      throw rejected('missing or wrong X-CSRF-Token header');
    }
  }
  return { ...identity, source, presented };
}
