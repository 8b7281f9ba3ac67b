// An application's audit chain head as an owner exports it to keep elsewhere (docs/events.md,
// Anchoring the chain): signed with the application's Ed25519 response signing key, so anyone
// with its public key can check it, and `audit verify --anchor` can prove the tail was not cut.
import { createPublicKey, verify } from 'node:crypto';
import { responseKeyId } from './response-signature.js';

export const AUDIT_HEAD_FORMAT = 'gatehouse-audit-head-v1';

export interface SignedAuditHead {
  format: typeof AUDIT_HEAD_FORMAT;
  application_id: string;
  seq: number;
  hash: string;
  /** ISO 8601 UTC. */
  signed_at: string;
  /** responseKeyId of the public key that verifies it. */
  key_id: string;
  /** Base64 Ed25519 signature of auditHeadSigningText. */
  signature: string;
}

/** The bytes the signature covers: one field a line, in this order. */
export function auditHeadSigningText(h: Pick<SignedAuditHead, 'application_id' | 'seq' | 'hash' | 'signed_at'>): string {
  return [AUDIT_HEAD_FORMAT, h.application_id, String(h.seq), h.hash, h.signed_at].join('\n');
}

/** The exported head parsed from its JSON text, or null when it is not one. */
export function parseSignedAuditHead(text: string): SignedAuditHead | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  const h = v as Record<string, unknown>;
  const strings = ['application_id', 'hash', 'signed_at', 'key_id', 'signature'].every((k) => typeof h[k] === 'string');
  if (h['format'] !== AUDIT_HEAD_FORMAT || !strings || !Number.isSafeInteger(h['seq']) || (h['seq'] as number) < 1) return null;
  return h as unknown as SignedAuditHead;
}

/** Whether `head` was signed by the key whose base64 public half is `publicKey`. */
export function auditHeadSignedBy(head: SignedAuditHead, publicKey: string): boolean {
  if (head.key_id !== responseKeyId(publicKey)) return false;
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey, 'base64').toString('base64url') }, format: 'jwk' });
  try {
    return verify(null, Buffer.from(auditHeadSigningText(head), 'utf8'), key, Buffer.from(head.signature, 'base64'));
  } catch {
    return false;
  }
}
