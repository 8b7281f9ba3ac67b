// The wire shapes the client SDK reads, as the integration API sends them (docs/api.md, API reference),
// and the offline context the SDK makes from a license file in their stead.
import type { LicenseFileClaims } from '../signing/license-file.js';

export type { LicenseFileClaims };

export interface Membership {
  /** The membership grants access now. */
  is_active: boolean;
  /** Never expires. */
  is_lifetime: boolean;
  /** ISO 8601 UTC; null while lifetime or when no time was ever granted. */
  active_until: string | null;
}

export interface UserSummary {
  id: string;
  username: string;
  membership: Membership;
}

export interface ContextFile {
  id: string;
  name: string;
  mime_type: string;
  is_encrypted: boolean;
}

export interface Announcement {
  id: string;
  title: string;
  content_html: string;
  publish_from: string;
  publish_until: string | null;
  status: string;
  publication_date: string;
}

export interface AppContext {
  application: {
    id: string;
    name: string;
    variables: Array<{ name: string; value: string }>;
    files: ContextFile[];
  };
  announcements: Announcement[];
  /** Null when not authenticated, or whenever the application allows anonymous access. */
  user: UserSummary | null;
  /** The server's clock (ISO 8601 UTC): the one to compute remaining time with. */
  server_time: string;
  /** Never set by the server: an answer from it is not offline (see OfflineAppContext). */
  offline?: false;
}

/**
 * What appContext({offlineFallback: true}) returns when the server could not be reached and the
 * stored license file verified (docs/sdk.md, Client SDK, Offline license files): the user and
 * membership the file grants, and nothing the server alone knows (variables, files, announcements).
 */
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
export interface IssuedLicenseFile {
  license_file: string;
  expires_at: string;
}

/** A membership change (the answer of license activation). */
export interface Adjustment {
  id: string;
  type: string;
  occurred_at: string;
  minutes: number | null;
  grants_lifetime_access: boolean;
  revokes_lifetime_access: boolean;
  license_id: string | null;
  reason?: string | null;
}

export interface Session {
  session_token: string;
  expires_at: string;
}

/** What login accepts: a username and password, or the license code a user signed up with. */
export type LoginCredentials = { username: string; password: string } | { code: string };

/** A variable of the logged-in user (docs/api.md, User variables). */
export interface UserVariable {
  name: string;
  value: string;
  /** ISO 8601 UTC. */
  updated_at: string;
}

/** The answer of a device reset. */
export interface DeviceReset {
  /** ISO 8601 UTC: the next reset is allowed from then. */
  next_reset_at: string;
}
