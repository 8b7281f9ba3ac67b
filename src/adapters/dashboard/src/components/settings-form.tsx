// The application's settings, for creation and for the settings page alike.
import { CheckField, TextField } from './fields.js';
import type { ApplicationSettings } from '../types.js';

export const DEFAULT_SETTINGS: ApplicationSettings = {
  name: '',
  anonymous_access: false,
  device_auth: true,
  legacy_auth: false,
  token_auth: true,
  session_ttl_seconds: 300,
  default_allowed_devices: 1,
  default_allowed_sessions: 1,
  ban_propagation: true,
  ban_propagation_to_addresses: false,
  propagated_ip_ban_hours: 24,
  password_min_length: 8,
  response_signing: true,
  request_signing: false,
  signature_window_seconds: 10,
  license_file_ttl_minutes: 20160,
  max_user_variables: 100,
  device_reset_cooldown_hours: null,
  sign_ups_per_hour: null,
  expiry_notice_days: 7,
  trial_plan_id: null,
  heartbeat_seconds: null,
  refresh_ttl_days: 30,
};

type NumberKey =
  | 'session_ttl_seconds'
  | 'default_allowed_devices'
  | 'default_allowed_sessions'
  | 'password_min_length'
  | 'signature_window_seconds'
  | 'license_file_ttl_minutes'
  | 'max_user_variables'
  | 'expiry_notice_days';
/** Optional numbers: left empty, null. */
type NullableKey = 'propagated_ip_ban_hours' | 'device_reset_cooldown_hours' | 'sign_ups_per_hour' | 'heartbeat_seconds' | 'refresh_ttl_days';

/** Settings as edited: numbers as the text typed, so a half-typed value is not rewritten. Left empty,
 * propagated_ip_ban_hours is null (propagated IP bans never expire) and device_reset_cooldown_hours is
 * null (device reset off). */
export type SettingsDraft = Omit<ApplicationSettings, NumberKey | NullableKey> & Record<NumberKey | NullableKey, string>;

export function toDraft(s: ApplicationSettings): SettingsDraft {
  return {
    ...s,
    session_ttl_seconds: String(s.session_ttl_seconds),
    default_allowed_devices: String(s.default_allowed_devices),
    default_allowed_sessions: String(s.default_allowed_sessions),
    password_min_length: String(s.password_min_length),
    signature_window_seconds: String(s.signature_window_seconds),
    license_file_ttl_minutes: String(s.license_file_ttl_minutes),
    max_user_variables: String(s.max_user_variables),
    expiry_notice_days: String(s.expiry_notice_days),
    propagated_ip_ban_hours: s.propagated_ip_ban_hours === null ? '' : String(s.propagated_ip_ban_hours),
    device_reset_cooldown_hours: s.device_reset_cooldown_hours === null ? '' : String(s.device_reset_cooldown_hours),
    sign_ups_per_hour: s.sign_ups_per_hour === null ? '' : String(s.sign_ups_per_hour),
    heartbeat_seconds: s.heartbeat_seconds === null ? '' : String(s.heartbeat_seconds),
    refresh_ttl_days: s.refresh_ttl_days === null ? '' : String(s.refresh_ttl_days),
  };
}

/** The body sent, settings only: numbers as numbers (the API coerces nothing: a bad one is named in its 422). */
export function fromDraft(d: SettingsDraft): Record<string, unknown> {
  const num = (v: string) => (v.trim() === '' || Number.isNaN(Number(v)) ? v : Number(v));
  return {
    name: d.name.trim(),
    anonymous_access: d.anonymous_access,
    device_auth: d.device_auth,
    legacy_auth: d.legacy_auth,
    token_auth: d.token_auth,
    ban_propagation: d.ban_propagation,
    ban_propagation_to_addresses: d.ban_propagation_to_addresses,
    response_signing: d.response_signing,
    request_signing: d.request_signing,
    signature_window_seconds: num(d.signature_window_seconds),
    license_file_ttl_minutes: num(d.license_file_ttl_minutes),
    session_ttl_seconds: num(d.session_ttl_seconds),
    default_allowed_devices: num(d.default_allowed_devices),
    default_allowed_sessions: num(d.default_allowed_sessions),
    password_min_length: num(d.password_min_length),
    max_user_variables: num(d.max_user_variables),
    expiry_notice_days: num(d.expiry_notice_days),
    propagated_ip_ban_hours: d.propagated_ip_ban_hours.trim() === '' ? null : num(d.propagated_ip_ban_hours),
    device_reset_cooldown_hours: d.device_reset_cooldown_hours.trim() === '' ? null : num(d.device_reset_cooldown_hours),
    sign_ups_per_hour: d.sign_ups_per_hour.trim() === '' ? null : num(d.sign_ups_per_hour),
    heartbeat_seconds: d.heartbeat_seconds.trim() === '' ? null : num(d.heartbeat_seconds),
    refresh_ttl_days: d.refresh_ttl_days.trim() === '' ? null : num(d.refresh_ttl_days),
  };
}

