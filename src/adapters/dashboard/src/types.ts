// The console API's shapes, as the API reference (docs/api.md) gives them.

export interface Owner {
  id: string;
  email: string;
}

export interface Session {
  owner: Owner;
  csrf_token: string;
}

export interface ApplicationSettings {
  name: string;
  anonymous_access: boolean;
  device_auth: boolean;
  legacy_auth: boolean;
  token_auth: boolean;
  session_ttl_seconds: number;
  default_allowed_devices: number;
  default_allowed_sessions: number;
  ban_propagation: boolean;
  /** null: IP bans made by propagation never expire. */
  propagated_ip_ban_hours: number | null;
  password_min_length: number;
  response_signing: boolean;
  request_signing: boolean;
  signature_window_seconds: number;
  /** How long an offline license file lasts at most, in minutes (never past the membership). */
  license_file_ttl_minutes: number;
  /** How many variables one user may hold. */
  max_user_variables: number;
  /** How often users may reset their own devices; null: device reset is off. */
  device_reset_cooldown_hours: number | null;
}

export interface Application extends ApplicationSettings {
  id: string;
  api_key: string;
  /** base64 of the raw Ed25519 public key clients pin; null until an old application is given one. */
  response_signing_public_key: string | null;
  response_signing_key_id: string | null;
  /** The key rotated out, still signing until removed; null when none. */
  response_signing_previous_key_id: string | null;
  created_at: string;
}

export interface Credentials {
  api_key: string;
  api_secret: string;
  admin_api_key: string;
  files_encryption_key: string;
  request_signing_key: string;
}

export interface License {
  id: string;
  code: string;
  minutes: number | null;
  note: string | null;
  created_at: string;
  used_at: string | null;
  used_by_user_id: string | null;
  banned: boolean;
}

export interface Adjustment {
  id: string;
  type: 'license' | 'bulk';
  occurred_at: string;
  minutes: number | null;
  grants_lifetime_access: boolean;
  revokes_lifetime_access: boolean;
  license_id: string | null;
  reason: string | null;
}

export interface User {
  application_id: string;
  id: string;
  credential_type: 'username_password' | 'license_code';
  username: string;
  allowed_number_of_devices: number;
  allowed_number_of_simultaneous_sessions: number;
  registered_devices: Array<{ id: string; hardware_id: string; registered_at: string }>;
  membership: {
    is_active: boolean;
    is_lifetime: boolean;
    active_until: string | null;
    adjustments: Adjustment[];
  };
  timed_out_until: string | null;
  timeout_reason: string | null;
  last_ip: string | null;
  created_at: string;
}

/** A variable of one end user. */
export interface UserVariable {
  name: string;
  value: string;
  updated_at: string;
}

/** The console's user page: the User with its variables and device resets. */
export interface UserPageData extends User {
  variables: UserVariable[];
  last_device_reset_at: string | null;
  /** When the user may next reset their devices; null when they may now, or reset is off. */
  next_device_reset_at: string | null;
}

export type BanType = 'ip' | 'hardware_id' | 'license' | 'user';

export interface Ban {
  id: string;
  type: BanType;
  value: string;
  reason: string | null;
  created_at: string;
  /** The ban whose refusal made this one by propagation; null for an owner's ban. */
  propagated_from: string | null;
  /** Propagated IP bans stop holding then; null: until removed. */
  expires_at: string | null;
}

export interface Variable {
  name: string;
  value: string;
  is_public: boolean;
}

export type AnnouncementStatus = 'DRAFT' | 'PUBLISHED' | 'ARCHIVED';

export interface Announcement {
  id: string;
  title: string;
  content_html: string;
  publish_from: string;
  publish_until: string | null;
  status: AnnouncementStatus;
  publication_date: string;
}

export interface FileRecord {
  id: string;
  application_id: string;
  name: string;
  is_public: boolean;
  processing_status: 'PENDING' | 'COMPLETED' | 'FAILED';
  storage_status: 'NOT_STORED' | 'STORED';
  mime_type: string;
  size_bytes: number | null;
  storage_path: string | null;
  original_filename: string;
  store_encrypted: boolean;
  source: 'ADMIN_API' | 'DASHBOARD';
  created_at: string;
  sha256: string | null;
  processing_error: string | null;
  updated_at: string;
}

export interface Overview {
  users: number;
  active_memberships: number;
  licenses: { used: number; unused: number };
  storage_bytes: number;
  daily: Array<{ date: string; sign_ups: number; logins: number }>;
}
