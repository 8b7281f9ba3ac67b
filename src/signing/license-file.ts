// Offline license files (docs/signing.md, Offline license files): the claims, the envelope and
// the bytes signed, and their verification. Pure and node-only, like response-signature.ts: the
// server signs what this module builds, and the SDK and the CLI verify with it.
import { createHash } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { ed25519Verifies } from './ed25519.js';

export const LICENSE_FILE_CONTEXT = 'gatehouse-license-v1';
export const LICENSE_FILE_BEGIN = '-----BEGIN GATEHOUSE LICENSE FILE-----';
export const LICENSE_FILE_END = '-----END GATEHOUSE LICENSE FILE-----';

/** The signed claims, as the payload's JSON carries them. Times are Unix seconds. */
export interface LicenseFileClaims {
  /** The application id. */
  app: string;
  /** The user id. */
  sub: string;
  username: string;
  /** Hex SHA-256 of `<application id>:<hardware id>`; null when the application has no device auth. */
  hwid_sha256: string | null;
  membership: {
    is_lifetime: boolean;
    /** The membership's end in Unix seconds; null while lifetime. */
    active_until: number | null;
  };
  /** The user's entitlements when the file was issued, sorted; [] in files issued before they existed. */
  entitlements: string[];
  /** The membership's base plan when the file was issued; null without one (and in older files). */
  plan: { id: string; name: string } | null;
  iat: number;
  exp: number;
  jti: string;
}

/** The JSON the armour holds. */
export interface LicenseFileEnvelope {
  v: 1;
  alg: 'ed25519';
  /** The response signing key's id (first 16 hex digits of the SHA-256 of the raw public key). */
  kid: string;
  /** base64url of the claims' JSON. */
  payload: string;
  /** base64url of the Ed25519 signature of licenseFileSigningText(kid, payload). */
  sig: string;
}

/** The hardware binding of the claims: hex SHA-256 of `<application id>:<hardware id>`. */
export const hardwareIdDigest = (applicationId: string, hardwareId: string): string => createHash('sha256').update(`${applicationId}:${hardwareId}`, 'utf8').digest('hex');

/** The claims' payload: base64url of their JSON. */
export const licenseFilePayload = (claims: LicenseFileClaims): string => Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');

/** The text signed (sign and verify its UTF-8 bytes). */
export const licenseFileSigningText = (kid: string, payload: string): string => `${LICENSE_FILE_CONTEXT}\n${kid}\n${payload}`;

/** The file as written: the armour lines around the base64 of the envelope's JSON, ending in a newline. */
export function licenseFileText(kid: string, payload: string, signatureBase64: string): string {
  const envelope: LicenseFileEnvelope = { v: 1, alg: 'ed25519', kid, payload, sig: Buffer.from(signatureBase64, 'base64').toString('base64url') };
  return `${LICENSE_FILE_BEGIN}\n${Buffer.from(JSON.stringify(envelope), 'utf8').toString('base64')}\n${LICENSE_FILE_END}\n`;
}

/** Why a license file is refused: MALFORMED when it is not one at all, else the first check it fails
 * (docs/signing.md, "Verifying a license file", lists each). */
export type LicenseFileFailure = 'MALFORMED' | 'SIGNATURE_INVALID' | 'OTHER_APPLICATION' | 'OTHER_MACHINE' | 'CLOCK_ROLLED_BACK' | 'EXPIRED';

export class LicenseFileError extends Error {
  constructor(
    readonly code: LicenseFileFailure,
    message: string,
  ) {
    super(message);
    this.name = 'LicenseFileError';
  }
}

const malformed = (what: string) => new LicenseFileError('MALFORMED', `not a Gatehouse license file: ${what}`);
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const KEY_ID = /^[0-9a-f]{16}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

const isBase64url = (text: string) => BASE64URL.test(text) && Buffer.from(text, 'base64url').toString('base64url') === text;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isSeconds = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 256;

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw malformed(`${what} is not JSON`);
  }
}

function claimsOf(value: unknown): LicenseFileClaims {
  if (!isRecord(value)) throw malformed('the payload is not a JSON object');
  const { app, sub, username, hwid_sha256: hwid, membership, iat, exp, jti, entitlements = [], plan = null } = value;
  if (!isText(app) || !isText(sub) || !isText(username) || !isText(jti)) throw malformed('app, sub, username and jti must be strings');
  const hwidSha256 = hwid === null ? null : typeof hwid === 'string' && SHA256_HEX.test(hwid) ? hwid : undefined;
  if (hwidSha256 === undefined) throw malformed('hwid_sha256 must be 64 hex digits or null');
  const isLifetime = isRecord(membership) ? membership['is_lifetime'] : undefined;
  const activeUntil = isRecord(membership) ? membership['active_until'] : undefined;
  if (typeof isLifetime !== 'boolean' || !(activeUntil === null || isSeconds(activeUntil))) throw malformed('membership must be {is_lifetime, active_until}');
  if (!isSeconds(iat) || !isSeconds(exp)) throw malformed('iat and exp must be Unix seconds');
  if (!Array.isArray(entitlements) || !entitlements.every(isText)) throw malformed('entitlements must be an array of strings');
  if (!(plan === null || (isRecord(plan) && isText(plan['id']) && isText(plan['name'])))) throw malformed('plan must be {id, name} or null');
  const planClaim = plan === null ? null : { id: plan['id'] as string, name: plan['name'] as string };
  return {
    app,
    sub,
    username,
    hwid_sha256: hwidSha256,
    membership: { is_lifetime: isLifetime, active_until: activeUntil },
    entitlements: [...entitlements] as string[],
    plan: planClaim,
    iat,
    exp,
    jti,
  };
}

