// Device reset by the user (docs/api.md, POST /reset_devices): a user frees their device slots themselves,
// at most once per the application's cooldown. Decided in the store's transaction, under the
// user's row lock, so parallel resets succeed exactly once.
import { DomainError } from './errors.js';
import type { Instant } from './time.js';

export const DEVICE_RESET_COOLDOWN_HOURS_MAX = 8760;
const HOUR_MS = 3_600_000;

/** The cooldown of an application, or RESET_DISABLED when the setting is off (null). */
export function resetCooldownHours(setting: number | null): number {
  if (setting === null) throw new DomainError('RESET_DISABLED', 'device reset is not enabled for this application');
  return setting;
}

/** When the next reset is allowed after one at `lastResetAt` (null: never reset, any time). */
export function nextDeviceResetAt(lastResetAt: Instant | null, cooldownHours: number | null): Instant | null {
  return lastResetAt === null || cooldownHours === null ? null : lastResetAt + cooldownHours * HOUR_MS;
}

/** A reset at `now`: refused with RESET_COOLDOWN (its next_reset_at and Retry-After) inside the
 * cooldown; otherwise the next allowed reset after this one. */
export function planDeviceReset(lastResetAt: Instant | null, cooldownHours: number, now: Instant): { nextResetAt: Instant } {
  const allowedAt = nextDeviceResetAt(lastResetAt, cooldownHours);
  if (allowedAt !== null && now < allowedAt) {
    throw new DomainError('RESET_COOLDOWN', 'the devices of this account were reset recently; try again later', {
      nextResetAt: allowedAt,
      retryAfterSeconds: Math.max(1, Math.ceil((allowedAt - now) / 1000)),
    });
  }
  return { nextResetAt: now + cooldownHours * HOUR_MS };
}
