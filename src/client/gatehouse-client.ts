// The client SDK (`gatehouse/client`, docs/sdk.md): sign-up, login, the application context, licenses
// and downloads over the integration API, answers verified against pinned keys. Node 20+, built-in
// fetch, no runtime dependency beyond node:stream, node:crypto and the package's own modules.
import { Readable, pipeline } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createDecryptStream, createFormatCheckStream, KEY_LENGTH } from '../file-format/encrypted-file.js';
import { pinnedEd25519Keys } from '../signing/ed25519.js';
import type { LicenseFileClaims } from '../signing/license-file.js';
import { errorFromResponse, LoginRequiredError, NotFoundError, RefreshRefusedError, SessionExpiredError } from './errors.js';
import { refreshTokenFile, type RefreshTokenStore } from './refresh-token-store.js';
import { fetchAnswer, unreachable } from './reachability.js';
import { createOfflineLicense, type LicenseFileVerifyOptions, type OfflineLicense } from './offline-license.js';
import { heartbeatTimer, type HeartbeatOptions } from './heartbeat-timer.js';
import { createRequestSigner, type RequestSigner } from './request-signer.js';
import { createResponseVerifier, type ResponseVerifier } from './response-verifier.js';
import { signedTimeState, type SignedTimeState } from './signed-time-state.js';
import type {
  Activation,
  AppContext,
  DeviceInfo,
  DeviceReset,
  IssuedLicenseFile,
  Lease,
  LoginCredentials,
  OfflineAppContext,
  OwnDevice,
  RefreshedSession,
  Session,
  UserSummary,
  UserVariable,
} from './types.js';

export * from './errors.js';
export type * from './types.js';
export type { LicenseFileVerifyOptions } from './offline-license.js';
export type { HeartbeatOptions, HeartbeatSchedule } from './heartbeat-timer.js';
export { refreshTokenFile, type RefreshTokenStore } from './refresh-token-store.js';
export { EncryptedFileError } from '../file-format/encrypted-file.js';
export { LicenseFileError, type LicenseFileFailure } from '../signing/license-file.js';

export type GatehouseClientOptions = ConnectionOptions & ResponseSigningOptions & LicenseFileOptions;

/** Offline license files (docs/sdk.md, "Offline license files in the SDK"). Both paths are the caller's
 * choice: somewhere the user can write and the application can read again after a restart. */
export interface LicenseFileOptions {
  /** Keeps the newest signed server time seen (answers and license files), so that a clock set back
   * behind it is refused across restarts; in memory only without it. */
  stateFile?: string;
  /** Where requestLicenseFile() keeps the file and appContext({offlineFallback: true}) reads it. */
  licenseFile?: string;
}

export interface ConnectionOptions {
  /** Where the server answers, e.g. https://gatehouse.example.com (no /api suffix). */
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  /** The application's files_encryption_key (base64, as the console shows it, or its 32 bytes). */
  filesEncryptionKey?: string | Uint8Array;
  /** This device's identifier; required when the application has device authentication on. */
  hardwareId?: string;
  /** What this machine is, sent beside `hardwareId` on login and sign-up (the user sees it in devices()). */
  device?: DeviceInfo;
  /** The application's request_signing_key (base64 of 32 bytes, as the console shows it once): every
   * request is then signed with it, as an application with request_signing on requires. */
  requestSigningKey?: string;
  /** Where `login(credentials, {remember: true})` keeps the refresh token, and only it (docs/sdk.md,
   * "Staying signed in"): a file path (created with mode 0600) or a store of the caller's. */
  refreshTokenStore?: string | RefreshTokenStore;
}

/** Pinning (docs/sdk.md, "Verifying answers"): the application's `response_signing_public_key` (several
 * during a rotation) and its `applicationId`, which the signatures bind. With them every answer must be
 * signed for the very request sent (SignatureError otherwise); without them answers are taken on trust. */
export type ResponseSigningOptions = { responseSigningPublicKeys: string | readonly string[]; applicationId: string } | { responseSigningPublicKeys?: undefined; applicationId?: string };

const INTEGRATION = '/api/integration';

const variablePath = (name: string) => `/user_variables/${encodeURIComponent(name)}`;

interface SendOptions {
  /** The session token to send, if any. */
  token?: string | null | undefined;
  /** A body to send as JSON. */
  json?: unknown;
  /** The answer is a file download: with pinned keys, signed by the file's digest and checked as it streams. */
  download?: boolean;
}