/** A license file read but not yet verified: its envelope and the claims it says it carries. */
export interface ReadLicenseFile {
  envelope: LicenseFileEnvelope;
  claims: LicenseFileClaims;
}

/** Reads the armour, the envelope and the claims; MALFORMED when any is not as documented. Checks nothing else. */
export function readLicenseFile(text: string): ReadLicenseFile {
  if (typeof text !== 'string' || text.length > 64 * 1024) throw malformed('too long');
  const trimmed = text.trim();
  if (!trimmed.startsWith(LICENSE_FILE_BEGIN) || !trimmed.endsWith(LICENSE_FILE_END)) throw malformed('the BEGIN and END lines are missing');
  const body = trimmed.slice(LICENSE_FILE_BEGIN.length, trimmed.length - LICENSE_FILE_END.length).replace(/\s+/g, '');
  const envelopeBytes = Buffer.from(body, 'base64');
  // Canonical encodings only: a file has one spelling, so no altered text passes for the same file.
  if (!BASE64.test(body) || envelopeBytes.toString('base64') !== body) throw malformed('the armoured text is not canonical base64');
  const envelope = parseJson(envelopeBytes.toString('utf8'), 'the envelope');
  if (!isRecord(envelope) || envelope['v'] !== 1 || envelope['alg'] !== 'ed25519') throw malformed('the envelope is not version 1, ed25519');
  const { kid, payload, sig } = envelope;
  if (typeof kid !== 'string' || !KEY_ID.test(kid)) throw malformed('kid must be 16 hex digits');
  if (typeof payload !== 'string' || !isBase64url(payload) || typeof sig !== 'string' || !isBase64url(sig)) throw malformed('payload and sig must be canonical base64url');
  const claims = claimsOf(parseJson(Buffer.from(payload, 'base64url').toString('utf8'), 'the payload'));
  return { envelope: { v: 1, alg: 'ed25519', kid, payload, sig }, claims };
}

/** How far a clock may run behind a signed time already seen before it counts as rolled back (docs/signing.md). */
export const CLOCK_TOLERANCE_SECONDS = 300;

export interface LicenseFileCheck {
  /** The pinned response signing keys, by key id (ed25519.ts, pinnedEd25519Keys). */
  keys: ReadonlyMap<string, KeyObject>;
  /** The application the file must be for; null to report it without checking (the CLI without --application-id). */
  applicationId: string | null;
  /** This machine's hardware id; null or undefined when the client has none. */
  hardwareId?: string | null | undefined;
  /** The local clock, Unix seconds. */
  now: number;
  /** The newest signed time seen before (Unix seconds), 0 when none. */
  newestSignedTime?: number;
  clockToleranceSeconds?: number;
}

/** The claims of a file that verifies, or LicenseFileError: the signature by a pinned key first
 * (nothing unsigned is looked at), then the application, the machine, the clock and expiry
 * (docs/signing.md, "Verifying a license file"). */
export function verifyLicenseFile(text: string, check: LicenseFileCheck): LicenseFileClaims {
  const { envelope, claims } = readLicenseFile(text);
  const key = check.keys.get(envelope.kid);
  const signed = Buffer.from(licenseFileSigningText(envelope.kid, envelope.payload), 'utf8');
  if (key === undefined || !ed25519Verifies(key, signed, Buffer.from(envelope.sig, 'base64url'))) {
    throw new LicenseFileError('SIGNATURE_INVALID', `no pinned key verifies this license file (its kid is ${envelope.kid})`);
  }
  if (check.applicationId !== null && claims.app !== check.applicationId) {
    throw new LicenseFileError('OTHER_APPLICATION', `the license file is for the application ${claims.app}, not ${check.applicationId}`);
  }
  if (claims.hwid_sha256 !== null) {
    const hardwareId = check.hardwareId ?? null;
    if (hardwareId === null || hardwareIdDigest(claims.app, hardwareId) !== claims.hwid_sha256) {
      throw new LicenseFileError('OTHER_MACHINE', 'the license file is bound to another machine');
    }
  }
  const newest = Math.max(check.newestSignedTime ?? 0, claims.iat);
  if (check.now < newest - (check.clockToleranceSeconds ?? CLOCK_TOLERANCE_SECONDS)) {
    throw new LicenseFileError('CLOCK_ROLLED_BACK', `the clock (${check.now}) is behind a signed time already seen (${newest})`);
  }
  if (check.now >= claims.exp) throw new LicenseFileError('EXPIRED', `the license file expired at ${new Date(claims.exp * 1000).toISOString()}`);
  return claims;
}
