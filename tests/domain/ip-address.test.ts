import { describe, expect, it } from 'vitest';
import { canonicalIpAddress } from '../../src/domain/ip-address.js';
import { canonicalIp } from '../../src/application/console/bans.js';

describe('one spelling per address', () => {
  it('IPv4-mapped IPv6, dotted or hexadecimal, is the IPv4 address', () => {
    expect(canonicalIpAddress('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(canonicalIpAddress('::FFFF:10.1.2.3')).toBe('10.1.2.3');
    expect(canonicalIpAddress('::ffff:a01:203')).toBe('10.1.2.3');
    expect(canonicalIpAddress('10.1.2.3')).toBe('10.1.2.3');
    expect(canonicalIpAddress('2001:DB8::1')).toBe('2001:db8::1');
  });

  it('a ban typed in any notation lands on the spelling requests are checked in', () => {
    for (const typed of ['::ffff:10.1.2.3', '0:0:0:0:0:ffff:10.1.2.3', '::ffff:0a01:0203', '10.1.2.3']) expect(canonicalIp(typed)).toBe('10.1.2.3');
    expect(canonicalIp('2001:0DB8:0000::0001')).toBe('2001:db8::1');
    expect(canonicalIp('not an address')).toBeNull();
  });
});