/** An answer, and the server time it was signed at (ms) when keys are pinned; null otherwise. */
interface Answer {
  response: Response;
  signedAt: number | null;
}

/** The verifier of the pinned keys, or null when the client pins none. */
function verifierOf(options: GatehouseClientOptions): ResponseVerifier | null {
  if (options.responseSigningPublicKeys === undefined) return null;
  if (typeof options.applicationId !== 'string' || options.applicationId === '') {
    throw new TypeError('responseSigningPublicKeys needs applicationId: the signatures bind the application id');
  }
  return createResponseVerifier(options.responseSigningPublicKeys, options.applicationId);
}

/** The error_code of a refusal, read from a copy so that the answer itself stays unread. */
async function errorCodeOf(response: Response): Promise<string> {
  return (await errorFromResponse(response.clone())).code;
}

/** The files encryption key's 32 bytes, from its base64 (as the console shows it) or the bytes. */
export function filesKeyBytes(key: string | Uint8Array): Buffer {
  const bytes = typeof key === 'string' ? Buffer.from(key, 'base64') : Buffer.from(key);
  if (bytes.length !== KEY_LENGTH) throw new RangeError(`filesEncryptionKey must be ${KEY_LENGTH} bytes (base64 of 32 bytes)`);
  return bytes;
}

export class GatehouseClient {
  private readonly baseUrl: string;
  private readonly appHeaders: Record<string, string>;
  private readonly filesKey: Buffer | null;
  private readonly hardwareId: string | undefined;
  private readonly deviceInfo: DeviceInfo | undefined;
  private token: string | null = null;
  /** The credentials of the last successful login, kept to log in again when the session expires. */
  private credentials: LoginCredentials | null = null;
  /** One renewal at a time: parallel requests that meet SESSION_EXPIRED share it. */
  private renewal: Promise<unknown> | null = null;
  private context: AppContext | null = null;
  /** The entitlements of the last signed answer or verified license file that told them; [] before any. */
  private held: readonly string[] = [];
  /** The server's time (ms) when `context` was answered: its signed x-timestamp when keys are pinned. */
  private contextServerTime = 0;
  /** performance.now() when `context` arrived: a monotonic clock, immune to device clock changes. */
  private contextAt = 0;
  /** Checks every answer when response signing keys are pinned; null: answers are taken on trust. */
  private readonly verifier: ResponseVerifier | null;
  /** Signs every request when the client has the request signing key; null: requests go unsigned. */
  private readonly signer: RequestSigner | null;
  /** The newest signed server time seen (answers and license files), kept for the license file clock check. */
  private readonly signedTime: SignedTimeState;
  /** License files, verified against the pinned keys; null when the client pins none. */
  private readonly offlineLicense: OfflineLicense | null;
  /** The running heartbeat, if any (startHeartbeat). */
  private beating: { stop(): void } | null = null;
  /** Keeps a remembered login's refresh token; null without the option. */
  private readonly refreshTokens: RefreshTokenStore | null;

  constructor(options: GatehouseClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.appHeaders = { 'x-api-key': options.apiKey, 'x-api-secret': options.apiSecret };
    this.filesKey = options.filesEncryptionKey === undefined ? null : filesKeyBytes(options.filesEncryptionKey);
    this.hardwareId = options.hardwareId;
    this.deviceInfo = options.device;
    this.verifier = verifierOf(options);
    this.signer = options.requestSigningKey === undefined ? null : createRequestSigner(options.requestSigningKey);
    this.signedTime = signedTimeState(options.stateFile);
    const kept = options.refreshTokenStore;
    this.refreshTokens = kept === undefined ? null : typeof kept === 'string' ? refreshTokenFile(kept) : kept;
    this.offlineLicense =
      options.responseSigningPublicKeys === undefined
        ? null
        : createOfflineLicense(
            pinnedEd25519Keys(options.responseSigningPublicKeys, 'responseSigningPublicKeys'),
            // verifierOf has required it beside the keys.
            options.applicationId ?? '',
            options.hardwareId,
            this.signedTime,
            options.licenseFile,
          );
  }

  /** The session token in use, or null before login and after logout. */
  get sessionToken(): string | null {
    return this.token;
  }

  /** The application context last read by appContext() (or by downloadFile), or null. */
  get lastAppContext(): AppContext | null {
    return this.context;
  }

  /** The user's entitlements (sorted codes) as the last login, application context, activation or
   * verified license file told them; [] before any (docs/sdk.md, "Entitlements"). */
  get entitlements(): readonly string[] {
    return this.held;
  }

