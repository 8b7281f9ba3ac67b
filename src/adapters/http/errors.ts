import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ErrorCode, type ErrorDetails, type FieldError, isDomainError } from '../../domain/errors.js';
import { toIso } from '../../domain/time.js';

/** The one table from error code to HTTP status. A new code fails to compile until it is mapped. */
export const statusByCode = {
  VALIDATION_FAILED: 422,
  MALFORMED_REQUEST: 400,
  UNSUPPORTED_MEDIA_TYPE: 415,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  RANGE_NOT_SATISFIABLE: 416,
  NOT_FOUND: 404,
  INVALID_API_CREDENTIALS: 401,
  INVALID_ADMIN_API_KEY: 401,
  INVALID_CONSOLE_TOKEN: 401,
  INVALID_CREDENTIALS: 401,
  SIGNATURE_REQUIRED: 401,
  SIGNATURE_EXPIRED: 401,
  SIGNATURE_INVALID: 401,
  REQUEST_REPLAYED: 401,
  LOGIN_REQUIRED: 401,
  SESSION_EXPIRED: 401,
  LEGACY_AUTH_DISABLED: 401,
  LEGACY_AUTH_NEEDS_DEVICE_AUTH: 401,
  TOKEN_AUTH_DISABLED: 401,
  DEVICE_REQUIRED: 401,
  DEVICE_LIMIT_REACHED: 401,
  SESSION_LIMIT_REACHED: 401,
  REFRESH_INVALID: 401,
  REFRESH_REUSED: 401,
  SEATS_EXHAUSTED: 403,
  BORROWING_NOT_ALLOWED: 403,
  BORROW_NOT_FOUND: 404,
  MEMBERSHIP_INACTIVE: 403,
  BANNED: 403,
  TIMED_OUT: 403,
  USERNAME_TAKEN: 422,
  LICENSE_INVALID: 422,
  LICENSE_USED: 422,
  LICENSE_CONSUMED: 409,
  LICENSE_ALREADY_REDEEMED: 409,
  LICENSE_HELD_BY_SEVERAL: 409,
  EMAIL_TAKEN: 409,
  APPLICATION_NOT_FOUND: 404,
  USER_NOT_FOUND: 404,
  LICENSE_NOT_FOUND: 404,
  REDEMPTION_NOT_FOUND: 404,
  VARIABLE_NOT_FOUND: 404,
  NOT_A_PASSWORD_USER: 422,
  RESET_DISABLED: 403,
  RESET_COOLDOWN: 429,
  ANNOUNCEMENT_NOT_FOUND: 404,
  BAN_NOT_FOUND: 404,
  CONSOLE_TOKEN_NOT_FOUND: 404,
  DEVICE_NOT_FOUND: 404,
  FILE_NOT_FOUND: 404,
  FILE_NAME_TAKEN: 409,
  PLAN_NOT_FOUND: 404,
  PLAN_NAME_TAKEN: 409,
  PLAN_IN_USE: 409,
  PLAN_ARCHIVED: 422,
  TRIAL_NOT_OFFERED: 404,
  TRIAL_USED: 409,
  TRIAL_NOT_ELIGIBLE: 409,
  WEBHOOK_NOT_FOUND: 404,
  WEBHOOK_DELIVERY_NOT_FOUND: 404,
  WEBHOOK_URL_REFUSED: 422,
  WEBHOOK_LIMIT_REACHED: 409,
  WEBHOOK_TEST_LIMITED: 429,
  CSRF_REJECTED: 403,
  RATE_LIMITED: 429,
  ACCOUNT_LOCKED: 429,
  PASSWORD_QUEUE_FULL: 429,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
} as const satisfies Record<ErrorCode, number>;

// A refused credential is a failed authentication whatever its code: the LICENSE_INVALID that is a
// 422 form error at sign-up is a 401 at login and activation.
const REFUSED_CREDENTIAL_STATUS = 401;

export function statusOf(code: ErrorCode, details: ErrorDetails = {}): number {
  return details.refusedCredential ? REFUSED_CREDENTIAL_STATUS : statusByCode[code];
}

