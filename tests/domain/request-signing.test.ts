import { describe, expect, it } from 'vitest';
import { nonceHeldUntil, parseSignedTimestamp, previousKeyStillAccepted, withinSignatureWindow } from '../../src/domain/request-signing.js';

const NOW = 1_780_920_000_500;
const SECONDS = 1_780_920_000;

describe('request signing rules', () => {
  it('a timestamp is Unix seconds written as digits only', () => {
    expect(parseSignedTimestamp('1780920000')).toBe(SECONDS);
    expect(parseSignedTimestamp('0')).toBe(0);
    for (const text of ['', '-1', '+1', '1.0', '1e9', ' 1', '0x10', '1'.repeat(13)]) expect(parseSignedTimestamp(text), text).toBeNull();
  });

  it('a timestamp is within the window either way of the server clock, in whole seconds', () => {
    expect(withinSignatureWindow(SECONDS - 10, NOW, 10)).toBe(true);
    expect(withinSignatureWindow(SECONDS + 10, NOW, 10)).toBe(true);
    expect(withinSignatureWindow(SECONDS - 11, NOW, 10)).toBe(false);
    expect(withinSignatureWindow(SECONDS + 11, NOW, 10)).toBe(false);
  });

  it('the previous key counts for the window after its replacement, not at its end', () => {
    expect(previousKeyStillAccepted(NOW - 9_999, NOW, 10)).toBe(true);
    expect(previousKeyStillAccepted(NOW - 10_000, NOW, 10)).toBe(false);
  });

  it('a nonce is held for the largest window and a second past the later of the server time and the signed time', () => {
    expect(nonceHeldUntil(NOW, SECONDS - 5)).toBe(NOW + 301_000);
    expect(nonceHeldUntil(NOW, SECONDS + 10)).toBe((SECONDS + 10) * 1000 + 301_000);
  });

  it('a nonce is held through the last millisecond its timestamp is acceptable at the largest window', () => {
    const signedAt = SECONDS * 1000;
    const lastAccepted = (SECONDS + 300) * 1000 + 999;
    expect(withinSignatureWindow(SECONDS, lastAccepted, 300)).toBe(true);
    expect(nonceHeldUntil(signedAt, SECONDS)).toBeGreaterThan(lastAccepted);
  });
});