  /** Whether `code` is among the user's entitlements (see `entitlements`). */
  hasEntitlement(code: string): boolean {
    return this.held.includes(code);
  }

  /** Creates a username-and-password user (membership inactive until a license is activated);
   * `options.device` says what this machine is, instead of the client's `device` option. */
  signUp(username: string, password: string, options: { device?: DeviceInfo } = {}): Promise<UserSummary> {
    return this.json<UserSummary>('POST', '/sign_up', { username, password, ...this.machine(options.device) });
  }

  /** Creates a user from a license code; the answer holds the generated username. */
  signUpWithLicense(code: string, options: { device?: DeviceInfo } = {}): Promise<UserSummary> {
    return this.json<UserSummary>('POST', '/sign_up_with_license_code', { code, ...this.machine(options.device) });
  }

  /** Opens a session with `{username, password}` or the `{code}` the user signed up with. The credentials
   * are kept in memory so that an expired session is renewed by itself. With `remember` (and the
   * refreshTokenStore option), only the refresh token is kept, in the store, and renews instead. */
  async login(credentials: LoginCredentials, options: { device?: DeviceInfo; remember?: boolean } = {}): Promise<Session> {
    const remember = options.remember === true;
    if (remember && this.refreshTokens === null) throw new TypeError('login with remember needs the refreshTokenStore option');
    const session = await this.json<Session>('POST', '/auth/login', { credentials, ...this.machine(options.device), ...(remember ? { remember } : {}) });
    this.token = session.session_token;
    this.held = session.membership.entitlements;
    const refreshToken = remember ? session.refresh_token : undefined;
    // The application may issue no refresh tokens: then the credentials renew, as without remember.
    this.credentials = refreshToken === undefined ? credentials : null;
    if (refreshToken !== undefined) await this.refreshTokens?.save(refreshToken);
    return session;
  }

  /** Opens a session with the refresh token the store keeps (a client started again with only its
   * file); null when none is kept. A refused token is forgotten: RefreshRefusedError, log in again. */
  async resume(): Promise<RefreshedSession | null> {
    const kept = (await this.refreshTokens?.load()) ?? null;
    return kept === null ? null : this.refreshWith(kept);
  }

  private async refreshWith(kept: string): Promise<RefreshedSession> {
    const { response } = await this.send('POST', '/auth/refresh', { json: { refresh_token: kept, ...this.device() } });
    if (!response.ok) {
      const error = await errorFromResponse(response);
      if (error instanceof RefreshRefusedError) await this.refreshTokens?.clear();
      throw error;
    }
    const session = (await response.json()) as RefreshedSession;
    // Kept before anything else: the token presented is spent now.
    await this.refreshTokens?.save(session.refresh_token);
    this.token = session.session_token;
    this.held = session.membership.entitlements;
    return session;
  }

  /** Ends the session and forgets the credentials. An already expired session counts as ended. */
  async logout(): Promise<void> {
    this.stopHeartbeat();
    const token = this.token;
    this.token = null;
    this.credentials = null;
    this.held = [];
    await this.refreshTokens?.clear();
    if (token === null) return;
    const { response } = await this.send('POST', '/auth/logout', { token });
    if (response.ok) return;
    const error = await errorFromResponse(response);
    if (!(error instanceof SessionExpiredError)) throw error;
  }

  /** One heartbeat of the current session: its lease moves on (docs/sdk.md, "Heartbeats"). A
   * lapsed lease is not renewed by logging in again: it throws SessionExpiredError. */
  async heartbeat(): Promise<Lease> {
    const token = this.token;
    if (token === null) throw new LoginRequiredError(401, 'LOGIN_REQUIRED', 'log in before heartbeating');
    const { response } = await this.send('POST', '/heartbeat', { token, json: this.device() });
    if (!response.ok) throw await errorFromResponse(response);
    return (await response.json()) as Lease;
  }

  /** Beats once now (its refusal is thrown), then on a timer at half the lease the server answers,
   * until logout() or stopHeartbeat(); a later refusal stops it and goes to `onLeaseLost`. */
  async startHeartbeat(options: HeartbeatOptions = {}): Promise<Lease> {
    this.stopHeartbeat();
    const first = await this.heartbeat();
    this.beating = heartbeatTimer(() => this.heartbeat(), first, options);
    return first;
  }

