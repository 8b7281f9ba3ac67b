// The Ed25519 keys that sign integration responses (docs/api.md, Response signing).
import type { LicenseFileGrant, ResponseSigningKey } from '../records.js';

export interface ResponseSigningKeys {
  /** A new key pair, its private half sealed under the master key. */
  generate(): ResponseSigningKey;
  /** The base64 Ed25519 signature of `message` (UTF-8) under the key's private half; asynchronous,
   * so that an adapter may sign off the event loop (every integration answer is signed). */
  sign(key: ResponseSigningKey, message: string): Promise<string>;
  /** The text of an offline license file granting `grant`, signed under the key (docs/signing.md). */
  signLicenseFile(key: ResponseSigningKey, grant: LicenseFileGrant): Promise<string>;
}
