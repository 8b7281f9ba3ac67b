// Every failure the service can report, by stable code. The HTTP adapter maps each code to a
// status in one table; the domain never speaks HTTP.
export const errorCodes = [
  'VALIDATION_FAILED',
  'MALFORMED_REQUEST',
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
  'URI_TOO_LONG',
  'RANGE_NOT_SATISFIABLE',
  'NOT_FOUND',
  'INVALID_API_CREDENTIALS',
  'INVALID_ADMIN_API_KEY',
  'INVALID_CONSOLE_TOKEN',
  'INVALID_CREDENTIALS',
  'SIGNATURE_REQUIRED',
  'SIGNATURE_EXPIRED',
  'SIGNATURE_INVALID',
  'REQUEST_REPLAYED',
  'LOGIN_REQUIRED',
  'SESSION_EXPIRED',
  'LEGACY_AUTH_DISABLED',
  'LEGACY_AUTH_NEEDS_DEVICE_AUTH',
  'TOKEN_AUTH_DISABLED',
  'DEVICE_REQUIRED',
  'DEVICE_LIMIT_REACHED',
  'SESSION_LIMIT_REACHED',
  'REFRESH_INVALID',
  'REFRESH_REUSED',
  'SEATS_EXHAUSTED',
  'BORROWING_NOT_ALLOWED',
  'BORROW_NOT_FOUND',
  'MEMBERSHIP_INACTIVE',
  'BANNED',
  'TIMED_OUT',
  'USERNAME_TAKEN',
  'LICENSE_INVALID',
  'LICENSE_USED',
  'LICENSE_ALREADY_REDEEMED',
  'LICENSE_HELD_BY_SEVERAL',
  'LICENSE_CONSUMED',
  'EMAIL_TAKEN',
  'APPLICATION_NOT_FOUND',
  'USER_NOT_FOUND',
  'LICENSE_NOT_FOUND',
  'REDEMPTION_NOT_FOUND',
  'VARIABLE_NOT_FOUND',
  'NOT_A_PASSWORD_USER',
  'RESET_DISABLED',
  'RESET_COOLDOWN',
  'ANNOUNCEMENT_NOT_FOUND',
  'BAN_NOT_FOUND',
  'CONSOLE_TOKEN_NOT_FOUND',
  'DEVICE_NOT_FOUND',
  'FILE_NOT_FOUND',
  'FILE_NAME_TAKEN',
  'PLAN_NOT_FOUND',
  'PLAN_NAME_TAKEN',
  'PLAN_IN_USE',
  'PLAN_ARCHIVED',
  'TRIAL_NOT_OFFERED',
  'TRIAL_USED',
  'TRIAL_NOT_ELIGIBLE',
  'WEBHOOK_NOT_FOUND',
  'WEBHOOK_DELIVERY_NOT_FOUND',
  'WEBHOOK_URL_REFUSED',
  'WEBHOOK_LIMIT_REACHED',
  'WEBHOOK_TEST_LIMITED',
  'CSRF_REJECTED',
  'RATE_LIMITED',
  'ACCOUNT_LOCKED',
  'PASSWORD_QUEUE_FULL',
  'SERVICE_UNAVAILABLE',
  'INTERNAL_ERROR',
] as const;

export type ErrorCode = (typeof errorCodes)[number];

export interface FieldError {
  field: string;
  message: string;
}

export interface ErrorDetails {
  /** TIMED_OUT: when the timeout ends (epoch ms). */
  timedOutUntil?: number;
  /** TIMED_OUT: the owner's reason, when one was given. */
  reason?: string | null;
  /** VALIDATION_FAILED: the offending fields. */
  errors?: FieldError[];
  /** RESET_COOLDOWN: when the next device reset is allowed (epoch ms). */
  nextResetAt?: number;
  /** Codes that answer Retry-After (RATE_LIMITED, ACCOUNT_LOCKED, SERVICE_UNAVAILABLE, ...): how long the caller should wait. */
  retryAfterSeconds?: number;
  /** The refused value was presented as a credential (a license code at login or activation), not as a
   * form field: it is answered like any failed authentication (docs/api.md, Errors). */
  refusedCredential?: true;
}

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
  }
}

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;

export function validationError(field: string, message: string): DomainError {
  return new DomainError('VALIDATION_FAILED', `${field}: ${message}`, { errors: [{ field, message }] });
}

/** A user is required and none was presented: the answer that tells a client to log in (the message the error table of docs/api.md gives). */
export const loginRequired = (): DomainError => new DomainError('LOGIN_REQUIRED', 'Only logged in users are allowed to access');
