/**
 * The Gatehouse client SDK for client applications (`gatehouse/client`): sign-up, login, the
 * application context, license activation and file downloads over the integration API, with
 * encrypted files decrypted as they stream and, when the application's keys are pinned, every
 * answer verified against them. Node 20+, built-in fetch, no runtime dependency: only
 * node:stream, node:crypto and the package's own decryptor and signing module.
 */
import { Readable, pipeline } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createDecryptStream, createFormatCheckStream, KEY_LENGTH } from '../file-format/encrypted-file.js';
import { pinnedEd25519Keys } from '../signing/ed25519.js';
import type { LicenseFileClaims } from '../signing/license-file.js';
import { errorFromResponse, NotFoundError, SessionExpiredError } from './errors.js';
import { fetchAnswer, unreachable } from './reachability.js';
import { createOfflineLicense, type LicenseFileVerifyOptions, type OfflineLicense } from './offline-license.js';
import { createRequestSigner, type RequestSigner } from './request-signer.js';
import { createResponseVerifier, type ResponseVerifier } from './response-verifier.js';
import { signedTimeState, type SignedTimeState } from './signed-time-state.js';
import type { Adjustment, AppContext, DeviceReset, IssuedLicenseFile, LoginCredentials, OfflineAppContext, Session, UserSummary, UserVariable } from './types.js';

export * from './errors.js';
export type * from './types.js';
export type { LicenseFileVerifyOptions } from './offline-license.js';
export { EncryptedFileError } from '../file-format/encrypted-file.js';
export { LicenseFileError, type LicenseFileFailure } from '../signing/license-file.js';

export type GatehouseClientOptions = ConnectionOptions & ResponseSigningOptions & LicenseFileOptions;

/**
 * Offline license files (docs/sdk.md, Client SDK, Offline license files). Both paths are the caller's
 * choice: somewhere the user can write and the application can read again after a restart.
 */
export interface LicenseFileOptions {
  /**
   * The state file keeping the newest signed server time seen (from answers and license files), so
   * that a clock set back behind it is refused across restarts; in memory only without it.
   */
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
  /**
   * The application's request_signing_key (base64 of 32 bytes, as the console shows it once):
   * every request is then signed with it, as an application with request_signing on requires.
   */
  requestSigningKey?: string;
}

