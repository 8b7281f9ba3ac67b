/** Issuing secrets and keeping them out of the database in plain text. */
export interface Secrets {
  /** `prefix` + at least 128 random bits, URL-safe. */
  issue(prefix: string): string;
  randomBytes(n: number): Uint8Array;
  /** Keyed digest (HMAC under a key derived from the master key), hex. */
  digest(secret: string): string;
  /** Constant-time equality of two digests. */
  sameDigest(a: string, b: string): boolean;
  /** The CSRF token of a browser session: a MAC of its console token under a key of its own, so it
   * proves the caller could read the session's answers without being the cookie itself. */
  csrfToken(consoleToken: string): string;
  /** Authenticated encryption under the master key; the result is text. */
  seal(plain: string): string;
  open(sealed: string): string;
}