  /** Stops the heartbeat timer, if one runs; the session stays open until its lease lapses. */
  stopHeartbeat(): void {
    this.beating?.stop();
    this.beating = null;
  }

  /** Reads the application context (as the logged-in user when there is one) and keeps it for
   * remainingTime(). With `offlineFallback`, an unreachable server makes it verify the stored license
   * file instead (docs/sdk.md, "Offline license files in the SDK"). */
  appContext(): Promise<AppContext>;
  appContext(options: { offlineFallback: boolean }): Promise<AppContext | OfflineAppContext>;
  async appContext(options: { offlineFallback?: boolean } = {}): Promise<AppContext | OfflineAppContext> {
    try {
      return await this.onlineContext();
    } catch (error) {
      if (options.offlineFallback !== true || !unreachable(error)) throw error;
      const offline = await this.licenses().fallback(error);
      if (offline === null) throw error;
      this.held = offline.license.entitlements;
      return offline;
    }
  }

  /** Asks the server for an offline license file for this machine as the logged-in user, verifies it
   * and keeps it where the option `licenseFile` says. Needs pinned keys. */
  async requestLicenseFile(): Promise<IssuedLicenseFile & { claims: LicenseFileClaims }> {
    const licenses = this.licenses();
    const { response } = await this.authenticated('POST', '/license_file', { json: this.device() });
    const issued = (await response.json()) as IssuedLicenseFile;
    const claims = await licenses.verify(issued.license_file);
    await licenses.store(issued.license_file);
    this.held = claims.entitlements;
    return { ...issued, claims };
  }

  /** Verifies a license file offline: signed by a pinned key, for this application, bound to this
   * machine (or `hardwareId`), the clock not behind the newest signed time seen, not expired. Its
   * claims, or a LicenseFileError saying which check failed. Needs pinned keys. */
  async verifyLicenseFile(text: string, options: LicenseFileVerifyOptions = {}): Promise<LicenseFileClaims> {
    const claims = await this.licenses().verify(text, options);
    this.held = claims.entitlements;
    return claims;
  }

  private licenses(): OfflineLicense {
    if (this.offlineLicense === null) throw new TypeError('license files need responseSigningPublicKeys and applicationId: a file is only as good as the key it is checked with');
    return this.offlineLicense;
  }

  private async onlineContext(): Promise<AppContext> {
    const { response, signedAt } = await this.authenticated('GET', '/app_context');
    const context = (await response.json()) as AppContext;
    this.context = context;
    if (context.user !== null) this.held = context.user.membership.entitlements;
    this.contextServerTime = signedAt ?? Date.parse(context.server_time);
    this.contextAt = performance.now();
    return context;
  }

  /** Adds a license to a username-and-password user's membership. Without `credentials`, those of the
   * current password login are used. */
  async activateLicense(code: string, credentials?: { username: string; password: string }): Promise<Activation> {
    const who = credentials ?? this.passwordLogin();
    if (who === null) throw new TypeError('activateLicense needs a username and password: pass them, or log in with them first');
    const activation = await this.json<Activation>('POST', '/activate_license', { code, username: who.username, password: who.password, ...this.device() });
    this.held = activation.membership.entitlements;
    return activation;
  }

  /** The logged-in user's variables, by name (docs/api.md, User variables). */
  async listUserVariables(): Promise<UserVariable[]> {
    return (await (await this.authenticated('GET', '/user_variables')).response.json()) as UserVariable[];
  }

  /** One variable of the logged-in user, or null when they have none of that name. */
  async getUserVariable(name: string): Promise<UserVariable | null> {
    try {
      return (await (await this.authenticated('GET', variablePath(name))).response.json()) as UserVariable;
    } catch (e) {
      if (e instanceof NotFoundError && e.code === 'VARIABLE_NOT_FOUND') return null;
      throw e;
    }
  }

  /** Creates or replaces a variable of the logged-in user (text up to 64 KiB; at most the application's max_user_variables). */
  async setUserVariable(name: string, value: string): Promise<UserVariable> {
    return (await (await this.authenticated('PUT', variablePath(name), { json: { value } })).response.json()) as UserVariable;
  }

  /** Deletes a variable of the logged-in user (NotFoundError VARIABLE_NOT_FOUND when there is none). */
  async deleteUserVariable(name: string): Promise<void> {
    await this.authenticated('DELETE', variablePath(name));
  }

  /** The logged-in user's devices, first registered first; `current` marks this machine. */
  async devices(): Promise<OwnDevice[]> {
    return (await (await this.authenticated('GET', '/devices')).response.json()) as OwnDevice[];
  }