/**
 * Pinning: `responseSigningPublicKeys` is the application's `response_signing_public_key` (base64),
 * or several during a rotation, and `applicationId` its id, which the signatures bind. With them,
 * every answer must be signed by a pinned key for the very request sent, or the call fails with
 * SignatureError; without them, answers are taken on trust.
 */
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
  private token: string | null = null;
  /** The credentials of the last successful login, kept to log in again when the session expires. */
  private credentials: LoginCredentials | null = null;
  /** One renewal at a time: parallel requests that meet SESSION_EXPIRED share it. */
  private renewal: Promise<unknown> | null = null;
  private context: AppContext | null = null;
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

  constructor(options: GatehouseClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.appHeaders = { 'x-api-key': options.apiKey, 'x-api-secret': options.apiSecret };
    this.filesKey = options.filesEncryptionKey === undefined ? null : filesKeyBytes(options.filesEncryptionKey);
    this.hardwareId = options.hardwareId;
    this.verifier = verifierOf(options);
    this.signer = options.requestSigningKey === undefined ? null : createRequestSigner(options.requestSigningKey);
    this.signedTime = signedTimeState(options.stateFile);
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

  /** Creates a username-and-password user (membership inactive until a license is activated). */
  signUp(username: string, password: string): Promise<UserSummary> {
    return this.json<UserSummary>('POST', '/sign_up', { username, password, ...this.device() });
  }

  /** Creates a user from a license code; the answer holds the generated username. */
  signUpWithLicense(code: string): Promise<UserSummary> {
    return this.json<UserSummary>('POST', '/sign_up_with_license_code', { code, ...this.device() });
  }

  /**
   * Opens a session, with `{username, password}` or with the `{code}` the user signed up with.
   * The credentials are kept in memory so that an expired session is renewed by itself.
   */
  async login(credentials: LoginCredentials): Promise<Session> {
    const session = await this.json<Session>('POST', '/auth/login', { credentials, ...this.device() });
    this.token = session.session_token;
    this.credentials = credentials;
    return session;
  }

  /** Ends the session and forgets the credentials. An already expired session counts as ended. */
  async logout(): Promise<void> {
    const token = this.token;
    this.token = null;
    this.credentials = null;
    if (token === null) return;
    const { response } = await this.send('POST', '/auth/logout', { token });
    if (response.ok) return;
    const error = await errorFromResponse(response);
    if (!(error instanceof SessionExpiredError)) throw error;
  }

  /**
   * Reads the application context (as the logged-in user when there is one) and keeps it for
   * remainingTime(). With `offlineFallback`, when the server cannot be reached (no connection, or
   * a 502, 503 or 504 answer), the stored license file (option `licenseFile`) is verified instead
   * and an OfflineAppContext (`offline: true`) returned; a file that does not verify throws its
   * LicenseFileError, and without a stored file the connection's error is thrown.
   */
  appContext(): Promise<AppContext>;
  appContext(options: { offlineFallback: boolean }): Promise<AppContext | OfflineAppContext>;
  async appContext(options: { offlineFallback?: boolean } = {}): Promise<AppContext | OfflineAppContext> {
    try {
      return await this.onlineContext();
    } catch (error) {
      if (options.offlineFallback !== true || !unreachable(error)) throw error;
      const offline = await this.licenses().fallback(error);
      if (offline === null) throw error;
      return offline;
    }
  }

  /**
   * Asks the server for an offline license file for this machine (the logged-in user's; the
   * server applies login's rules and counts the machine against the device cap), verifies it
   * and keeps it where the option `licenseFile` says. Needs pinned keys.
   */
  async requestLicenseFile(): Promise<IssuedLicenseFile & { claims: LicenseFileClaims }> {
    const licenses = this.licenses();
    const { response } = await this.authenticated('POST', '/license_file', { json: this.device() });
    const issued = (await response.json()) as IssuedLicenseFile;
    const claims = await licenses.verify(issued.license_file);
    await licenses.store(issued.license_file);
    return { ...issued, claims };
  }

  /**
   * Verifies a license file offline: signed by a pinned key, for this application, bound to this
   * machine (or `hardwareId`), the clock not behind the newest signed time seen, not expired.
   * Its claims, or a LicenseFileError saying which check failed. Needs pinned keys.
   */
  async verifyLicenseFile(text: string, options: LicenseFileVerifyOptions = {}): Promise<LicenseFileClaims> {
    return this.licenses().verify(text, options);
  }

  private licenses(): OfflineLicense {
    if (this.offlineLicense === null) throw new TypeError('license files need responseSigningPublicKeys and applicationId: a file is only as good as the key it is checked with');
    return this.offlineLicense;
  }

  private async onlineContext(): Promise<AppContext> {
    const { response, signedAt } = await this.authenticated('GET', '/app_context');
    const context = (await response.json()) as AppContext;
    this.context = context;
    this.contextServerTime = signedAt ?? Date.parse(context.server_time);
    this.contextAt = performance.now();
    return context;
  }

  /**
   * Adds a license to a username-and-password user's membership. Without `credentials`, those of
   * the current password login are used.
   */
  async activateLicense(code: string, credentials?: { username: string; password: string }): Promise<Adjustment> {
    const who = credentials ?? this.passwordLogin();
    if (who === null) throw new TypeError('activateLicense needs a username and password: pass them, or log in with them first');
    return this.json<Adjustment>('POST', '/activate_license', { code, username: who.username, password: who.password, ...this.device() });
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

  /**
   * Changes a username-and-password user's password. Without `credentials`, those of the current
   * password login are used. Every session of the user ends; the client keeps the new password,
   * so its next request logs in again by itself.
   */
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

  /**
   * Unregisters every device of the user and ends their sessions, where the application allows it
   * (ResetCooldownError inside its cooldown). Takes full credentials, never the session alone:
   * without `credentials`, those of the current login. The client's next request logs in again.
   */
  async resetDevices(credentials?: LoginCredentials): Promise<DeviceReset> {
    const who = credentials ?? this.credentials;
    if (who === null) throw new TypeError('resetDevices needs credentials: pass them, or log in first');
    const reset = await this.json<DeviceReset>('POST', '/reset_devices', who);
    this.token = null;
    return reset;
  }

  /**
   * The file's bytes as a Node stream. An encrypted file (`is_encrypted` in the application
   * context) is decrypted on the fly when the client has the files encryption key; the stream
   * then errors with an EncryptedFileError if the file was tampered with or cut short, so write
   * to a temporary file and keep it only once the stream has ended without error. Without the
   * key, an encrypted file comes as stored, and the stream errors with an EncryptedFileError
   * (NOT_ENCRYPTED_FILE) if the bytes are not in the encrypted format at all: where the context
   * says encrypted, unencrypted bytes are refused either way. With pinned keys, the answer's
   * signature is checked before this resolves, and the stream errors with a SignatureError
   * (CONTENT_MISMATCH) at its end when the bytes are not those of the signed x-content-sha256.
   */
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

  /**
   * Milliseconds of membership left according to the last application context, counted on the
   * server's clock: `active_until` less the server's time of that answer (its signed x-timestamp
   * when keys are pinned, its `server_time` otherwise), less the time elapsed since that answer
   * on the monotonic clock (never the device's wall clock). Infinity for lifetime access, 0 once
   * expired, null when there is no context yet, no user in it (anonymous) or no time was ever
   * granted.
   */
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

  private async json<T>(method: string, path: string, body: unknown): Promise<T> {
    const { response } = await this.send(method, path, { json: body });
    if (!response.ok) throw await errorFromResponse(response);
    return (await response.json()) as T;
  }

  /** The credentials of the current login when they are a username and password. */
  private passwordLogin(): { username: string; password: string } | null {
    return this.credentials !== null && 'password' in this.credentials ? this.credentials : null;
  }

  /**
   * A request as the current user; on SESSION_EXPIRED (or no session yet while credentials are
   * kept), logs in again once and retries once.
   */
  private async authenticated(method: string, path: string, options: Omit<SendOptions, 'token'> = {}): Promise<Answer> {
    const token = this.token;
    const first = await this.send(method, path, { ...options, token });
    if (first.response.ok) return first;
    const error = await errorFromResponse(first.response);
    const renewable = error instanceof SessionExpiredError || (token === null && error.code === 'LOGIN_REQUIRED');
    if (!renewable || this.credentials === null) throw error;
    await this.renew(token);
    const second = await this.send(method, path, { ...options, token: this.token });
    if (second.response.ok) return second;
    throw await errorFromResponse(second.response);
  }

  /**
   * One request to the integration API. With pinned keys it carries a fresh x-nonce and its answer
   * is verified (SignatureError otherwise) before anything reads it. With the request signing key
   * it is signed; refused as SIGNATURE_EXPIRED while the client still went by a clock the answer
   * shows to be off, it is signed again on the server's time and sent once more (a refused
   * request did nothing on the server, so sending it again is safe for a POST too).
   */
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

  /** Logs in again with the kept credentials, unless another request already replaced `expired`. */
  private async renew(expired: string | null): Promise<void> {
    if (this.token !== expired) return;
    const credentials = this.credentials as LoginCredentials;
    this.renewal ??= this.login(credentials).finally(() => {
      this.renewal = null;
    });
    await this.renewal;
  }
}