/** `{error_code, message, detail}`; detail repeats message for `{"detail": ...}` clients. */
export function errorBody(code: ErrorCode, message: string, details: ErrorDetails = {}) {
  return {
    error_code: code,
    message,
    detail: message,
    ...(details.timedOutUntil !== undefined ? { timed_out_until: toIso(details.timedOutUntil) } : {}),
    // The error body (docs/api.md, Errors): reason is an optional string; absent rather than null when none was given.
    ...(details.reason ? { reason: details.reason } : {}),
    ...(details.nextResetAt !== undefined ? { next_reset_at: toIso(details.nextResetAt) } : {}),
    ...(details.errors ? { errors: details.errors } : {}),
  };
}

export function sendError(reply: FastifyReply, code: ErrorCode, message: string, details: ErrorDetails = {}) {
  reply.request.answeredErrorCode = code;
  if (details.retryAfterSeconds !== undefined) reply.header('retry-after', String(details.retryAfterSeconds));
  return reply
    .code(statusOf(code, details))
    .type('application/json; charset=utf-8')
    .send(errorBody(code, message, details));
}

interface AjvIssue {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

/** Names the field an AJV issue is about: the instance path, or the missing/extra property. */
function fieldOf(context: string | undefined, issue: AjvIssue): string {
  const extra = issue.params?.['additionalProperty'] ?? issue.params?.['missingProperty'];
  const path = (issue.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  const name = [path, typeof extra === 'string' ? extra : ''].filter(Boolean).join('.');
  return name || context || 'body';
}

function validationIssues(error: FastifyError): FieldError[] {
  const context = (error as FastifyError & { validationContext?: string }).validationContext;
  const issues = error.validation as AjvIssue[];
  // A value matching none of several shapes (login credentials) is reported once, not once per
  // shape it failed.
  const union = issues.find((i) => i.keyword === 'anyOf');
  if (union) return [{ field: fieldOf(context, union), message: 'does not match any accepted shape' }];
  return issues.slice(0, 20).map((issue) => ({
    field: fieldOf(context, issue),
    message: issue.keyword === 'additionalProperties' ? 'is not an accepted field' : issue.keyword === 'required' ? 'is required' : (issue.message ?? 'is invalid'),
  }));
}

/** Fastify's own client errors (bad JSON, media type, size) keep their status, in our body. */
function frameworkError(error: FastifyError): [ErrorCode, string] {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return ['PAYLOAD_TOO_LARGE', 'request body is too large'];
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return ['UNSUPPORTED_MEDIA_TYPE', 'unsupported content type'];
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return ['MALFORMED_REQUEST', 'request body is empty'];
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return ['MALFORMED_REQUEST', 'request body is not valid JSON'];
    case 'FST_ERR_BAD_URL':
      return ['MALFORMED_REQUEST', 'the URL is not validly encoded'];
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return ['URI_TOO_LONG', 'a path parameter is too long'];
    default:
      break;
  }
  if (error.statusCode === 413) return ['PAYLOAD_TOO_LARGE', 'request body is too large'];
  if (error.statusCode === 415) return ['UNSUPPORTED_MEDIA_TYPE', 'unsupported content type'];
  if (error.statusCode === 404) return ['NOT_FOUND', 'not found'];
  return ['MALFORMED_REQUEST', 'malformed request'];
}

/** Fastify answers some malformed URLs before routing (the `frameworkErrors` option): our body too. */
export function frameworkErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const [code, message] = frameworkError(error);
  return sendError(reply, code, message);
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (isDomainError(error)) {
      // What made the service unavailable (the driver's error) is for the operator's log only.
      if (error.cause !== undefined) request.log.warn({ err: error.cause }, error.message);
      return sendError(reply, error.code, error.message, error.details);
    }
    if (error.validation) {
      const errors = validationIssues(error);
      const first = errors[0];
      return sendError(reply, 'VALIDATION_FAILED', first ? `${first.field}: ${first.message}` : 'invalid request', { errors });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const [code, message] = frameworkError(error);
      return sendError(reply, code, message);
    }
    // Anything else is ours to fix: logged in full, answered with nothing a client could misuse.
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, 'INTERNAL_ERROR', 'internal server error');
  });
  app.setNotFoundHandler(answerNotFound);
}

/** An unknown path, or a known one with another method. */
export const answerNotFound = (_request: FastifyRequest, reply: FastifyReply) => sendError(reply, 'NOT_FOUND', 'no such endpoint');
