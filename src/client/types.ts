// The wire shapes the client SDK reads, as the integration API sends them (README, API reference).

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

/** A variable of the logged-in user (README, User variables). */
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
