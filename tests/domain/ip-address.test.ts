import { describe, expect, it } from 'vitest';
import { addressBucket, canonicalIpAddress } from '../../src/domain/ip-address.js';
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

describe('addressBucket', () => {
  it('counts IPv4 by address and IPv6 by /64, however the address is written', () => {
    expect(addressBucket('203.0.113.7')).toBe('203.0.113.7');
    expect(addressBucket('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:0db8:0001:0002:0000:0000:0000:0001')).toBe('2001:db8:1:2::/64');
    expect(addressBucket('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressBucket('::1')).toBe('0:0:0:0::/64');
    expect(addressBucket('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
    expect(addressBucket('2001:db8:1:3::1')).not.toBe(addressBucket('2001:db8:1:2::1'));
  });

  it('leaves what is not an address as it is', () => {
    for (const odd of ['cli', '1:2:3', '1::2::3', 'g::1', '1:2:3:4:5:6:7:8:9']) expect(addressBucket(odd)).toBe(odd);
  });
});
