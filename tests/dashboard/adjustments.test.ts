import { describe, expect, it } from 'vitest';
import { adjustmentBody } from '../../src/adapters/dashboard/src/adjustments.js';

describe('dashboard bulk adjustment bodies', () => {
  it('extends and reduces by minutes (negative to reduce)', () => {
    expect(adjustmentBody('extend', 1440, false, '')).toEqual({ minutes: 1440 });
    expect(adjustmentBody('reduce', 60, false, ' late payment ')).toEqual({ minutes: -60, reason: 'late payment' });
  });

  it('may revoke lifetime along with minutes, which the API allows', () => {
    expect(adjustmentBody('extend', 30, true, '')).toEqual({ minutes: 30, revoke_lifetime: true });
  });

  it('grants lifetime without minutes, and never with a revoke', () => {
    expect(adjustmentBody('grant', 1440, true, 'vip')).toEqual({ grant_lifetime: true, reason: 'vip' });
  });

  it('revokes lifetime alone', () => {
    expect(adjustmentBody('revoke', 1440, true, '')).toEqual({ revoke_lifetime: true });
  });
});
