// The HMACs of signed integration requests (docs/api.md, Request signing).

export interface RequestSignatures {
  /** Whether `signature` (an x-signature header as sent) is exactly the one `base` has under the
   * sealed request signing key, compared in constant time. */
  matches(sealedKey: string, base: string, signature: string): boolean;
}
