import { validationError } from './errors.js';
import { validatePasswordMinLength } from './credentials-policy.js';
import { DEVICE_RESET_COOLDOWN_HOURS_MAX } from './device-reset.js';
import { MAX_USER_VARIABLES_CEILING, MAX_USER_VARIABLES_DEFAULT } from './user-variables.js';

/** What an owner sets per application. */
export interface ApplicationSettings {
  anonymousAccess: boolean;
  deviceAuth: boolean;
  legacyAuth: boolean;
  tokenAuth: boolean;
  sessionTtlSeconds: number;
  defaultAllowedDevices: number;
  defaultAllowedSessions: number;
  banPropagation: boolean;
  /** Propagation also bans the caller's address (off: addresses are shared; docs/choices.md, "Bans"). */
  banPropagationToAddresses: boolean;
  /** How long an IP ban made by propagation holds; null: until an owner deletes it. */
  propagatedIpBanHours: number | null;
  passwordMinLength: number;
  /** Integration responses carry x-timestamp and x-signature (docs/api.md, Response signing). */
  responseSigning: boolean;
  /** Integration requests must be signed with the request signing key. */
  requestSigning: boolean;
  /** How far a signed request's time may be from the server's, and how long a rotated request signing key still counts. */
  signatureWindowSeconds: number;
  /** How long an offline license file lasts at most (docs/signing.md, Offline license files); never past the membership. */
  licenseFileTtlMinutes: number;
  /** How many variables one user may hold (docs/api.md, User variables). */
  maxUserVariables: number;
  /** Successful sign-ups an hour from every address; null: no limit (the per-address one still holds). */
  signUpsPerHour: number | null;
  /** How often a user may reset their own devices; null: device reset is off (docs/api.md, POST /reset_devices). */
  deviceResetCooldownHours: number | null;
  /** Days before a membership ends that `membership.expiring` is sent; 0: never (docs/events.md). */
  expiryNoticeDays: number;
  /** The base plan with `trial` that start_trial grants; null: no trial offered (docs/plans.md). */
  trialPlanId: string | null;
  /** How often a session must heartbeat; null: heartbeats off (docs/machines.md, "Heartbeats"). */
  heartbeatSeconds: number | null;
  /** How long a refresh token lasts; null: login issues none (docs/machines.md, "Refresh tokens"). */
  refreshTtlDays: number | null;
}

export const defaultSettings: ApplicationSettings = {
  anonymousAccess: false,
  deviceAuth: true,
  legacyAuth: false,
  tokenAuth: true,
  sessionTtlSeconds: 300,
  defaultAllowedDevices: 1,
  defaultAllowedSessions: 1,
  banPropagation: true,
  banPropagationToAddresses: false,
  propagatedIpBanHours: 24,
  passwordMinLength: 8,
  responseSigning: true,
  requestSigning: false,
  signatureWindowSeconds: 10,
  licenseFileTtlMinutes: 20_160,
  maxUserVariables: MAX_USER_VARIABLES_DEFAULT,
  deviceResetCooldownHours: null,
  signUpsPerHour: null,
  expiryNoticeDays: 7,
  trialPlanId: null,
  heartbeatSeconds: null,
  refreshTtlDays: 30,
};

export const SESSION_TTL_MIN = 30;
export const SESSION_TTL_MAX = 30 * 24 * 3600;
export const LIMIT_MAX = 10_000;
/** A year: longer than that, an owner wants null (never expires). */
export const PROPAGATED_IP_BAN_HOURS_MAX = 8760;
export const SIGN_UPS_PER_HOUR_MAX = 100_000_000;
export const SIGNATURE_WINDOW_MIN = 5;
export const SIGNATURE_WINDOW_MAX = 300;
/** An offline license file lasts from an hour to a year (docs/signing.md). */
export const LICENSE_FILE_TTL_MIN = 60;
export const LICENSE_FILE_TTL_MAX = 525_600;
/** `membership.expiring` comes at most 90 days ahead (docs/plans.md, "Expiry notices"). */
export const EXPIRY_NOTICE_DAYS_MAX = 90;
/** Heartbeats from every 30 seconds to once a day (docs/machines.md). */
export const HEARTBEAT_SECONDS_MIN = 30;
export const HEARTBEAT_SECONDS_MAX = 86_400;
export const REFRESH_TTL_DAYS_MAX = 365;