  /** Drops one of the user's devices: its sessions and refresh tokens end at once. Counted by the
   * reset cooldown (ResetCooldownError); NotFoundError DEVICE_NOT_FOUND for a device not the user's. */
  async dropDevice(deviceId: string): Promise<void> {
    await this.authenticated('DELETE', `/devices/${encodeURIComponent(deviceId)}`);
  }

  /** Changes a username-and-password user's password (without `credentials`, the current password
   * login's). Every session of the user ends; the client keeps the new password, so its next request
   * logs in again by itself. */
  async changePassword(newPassword: string, credentials?: { username: string; password: string }): Promise<void> {
    const who = credentials ?? this.passwordLogin();
    if (who === null) throw new TypeError('changePassword needs a username and password: pass them, or log in with them first');
    const { response } = await this.send('POST', '/change_password', { json: { username: who.username, password: who.password, new_password: newPassword } });
    if (!response.ok) throw await errorFromResponse(response);
    this.token = null;
    if (this.credentials !== null && 'username' in this.credentials && this.credentials.username === who.username) {
      this.credentials = { username: who.username, password: newPassword };
    }
  }

  /** Unregisters every device of the user and ends their sessions (ResetCooldownError inside the
   * cooldown). Takes full credentials, never the session alone: without `credentials`, those of the
   * current login. The client's next request logs in again. */
  async resetDevices(credentials?: LoginCredentials): Promise<DeviceReset> {
    const who = credentials ?? this.credentials;
    if (who === null) throw new TypeError('resetDevices needs credentials: pass them, or log in first');
    const reset = await this.json<DeviceReset>('POST', '/reset_devices', who);
    this.token = null;
    return reset;
  }

  /** Starts the application's trial for the user on the machine `hardwareId`, once per user and per
   * machine (TrialRefusedError: TRIAL_NOT_OFFERED, TRIAL_USED, TRIAL_NOT_ELIGIBLE). Takes full
   * credentials, as a user without a membership has no session: without `credentials`, the last login's. */
  async startTrial(hardwareId: string, credentials?: LoginCredentials): Promise<UserSummary> {
    const who = credentials ?? this.credentials;
    if (who === null) throw new TypeError('startTrial needs credentials: pass them, or log in first');
    return this.json<UserSummary>('POST', '/start_trial', { credentials: who, hardware_id: hardwareId });
  }

  /** The file's bytes as a Node stream, an encrypted file decrypted on the fly when the client has the
   * key. The stream errors (EncryptedFileError, or SignatureError with pinned keys) on tampered or cut
   * bytes: keep its output only once it has ended without error (docs/sdk.md, "Downloads"). */
  async downloadFile(fileId: string): Promise<Readable> {
    const encrypted = await this.isEncrypted(fileId);
    const { response } = await this.authenticated('GET', `/files/${encodeURIComponent(fileId)}/download`, { download: true });
    const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
    if (!encrypted) return body;
    const check = this.filesKey === null ? createFormatCheckStream() : createDecryptStream(this.filesKey);
    // pipeline destroys every stream with the first error, so the returned end reports it.
    pipeline(body, check, () => {});
    return check;
  }

  /** Milliseconds of membership left by the last application context, on the server's clock and the
   * monotonic time since (never the device's wall clock). Infinity for lifetime access, 0 once expired,
   * null with no context, user or granted time (docs/sdk.md, "remainingTime()"). */
  remainingTime(): number | null {
    const membership = this.context?.user?.membership;
    if (membership === undefined || this.context === null) return null;
    if (membership.is_lifetime) return Number.POSITIVE_INFINITY;
    if (membership.active_until === null) return null;
    const serverNow = this.contextServerTime + (performance.now() - this.contextAt);
    return Math.max(0, Date.parse(membership.active_until) - serverNow);
  }

  /** Whether the context lists the file as encrypted; reads the context again when it does not list the file. */
  private async isEncrypted(fileId: string): Promise<boolean> {
    const listed = () => this.context?.application.files.find((f) => f.id === fileId);
    const file = listed() ?? (await this.appContext(), listed());
    // Not listed even now: the server will answer the download with 404 FILE_NOT_FOUND.
    return file?.is_encrypted ?? false;
  }

  private url(path: string): string {
    return `${this.baseUrl}${INTEGRATION}${path}`;
  }

  private device(): { hardware_id?: string } {
    return this.hardwareId === undefined ? {} : { hardware_id: this.hardwareId };
  }