export function SettingsFields({ draft, onChange }: { draft: SettingsDraft; onChange: (d: SettingsDraft) => void }) {
  const set =
    <K extends keyof SettingsDraft>(key: K) =>
    (value: SettingsDraft[K]) =>
      onChange({ ...draft, [key]: value });
  return (
    <div class="form-grid">
      <TextField label="Name" name="name" value={draft.name} onInput={set('name')} required />
      <fieldset class="checks">
        <legend>Access</legend>
        <CheckField
          label="Anonymous access"
          name="anonymous_access"
          checked={draft.anonymous_access}
          onChange={set('anonymous_access')}
          hint="Clients may read the application context without signing in."
        />
        <CheckField label="Device authentication" name="device_auth" checked={draft.device_auth} onChange={set('device_auth')} hint="Users sign in with a hardware id, within their device limit." />
        <CheckField label="Token authentication" name="token_auth" checked={draft.token_auth} onChange={set('token_auth')} hint="Login returns a session token." />
        <CheckField label="Legacy authentication" name="legacy_auth" checked={draft.legacy_auth} onChange={set('legacy_auth')} hint="Credentials in headers on every request." />
        <CheckField
          label="Ban propagation"
          name="ban_propagation"
          checked={draft.ban_propagation}
          onChange={set('ban_propagation')}
          hint="A request refused for a banned user, license or device also bans its proven user and licenses. A banned address passes nothing on."
        />
        <CheckField
          label="Propagate bans to addresses"
          name="ban_propagation_to_addresses"
          checked={draft.ban_propagation_to_addresses}
          onChange={set('ban_propagation_to_addresses')}
          hint="Propagation also bans the address the request came from, for everyone behind it (a campus or carrier NAT too)."
        />
      </fieldset>
      <TextField
        label="Session TTL (seconds)"
        name="session_ttl_seconds"
        type="number"
        min={30}
        max={2592000}
        value={draft.session_ttl_seconds}
        onInput={set('session_ttl_seconds')}
        hint="30 to 2,592,000"
      />
      <TextField label="Default allowed devices" name="default_allowed_devices" type="number" min={0} max={10000} value={draft.default_allowed_devices} onInput={set('default_allowed_devices')} />
      <TextField label="Default allowed sessions" name="default_allowed_sessions" type="number" min={1} max={10000} value={draft.default_allowed_sessions} onInput={set('default_allowed_sessions')} />
      <TextField
        label="Propagated IP bans last (hours)"
        name="propagated_ip_ban_hours"
        type="number"
        min={1}
        max={8760}
        value={draft.propagated_ip_ban_hours}
        onInput={set('propagated_ip_ban_hours')}
        hint="1 to 8,760; empty: until removed"
      />
      <TextField label="Minimum password length" name="password_min_length" type="number" min={8} max={64} value={draft.password_min_length} onInput={set('password_min_length')} />
      <TextField label="Variables per user" name="max_user_variables" type="number" min={0} max={1000} value={draft.max_user_variables} onInput={set('max_user_variables')} hint="0 to 1,000" />
      <TextField
        label="Device reset cooldown (hours)"
        name="device_reset_cooldown_hours"
        type="number"
        min={1}
        max={8760}
        value={draft.device_reset_cooldown_hours}
        onInput={set('device_reset_cooldown_hours')}
        hint="1 to 8,760; empty: users cannot reset their devices"
      />
      <TextField
        label="Sign-ups per hour"
        name="sign_ups_per_hour"
        type="number"
        min={1}
        max={100000000}
        value={draft.sign_ups_per_hour}
        onInput={set('sign_ups_per_hour')}
        hint="From every address together; empty: no limit (each address is still limited)"
      />
      <TextField
        label="Expiry notice (days)"
        name="expiry_notice_days"
        type="number"
        min={0}
        max={90}
        value={draft.expiry_notice_days}
        onInput={set('expiry_notice_days')}
        hint="0 to 90: membership.expiring is sent this many days before a membership ends; 0: never"
      />
      <TextField
        label="Heartbeat (seconds)"
        name="heartbeat_seconds"
        type="number"
        min={30}
        max={86400}
        value={draft.heartbeat_seconds}
        onInput={set('heartbeat_seconds')}
        hint="30 to 86,400: a session silent for twice this stops counting; empty: no heartbeats"
      />
      <TextField
        label="Refresh tokens last (days)"
        name="refresh_ttl_days"
        type="number"
        min={1}
        max={365}
        value={draft.refresh_ttl_days}
        onInput={set('refresh_ttl_days')}
        hint="1 to 365; empty: login issues no refresh tokens"
      />
      <fieldset class="checks">
        <legend>Signing</legend>
        <CheckField
          label="Sign responses"
          name="response_signing"
          checked={draft.response_signing}
          onChange={set('response_signing')}
          hint="Every answer to clients carries a signature they check with the public key."
        />
        <CheckField
          label="Require signed requests"
          name="request_signing"
          checked={draft.request_signing}
          onChange={set('request_signing')}
          hint="Clients sign every request with the request signing key."
        />
      </fieldset>
      <TextField
        label="Signature window (seconds)"
        name="signature_window_seconds"
        type="number"
        min={5}
        max={300}
        value={draft.signature_window_seconds}
        onInput={set('signature_window_seconds')}
        hint="5 to 300"
      />
      <TextField
        label="License files last (minutes)"
        name="license_file_ttl_minutes"
        type="number"
        min={60}
        max={525600}
        value={draft.license_file_ttl_minutes}
        onInput={set('license_file_ttl_minutes')}
        hint="60 to 525,600; never past the membership"
      />
    </div>
  );
}
