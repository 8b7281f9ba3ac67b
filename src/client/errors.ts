// Typed errors of the client SDK (and the CI command line): one class per error_code a client
// reacts to differently, the base class for every other code. Built from the server's error body
// `{error_code, message, detail, errors?, timed_out_until?, reason?}` (docs/api.md, Errors).

export interface FieldError {
  field: string;
  message: string;
}

/** Any refusal by the server: the HTTP status, the stable error_code and the server's message. */
export class GatehouseError extends Error {
  readonly status: number;
  /** The server's error_code, or UNEXPECTED_RESPONSE when the answer was not a Gatehouse error body. */
  readonly code: string;
  /** 422 VALIDATION_FAILED: the offending fields (empty otherwise). */
  readonly fieldErrors: FieldError[];
  /** 429: seconds to wait, from Retry-After (null when absent). */
  readonly retryAfterSeconds: number | null;

  constructor(status: number, code: string, message: string, fieldErrors: FieldError[] = [], retryAfterSeconds: number | null = null) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.fieldErrors = fieldErrors;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** 403 TIMED_OUT: the owner timed the user out until `timedOutUntil`. */
export class TimedOutError extends GatehouseError {
  constructor(
    status: number,
    message: string,
    readonly timedOutUntil: Date,
    /** The owner's reason, or null when none was given. */
    readonly reason: string | null,
  ) {
    super(status, 'TIMED_OUT', message);
  }
}
/** 403 BANNED: the user, address, device or license is banned. */
export class BannedError extends GatehouseError {}
/** 403 MEMBERSHIP_INACTIVE: the user has no running membership (activate a license). */
export class MembershipInactiveError extends GatehouseError {}
/** 401 INVALID_CREDENTIALS: wrong username, password, code or token. */
export class InvalidCredentialsError extends GatehouseError {}
/** 401 SESSION_EXPIRED: the session ended (expiry, logout, revocation) and the client could not renew it. */
export class SessionExpiredError extends GatehouseError {}
/** 401 REFRESH_INVALID or REFRESH_REUSED: the kept refresh token no longer opens a session (the
 * client has forgotten it); log in again with the password or code. */
export class RefreshRefusedError extends GatehouseError {}
/** 401 LOGIN_REQUIRED: the application needs a logged-in user. */
export class LoginRequiredError extends GatehouseError {}
/** 401 DEVICE_REQUIRED: device authentication is on and no hardware id was given. */
export class DeviceRequiredError extends GatehouseError {}
/** 401 DEVICE_LIMIT_REACHED: the user has registered all the devices allowed. */
export class DeviceLimitReachedError extends GatehouseError {}
/** 401 SESSION_LIMIT_REACHED: the user has as many live sessions as allowed. */
export class SessionLimitReachedError extends GatehouseError {}
/** 403 SEATS_EXHAUSTED: every seat of the user's floating license is held; see retryAfterSeconds. */
export class SeatsExhaustedError extends GatehouseError {}
/** 429 RATE_LIMITED, ACCOUNT_LOCKED (too many failed checks) or PASSWORD_QUEUE_FULL (too many waiting); see retryAfterSeconds. */
export class RateLimitedError extends GatehouseError {}
/** 401 INVALID_API_CREDENTIALS / INVALID_ADMIN_API_KEY: the application's (or admin) key was refused. */
export class InvalidApiCredentialsError extends GatehouseError {}
/** 404 FILE_NOT_FOUND / USER_NOT_FOUND / VARIABLE_NOT_FOUND / LICENSE_NOT_FOUND. */
export class NotFoundError extends GatehouseError {}
/** 429 RESET_COOLDOWN: the user reset their devices recently; the next reset is allowed at `nextResetAt`. */
export class ResetCooldownError extends GatehouseError {
  constructor(
    status: number,
    message: string,
    readonly nextResetAt: Date,
    retryAfterSeconds: number | null,
  ) {
    super(status, 'RESET_COOLDOWN', message, [], retryAfterSeconds);
  }
}
/** 404 TRIAL_NOT_OFFERED (the application has no trial), 409 TRIAL_USED (this user or machine had it)
 * or 409 TRIAL_NOT_ELIGIBLE (the user holds a plan or an active membership): see `code`. */
export class TrialRefusedError extends GatehouseError {}
/** 401 SIGNATURE_REQUIRED, SIGNATURE_EXPIRED, SIGNATURE_INVALID or REQUEST_REPLAYED: the application
 * requires signed requests and refused this one's (no requestSigningKey, a wrong or rotated-out one,
 * or a clock the server's time could not correct); docs/sdk.md, "Request signing". */
export class RequestSignatureRefusedError extends GatehouseError {}

/** Why a client pinning keys refused an answer: SIGNATURE_MISSING (not signed), SIGNATURE_INVALID (no
 * pinned key verifies it for this request), CONTENT_MISMATCH (a download's bytes are not the signed
 * digest), PARTIAL_CONTENT (a 206 part); docs/sdk.md, "Verifying answers". */
export type SignatureFailure = 'SIGNATURE_MISSING' | 'SIGNATURE_INVALID' | 'CONTENT_MISMATCH' | 'PARTIAL_CONTENT';

/** The answer could not be shown to come from the server for this request (docs/sdk.md, "Verifying
 * answers"). Not a GatehouseError: nothing in the answer, not even its status, can be trusted, so the
 * client acts on none of it. */
export class SignatureError extends Error {
  constructor(
    readonly code: SignatureFailure,
    /** The HTTP status the refused answer carried (unverified). */
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'SignatureError';
  }
}

type ErrorClass = new (status: number, code: string, message: string, fieldErrors?: FieldError[], retryAfterSeconds?: number | null) => GatehouseError;

const classByCode: Record<string, ErrorClass> = {
  BANNED: BannedError,
  MEMBERSHIP_INACTIVE: MembershipInactiveError,
  INVALID_CREDENTIALS: InvalidCredentialsError,
  SESSION_EXPIRED: SessionExpiredError,
  LOGIN_REQUIRED: LoginRequiredError,
  REFRESH_INVALID: RefreshRefusedError,
  REFRESH_REUSED: RefreshRefusedError,
  DEVICE_REQUIRED: DeviceRequiredError,
  DEVICE_LIMIT_REACHED: DeviceLimitReachedError,
  SESSION_LIMIT_REACHED: SessionLimitReachedError,
  SEATS_EXHAUSTED: SeatsExhaustedError,
  RATE_LIMITED: RateLimitedError,
  ACCOUNT_LOCKED: RateLimitedError,
  PASSWORD_QUEUE_FULL: RateLimitedError,
  INVALID_API_CREDENTIALS: InvalidApiCredentialsError,
  INVALID_ADMIN_API_KEY: InvalidApiCredentialsError,
  FILE_NOT_FOUND: NotFoundError,
  USER_NOT_FOUND: NotFoundError,
  VARIABLE_NOT_FOUND: NotFoundError,
  LICENSE_NOT_FOUND: NotFoundError,
  SIGNATURE_REQUIRED: RequestSignatureRefusedError,
  SIGNATURE_EXPIRED: RequestSignatureRefusedError,
  SIGNATURE_INVALID: RequestSignatureRefusedError,
  REQUEST_REPLAYED: RequestSignatureRefusedError,
  TRIAL_NOT_OFFERED: TrialRefusedError,
  TRIAL_USED: TrialRefusedError,
  TRIAL_NOT_ELIGIBLE: TrialRefusedError,
};

const textOf = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The typed error for a non-2xx answer; reads (and so consumes) the response body. */
export async function errorFromResponse(response: Response): Promise<GatehouseError> {
  const text = await response.text().catch(() => '');
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: a proxy's page or an empty body. Handled below.
  }
  const retryHeader = response.headers.get('retry-after');
  const retryAfter = retryHeader !== null && /^\d+$/.test(retryHeader) ? Number(retryHeader) : null;
  if (!isRecord(body) || typeof body['error_code'] !== 'string') {
    const snippet = text.trim().slice(0, 200);
    return new GatehouseError(response.status, 'UNEXPECTED_RESPONSE', `HTTP ${response.status}${snippet ? `: ${snippet}` : ''}`, [], retryAfter);
  }
  const code = body['error_code'];
  const message = typeof body['message'] === 'string' ? body['message'] : code;
  const fieldErrors = Array.isArray(body['errors']) ? body['errors'].filter(isRecord).map((e) => ({ field: textOf(e['field']), message: textOf(e['message']) })) : [];
  if (code === 'TIMED_OUT') {
    const until = new Date(typeof body['timed_out_until'] === 'string' ? body['timed_out_until'] : Number.NaN);
    return new TimedOutError(response.status, message, until, typeof body['reason'] === 'string' ? body['reason'] : null);
  }
  if (code === 'RESET_COOLDOWN') {
    const next = new Date(typeof body['next_reset_at'] === 'string' ? body['next_reset_at'] : Number.NaN);
    return new ResetCooldownError(response.status, message, next, retryAfter);
  }
  return new (classByCode[code] ?? GatehouseError)(response.status, code, message, fieldErrors, retryAfter);
}
