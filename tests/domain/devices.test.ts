import { describe, expect, it } from 'vitest';
import { admitDevice, deviceToAdmit, requireHardwareId, type RegisteredDevice } from '../../src/domain/devices.js';
import { expectDomainError } from './expect-domain-error.js';

const devices = (n: number): RegisteredDevice[] => Array.from({ length: n }, (_, i) => ({ id: `dev-${i}`, hardwareId: `hw-${i}` }));

describe('admitDevice', () => {
  it('a known hardware id passes with its device id', () => {
    expect(admitDevice(devices(3), [], 'hw-1', 3)).toEqual({ kind: 'known', deviceId: 'dev-1' });
  });

  it('a known hardware id passes even when the user is at or above the limit', () => {
    expect(admitDevice(devices(2), [], 'hw-0', 1)).toEqual({ kind: 'known', deviceId: 'dev-0' });
    expect(admitDevice(devices(1), [], 'hw-0', 0)).toEqual({ kind: 'known', deviceId: 'dev-0' });
  });

  it('matches hardware ids exactly (case-sensitive)', () => {
    expect(admitDevice(devices(1), [], 'HW-0', 2)).toEqual({ kind: 'register' });
  });

  it('allowed 0: no new device can ever register', () => {
    expectDomainError(() => admitDevice([], [], 'hw-new', 0), 'DEVICE_LIMIT_REACHED');
  });

  it('allowed 1: the first device registers, a second is refused', () => {
    expect(admitDevice([], [], 'hw-0', 1)).toEqual({ kind: 'register' });
    expectDomainError(() => admitDevice(devices(1), [], 'hw-new', 1), 'DEVICE_LIMIT_REACHED');
  });

  it('allowed n: registers while fewer than n, refused at n', () => {
    const n = 5;
    for (let have = 0; have < n; have++) expect(admitDevice(devices(have), [], 'hw-new', n)).toEqual({ kind: 'register' });
    expectDomainError(() => admitDevice(devices(n), [], 'hw-new', n), 'DEVICE_LIMIT_REACHED');
  });

  it('refused above the limit (limit lowered after registration)', () => {
    expectDomainError(() => admitDevice(devices(4), [], 'hw-new', 2), 'DEVICE_LIMIT_REACHED');
  });

  it('registration transition: after registering, the same hardware id is known', () => {
    const registered = devices(0);
    const first = admitDevice(registered, [], 'hw-a', 2);
    expect(first.kind).toBe('register');
    registered.push({ id: 'dev-a', hardwareId: 'hw-a' });
    expect(admitDevice(registered, [], 'hw-a', 2)).toEqual({ kind: 'known', deviceId: 'dev-a' });
    expect(admitDevice(registered, [], 'hw-b', 2)).toEqual({ kind: 'register' });
    registered.push({ id: 'dev-b', hardwareId: 'hw-b' });
    expectDomainError(() => admitDevice(registered, [], 'hw-c', 2), 'DEVICE_LIMIT_REACHED');
    // Unregistering a device (owner action) makes room again.
    registered.shift();
    expect(admitDevice(registered, [], 'hw-c', 2)).toEqual({ kind: 'register' });
  });

  it('a hardware id holding an unexpired license file keeps its slot after its device is gone', () => {
    // One slot: machine A's file holds it though A's device row was reset away.
    expectDomainError(() => admitDevice([], ['hw-a'], 'hw-b', 1), 'DEVICE_LIMIT_REACHED');
    // A itself may register again: it is the machine already counted.
    expect(admitDevice([], ['hw-a'], 'hw-a', 1)).toEqual({ kind: 'register' });
  });

  it('a machine that is both registered and holds files counts once', () => {
    const registered = [{ id: 'dev-a', hardwareId: 'hw-a' }];
    expect(admitDevice(registered, ['hw-a', 'hw-a'], 'hw-b', 2)).toEqual({ kind: 'register' });
    expectDomainError(() => admitDevice(registered, ['hw-a', 'hw-c'], 'hw-b', 2), 'DEVICE_LIMIT_REACHED');
  });
});

describe('requireHardwareId', () => {
  it('device auth on: a hardware id is required', () => {
    expect(requireHardwareId(true, 'hw-1')).toBe('hw-1');
    expectDomainError(() => requireHardwareId(true, undefined), 'DEVICE_REQUIRED');
    expectDomainError(() => requireHardwareId(true, null), 'DEVICE_REQUIRED');
    expectDomainError(() => requireHardwareId(true, ''), 'DEVICE_REQUIRED');
  });

  it('device auth off: a sent hardware id is kept, a missing one is null', () => {
    expect(requireHardwareId(false, 'hw-1')).toBe('hw-1');
    expect(requireHardwareId(false, undefined)).toBeNull();
    expect(requireHardwareId(false, null)).toBeNull();
  });

  it('device auth off: an empty hardware id counts as none, as it does with device auth on', () => {
    expect(requireHardwareId(false, '')).toBeNull();
  });
});

describe('deviceToAdmit', () => {
  const counting = () => {
    let drawn = 0;
    return { next: () => `dev-new-${++drawn}`, drawn: () => drawn };
  };

  it('device auth on with a hardware id: the device, under the user cap, with one new id drawn', () => {
    const ids = counting();
    expect(deviceToAdmit(true, 'hw-1', 3, ids.next)).toEqual({ hardwareId: 'hw-1', allowed: 3, newDeviceId: 'dev-new-1' });
    expect(ids.drawn()).toBe(1);
  });

  it('device auth off, or no hardware id: no device, and no id drawn', () => {
    const ids = counting();
    expect(deviceToAdmit(false, 'hw-1', 3, ids.next)).toBeNull();
    expect(deviceToAdmit(true, null, 3, ids.next)).toBeNull();
    expect(deviceToAdmit(false, null, 3, ids.next)).toBeNull();
    expect(ids.drawn()).toBe(0);
  });
});
