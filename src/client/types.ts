// The wire shapes the client SDK reads (docs/api.md) and the offline context it makes from a license
// file. They are the server's own response schemas (adapters/http/wire-schemas.ts), not restated: a
// field renamed there breaks the SDK's type-check.
import type { Static } from 'typebox';
import type * as Wire from '../adapters/http/wire-schemas.js';
import type { LicenseFileClaims } from '../signing/license-file.js';

export type { LicenseFileClaims };

/** is_active: grants access now (grace included); is_lifetime: never expires; active_until: ISO 8601 UTC, null while lifetime or when no time
 * was ever granted; plan: the base plan or null; entitlements: sorted codes; in_grace and grace_ends_at: the base plan's grace. */
export type Membership = Static<typeof Wire.Membership>;

export type UserSummary = Static<typeof Wire.UserSummary>;

export type ContextFile = Static<typeof Wire.AppContext>['application']['files'][number];

export type Announcement = Static<typeof Wire.Announcement>;

/** `user`: null when not authenticated, or whenever the application allows anonymous access.
 * `server_time`: the server's clock (ISO 8601 UTC), the one to compute remaining time with. */
export type AppContext = Static<typeof Wire.AppContext> & {
  /** Never set by the server: an answer from it is not offline (see OfflineAppContext). */
  offline?: false;
};

/** What appContext({offlineFallback: true}) returns when the server could not be reached and the stored
 * license file verified: the user and membership the file grants, nothing the server alone knows
 * (variables, files, announcements); docs/sdk.md, "Offline license files in the SDK". */
export interface OfflineAppContext {
  offline: true;
  /** Why the server was not reached: the network error, or the 502/503/504 answer's error. */
  cause: unknown;
  /** The verified claims of the stored license file. */
  license: LicenseFileClaims;
  /** When the license file expires (ISO 8601 UTC): the fallback ends then. */
  expires_at: string;
  user: UserSummary;
}

/** An offline license file as the server issues it. */
export type IssuedLicenseFile = Static<typeof Wire.LicenseFile>;

/** A membership change. */
export type Adjustment = Static<typeof Wire.Adjustment>;

/** The answer of license activation: the change, and the membership as it now is. */
export type Activation = Static<typeof Wire.Activation>;

export type Session = Static<typeof Wire.Session>;

/** A heartbeat's answer: the session lives until lease_expires_at without another; server_time is the server's clock. */
export type Lease = Static<typeof Wire.Lease>;

/** A refresh's answer: the new session and the next refresh token, which the client keeps. */
export type RefreshedSession = Static<typeof Wire.RefreshedSession>;

/** What login accepts: a username and password, or the license code a user signed up with. */
export type LoginCredentials = { username: string; password: string } | { code: string };

/** A variable of the logged-in user (docs/api.md, User variables). */
export type UserVariable = Static<typeof Wire.UserVariable>;

/** The answer of a device reset. */
/** next_reset_at: ISO 8601 UTC, the next reset is allowed from then. */
export type DeviceReset = Static<typeof Wire.NextReset>;

/** One of the user's devices (devices()): `current` marks this client's machine. */
export type OwnDevice = Static<typeof Wire.OwnDevice>;

/** What the client says about its machine on login and sign-up (docs/machines.md, "Devices"):
 * plain text, name up to 100 characters, platform and app_version up to 50; "" clears one. */
export interface DeviceInfo {
  name?: string;
  platform?: string;
  app_version?: string;
}