  /** The machine as login and sign-up give it: its hardware id and what it is. */
  private machine(info = this.deviceInfo): { hardware_id?: string; device?: DeviceInfo } {
    return { ...this.device(), ...(info === undefined ? {} : { device: info }) };
  }

  private async json<T>(method: string, path: string, body: unknown): Promise<T> {
    const { response } = await this.send(method, path, { json: body });
    if (!response.ok) throw await errorFromResponse(response);
    return (await response.json()) as T;
  }

  /** The credentials of the current login when they are a username and password. */
  private passwordLogin(): { username: string; password: string } | null {
    return this.credentials !== null && 'password' in this.credentials ? this.credentials : null;
  }

  /** A request as the current user; on SESSION_EXPIRED (or no session yet while credentials are kept),
   * logs in again once and retries once. */
  private async authenticated(method: string, path: string, options: Omit<SendOptions, 'token'> = {}): Promise<Answer> {
    const token = this.token;
    const first = await this.send(method, path, { ...options, token });
    if (first.response.ok) return first;
    const error = await errorFromResponse(first.response);
    const renewable = error instanceof SessionExpiredError || (token === null && error.code === 'LOGIN_REQUIRED');
    if (!renewable || !(await this.renew(token))) throw error;
    const second = await this.send(method, path, { ...options, token: this.token });
    if (second.response.ok) return second;
    throw await errorFromResponse(second.response);
  }

  /** One request to the integration API, signed with the request signing key and verified against
   * pinned keys when the client has them. Refused SIGNATURE_EXPIRED on a clock the answer shows off, it
   * is signed again on the server's time and sent once more: a refused request did nothing. */
  private async send(method: string, path: string, options: SendOptions): Promise<Answer> {
    const answer = await this.sendOnce(method, path, options);
    if (this.signer === null) return answer;
    // With pinned keys only an answer that verified gets here: its x-timestamp is the server's.
    const movedClock = this.signer.observeServerTime(answer.response.headers);
    if (!movedClock || answer.response.status !== 401 || (await errorCodeOf(answer.response)) !== 'SIGNATURE_EXPIRED') return answer;
    const again = await this.sendOnce(method, path, options);
    this.signer.observeServerTime(again.response.headers);
    return again;
  }

  private async sendOnce(method: string, path: string, options: SendOptions): Promise<Answer> {
    const url = new URL(this.url(path));
    const pathAndQuery = `${url.pathname}${url.search}`;
    const headers: Record<string, string> = { ...this.appHeaders };
    if (typeof options.token === 'string') headers['authorization'] = `Bearer ${options.token}`;
    // The body is serialized once: the bytes signed are the bytes sent.
    const body = options.json === undefined ? undefined : Buffer.from(JSON.stringify(options.json), 'utf8');
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.signer !== null) Object.assign(headers, this.signer.sign({ method, pathAndQuery, headers, ...(body === undefined ? {} : { body }) }));
    const init = { method, headers, ...(body === undefined ? {} : { body }) };
    if (this.verifier === null) return { response: await fetchAnswer(url, init), signedAt: null };
    // A signed request carries its own nonce, which the answer's signature binds as well.
    const nonce = headers['x-nonce'] ?? this.verifier.newNonce();
    headers['x-nonce'] = nonce;
    const response = await fetchAnswer(url, init);
    const sent = { method, pathAndQuery, nonce, requestSignature: headers['x-signature'] ?? '' };
    const answer = options.download === true ? await this.verifier.download(sent, response) : await this.verifier.whole(sent, response);
    // A verified x-timestamp is the server's time: the clock may not be set back behind it.
    await this.signedTime.observe(Math.floor(answer.signedAt / 1000));
    return answer;
  }

  /** Logs in again with the kept credentials, or refreshes with the kept refresh token, unless another
   * request already replaced `expired`; false when there is nothing to renew with. One at a time: a
   * refresh token presented twice would revoke its family (docs/machines.md, "Refresh tokens"). */
  private async renew(expired: string | null): Promise<boolean> {
    if (this.token !== expired) return true;
    const credentials = this.credentials;
    this.renewal ??= (async () => {
      if (credentials !== null) return this.login(credentials);
      const kept = (await this.refreshTokens?.load()) ?? null;
      return kept === null ? null : this.refreshWith(kept);
    })().finally(() => {
      this.renewal = null;
    });
    return (await this.renewal) !== null;
  }
}