function checkRange(field: string, n: number, min: number, max: number) {
  if (!Number.isInteger(n) || n < min || n > max) throw validationError(field, `must be an integer from ${min} to ${max}`);
}

export function validateSettings(s: ApplicationSettings): ApplicationSettings {
  checkRange('session_ttl_seconds', s.sessionTtlSeconds, SESSION_TTL_MIN, SESSION_TTL_MAX);
  checkRange('default_allowed_devices', s.defaultAllowedDevices, 0, LIMIT_MAX);
  checkRange('default_allowed_sessions', s.defaultAllowedSessions, 1, LIMIT_MAX);
  if (s.propagatedIpBanHours !== null) checkRange('propagated_ip_ban_hours', s.propagatedIpBanHours, 1, PROPAGATED_IP_BAN_HOURS_MAX);
  validatePasswordMinLength(s.passwordMinLength);
  checkRange('signature_window_seconds', s.signatureWindowSeconds, SIGNATURE_WINDOW_MIN, SIGNATURE_WINDOW_MAX);
  validateLicenseFileTtl('license_file_ttl_minutes', s.licenseFileTtlMinutes);
  checkRange('max_user_variables', s.maxUserVariables, 0, MAX_USER_VARIABLES_CEILING);
  if (s.signUpsPerHour !== null) checkRange('sign_ups_per_hour', s.signUpsPerHour, 1, SIGN_UPS_PER_HOUR_MAX);
  if (s.deviceResetCooldownHours !== null) checkRange('device_reset_cooldown_hours', s.deviceResetCooldownHours, 1, DEVICE_RESET_COOLDOWN_HOURS_MAX);
  checkRange('expiry_notice_days', s.expiryNoticeDays, 0, EXPIRY_NOTICE_DAYS_MAX);
  if (s.heartbeatSeconds !== null) checkRange('heartbeat_seconds', s.heartbeatSeconds, HEARTBEAT_SECONDS_MIN, HEARTBEAT_SECONDS_MAX);
  if (s.refreshTtlDays !== null) checkRange('refresh_ttl_days', s.refreshTtlDays, 1, REFRESH_TTL_DAYS_MAX);
  return s;
}

/** The stored settings with those given laid over them, validated whole (VALIDATION_FAILED). */
export function mergeSettings(current: ApplicationSettings, patch: Partial<ApplicationSettings>): ApplicationSettings {
  const given = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<ApplicationSettings>;
  return validateSettings({ ...current, ...given });
}

/** A license file's lifetime in minutes, as a setting or as an override at issuance; `max` lowers the
 * ceiling (the admin API's issuance: at most the application's license_file_ttl_minutes). */
export function validateLicenseFileTtl(field: string, minutes: number, max = LICENSE_FILE_TTL_MAX): number {
  checkRange(field, minutes, LICENSE_FILE_TTL_MIN, Math.min(max, LICENSE_FILE_TTL_MAX));
  return minutes;
}

/** A user's caps as the owner sets them; null clears the override (docs/plans.md, "Caps"). */
export function validateUserLimits(limits: { allowedDevices?: number | null; allowedSessions?: number | null }): void {
  if (limits.allowedDevices !== undefined && limits.allowedDevices !== null) checkRange('allowed_number_of_devices', limits.allowedDevices, 0, LIMIT_MAX);
  if (limits.allowedSessions !== undefined && limits.allowedSessions !== null) checkRange('allowed_number_of_simultaneous_sessions', limits.allowedSessions, 1, LIMIT_MAX);
}

export function validateName(field: string, raw: string, max: number): string {
  const name = raw.trim();
  if (name.length === 0 || name.length > max) throw validationError(field, `must be 1 to ${max} characters`);
  return name;
}
