import { describe, expect, it } from 'vitest';
import { reserveSignUp, SIGN_UP_WINDOW_MS, signUpGivenBack } from '../../src/domain/sign-up-limits.js';
import { expectDomainError } from './expect-domain-error.js';

const NOW = Date.UTC(2026, 5, 8, 12, 0, 0);

describe('sign-up limits', () => {
  it("count sign-ups in an hour's window and refuse past the limit until it ends", () => {
    let c = null as ReturnType<typeof reserveSignUp> | null;
    for (let i = 0; i < 3; i++) c = reserveSignUp(c, 'address', 3, NOW + i * 1000);
    expect(c).toEqual({ windowStart: NOW, failures: 3 });
    const error = expectDomainError(() => reserveSignUp(c, 'address', 3, NOW + 60_000), 'RATE_LIMITED');
    expect(error.details.retryAfterSeconds).toBe((SIGN_UP_WINDOW_MS - 60_000) / 1000);
    expect(error.message).toMatch(/from this address/);
    expect(expectDomainError(() => reserveSignUp(c, 'application', 3, NOW), 'RATE_LIMITED').message).toMatch(/on this application/);
    expect(reserveSignUp(c, 'address', 3, NOW + SIGN_UP_WINDOW_MS)).toEqual({ windowStart: NOW + SIGN_UP_WINDOW_MS, failures: 1 });
  });

  it('a failed sign-up gives its count back', () => {
    expect(signUpGivenBack({ windowStart: NOW, failures: 2 }, NOW + 1)).toEqual({ windowStart: NOW, failures: 1 });
    expect(signUpGivenBack(null, NOW)).toEqual({ windowStart: NOW, failures: 0 });
  });
});
