import { describe, expect, it } from 'vitest';
import { acceptDeviceInfo, deviceSeenUpdate, seenIsDue, type DeviceSighting } from '../../src/domain/device-info.js';
import { expectValidationError } from './expect-domain-error.js';

const T0 = Date.parse('2026-06-08T12:00:00.000Z');
const MINUTE = 60_000;

describe('acceptDeviceInfo', () => {
  it('takes only the fields given, trimmed; empty after trimming is null', () => {
    expect(acceptDeviceInfo(undefined)).toEqual({});
    expect(acceptDeviceInfo({})).toEqual({});
    expect(acceptDeviceInfo({ name: '  Laptop  ', app_version: '' })).toEqual({ name: 'Laptop', appVersion: null });
    expect(acceptDeviceInfo({ platform: ' \t ' })).toEqual({ platform: null });
  });

  it('refuses control characters, naming the field', () => {
    expectValidationError(() => acceptDeviceInfo({ name: 'a\u0000b' }), 'device.name');
    expectValidationError(() => acceptDeviceInfo({ name: 'a\nb' }), 'device.name');
    expectValidationError(() => acceptDeviceInfo({ platform: 'a\u007fb' }), 'device.platform');
    expectValidationError(() => acceptDeviceInfo({ app_version: 'a\u0085b' }), 'device.app_version');
    expectValidationError(() => acceptDeviceInfo({ name: 'a\u2028b' }), 'device.name');
  });

  it('bounds the lengths in characters after trimming: name 100, platform 50, app_version 50', () => {
    expect(acceptDeviceInfo({ name: ` ${'ß'.repeat(100)} ` }).name).toBe('ß'.repeat(100));
    expect(acceptDeviceInfo({ name: '😀'.repeat(100) }).name).toBe('😀'.repeat(100));
    expectValidationError(() => acceptDeviceInfo({ name: 'x'.repeat(101) }), 'device.name');
    expect(acceptDeviceInfo({ platform: 'p'.repeat(50), app_version: 'v'.repeat(50) })).toEqual({ platform: 'p'.repeat(50), appVersion: 'v'.repeat(50) });
    expectValidationError(() => acceptDeviceInfo({ platform: 'p'.repeat(51) }), 'device.platform');
    expectValidationError(() => acceptDeviceInfo({ app_version: 'v'.repeat(51) }), 'device.app_version');
  });
});

describe('the minute rule', () => {
  const stored: DeviceSighting = { name: 'Laptop', platform: null, appVersion: '1.0', lastSeenAt: T0, lastIp: '10.0.0.1' };

  it('seenIsDue: a minute or more after the stored sighting', () => {
    expect(seenIsDue(T0, T0)).toBe(false);
    expect(seenIsDue(T0, T0 + MINUTE - 1)).toBe(false);
    expect(seenIsDue(T0, T0 + MINUTE)).toBe(true);
    // A clock that went back writes nothing.
    expect(seenIsDue(T0, T0 - MINUTE)).toBe(false);
  });

  it('writes nothing within the minute when nothing new was said, whatever the address', () => {
    expect(deviceSeenUpdate(stored, {}, '10.0.0.1', T0 + MINUTE - 1)).toBeNull();
    expect(deviceSeenUpdate(stored, { name: 'Laptop', appVersion: '1.0' }, '10.0.0.2', T0 + 1)).toBeNull();
  });

  it('moves last_seen_at and last_ip once the minute is over', () => {
    expect(deviceSeenUpdate(stored, {}, '10.0.0.1', T0 + MINUTE)).toEqual({ lastSeenAt: T0 + MINUTE });
    expect(deviceSeenUpdate(stored, {}, '10.0.0.2', T0 + MINUTE)).toEqual({ lastSeenAt: T0 + MINUTE, lastIp: '10.0.0.2' });
    expect(deviceSeenUpdate(stored, {}, null, T0 + MINUTE)).toEqual({ lastSeenAt: T0 + MINUTE });
  });

  it('writes new fields at once, without moving last_seen_at inside the minute', () => {
    expect(deviceSeenUpdate(stored, { appVersion: '2.0', platform: null }, '10.0.0.3', T0 + 5)).toEqual({ appVersion: '2.0', lastIp: '10.0.0.3' });
    expect(deviceSeenUpdate(stored, { name: null }, '10.0.0.1', T0 + 2 * MINUTE)).toEqual({ name: null, lastSeenAt: T0 + 2 * MINUTE });
  });
});

describe('acceptDeviceInfo and broken text', () => {
  it('refuses a lone surrogate, as the wire does', () => {
    expectValidationError(() => acceptDeviceInfo({ name: 'a\ud800' }), 'device.name');
    expect(acceptDeviceInfo({ name: '😀' }).name).toBe('😀');
  });
});
