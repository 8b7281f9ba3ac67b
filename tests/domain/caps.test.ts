import { describe, expect, it } from 'vitest';
import { capSources, effectiveCaps, type CapSources } from '../../src/domain/caps.js';

const defaults = { defaultAllowedDevices: 1, defaultAllowedSessions: 2 };
const noOverride = { allowedDevices: null, allowedSessions: null };

describe('effectiveCaps', () => {
  it("takes the application's defaults without an override or a plan", () => {
    expect(effectiveCaps({ user: noOverride, basePlan: null, defaults })).toEqual({ devices: 1, sessions: 2 });
  });

  it("takes the base plan's caps over the defaults; a null cap of the plan leaves the default", () => {
    expect(effectiveCaps({ user: noOverride, basePlan: { maxDevices: 3, maxSessions: 5 }, defaults })).toEqual({ devices: 3, sessions: 5 });
    expect(effectiveCaps({ user: noOverride, basePlan: { maxDevices: null, maxSessions: 5 }, defaults })).toEqual({ devices: 1, sessions: 5 });
    expect(effectiveCaps({ user: noOverride, basePlan: { maxDevices: 3, maxSessions: null }, defaults })).toEqual({ devices: 3, sessions: 2 });
  });

  it("takes the user's own override first, each cap on its own", () => {
    const basePlan = { maxDevices: 3, maxSessions: 5 };
    expect(effectiveCaps({ user: { allowedDevices: 7, allowedSessions: 9 }, basePlan, defaults })).toEqual({ devices: 7, sessions: 9 });
    expect(effectiveCaps({ user: { allowedDevices: 7, allowedSessions: null }, basePlan, defaults })).toEqual({ devices: 7, sessions: 5 });
    expect(effectiveCaps({ user: { allowedDevices: null, allowedSessions: 9 }, basePlan: null, defaults })).toEqual({ devices: 1, sessions: 9 });
  });

  it('a cap of 0 devices is a cap, not a missing value', () => {
    const zero: CapSources = { user: { allowedDevices: 0, allowedSessions: null }, basePlan: { maxDevices: 4, maxSessions: null }, defaults };
    expect(effectiveCaps(zero).devices).toBe(0);
    expect(effectiveCaps({ ...zero, user: noOverride, basePlan: { maxDevices: 0, maxSessions: null } }).devices).toBe(0);
  });
});

describe('capSources', () => {
  it('names the source effectiveCaps takes each cap from', () => {
    expect(capSources({ user: noOverride, basePlan: null })).toEqual({ devices: 'application', sessions: 'application' });
    expect(capSources({ user: noOverride, basePlan: { maxDevices: 0, maxSessions: null } })).toEqual({ devices: 'plan', sessions: 'application' });
    expect(capSources({ user: { allowedDevices: 2, allowedSessions: null }, basePlan: { maxDevices: 3, maxSessions: 4 } })).toEqual({ devices: 'user', sessions: 'plan' });
  });
});
