import fc from 'fast-check';
import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { addressBucket, networkBucket, parseIpAddress } from '../../src/domain/ip-address.js';

describe('one spelling per address', () => {
  it('IPv4-mapped IPv6, dotted or hexadecimal, compressed or not, is the IPv4 address', () => {
    for (const spelling of ['::ffff:10.1.2.3', '::FFFF:10.1.2.3', '::ffff:a01:203', '::ffff:0a01:0203', '0:0:0:0:0:ffff:10.1.2.3', '0000:0:0::FFFF:a01:203', '10.1.2.3', ' 10.1.2.3 ']) {
      expect(parseIpAddress(spelling), spelling).toBe('10.1.2.3');
    }
  });

  it('IPv6 comes out in the RFC 5952 form', () => {
    expect(parseIpAddress('2001:DB8::1')).toBe('2001:db8::1');
    expect(parseIpAddress('2001:0DB8:0000::0001')).toBe('2001:db8::1');
    expect(parseIpAddress('0:0:0:0:0:0:0:1')).toBe('::1');
    expect(parseIpAddress('::')).toBe('::');
    // The first of two equally long zero runs; a single zero group is not compressed.
    expect(parseIpAddress('2001:db8:0:0:1:0:0:1')).toBe('2001:db8::1:0:0:1');
    expect(parseIpAddress('2001:db8:0:1:1:1:1:1')).toBe('2001:db8:0:1:1:1:1:1');
    expect(parseIpAddress('1:0:0:2:0:0:0:3')).toBe('1:0:0:2::3');
    // Other embedded IPv4 forms stay IPv6.
    expect(parseIpAddress('64:ff9b::1.2.3.4')).toBe('64:ff9b::102:304');
    expect(parseIpAddress('fe80::1%eth0')).toBe('fe80::1%eth0');
  });

  it('anything that is not an address is null', () => {
    for (const junk of [
      '',
      'not an address',
      'unknown',
      '1.2.3',
      '1.2.3.4.5',
      '1.2.3.256',
      '01.2.3.4',
      '1.2.3.-1',
      '1:2:3:4:5:6:7',
      '1:2:3:4:5:6:7:8:9',
      '1::2::3',
      ':::',
      ':1::',
      '::g',
      '12345::',
      '1.2.3.4::',
      '::1.2.3',
      'fe80::1%',
      'fe80::1%a b',
      '1.2.3.4%eth0',
    ]) {
      expect(parseIpAddress(junk), junk).toBeNull();
    }
  });

  it('agrees with the platform parser on what is an address, and on the form of any IPv6 address', () => {
    const group = fc.integer({ min: 0, max: 0xffff });
    // Eight groups, written with random leading zeros, random case and maybe one compressed zero run.
    const spelled = fc.tuple(fc.array(group, { minLength: 8, maxLength: 8 }), fc.array(fc.boolean(), { minLength: 16, maxLength: 16 }), fc.nat(8), fc.nat(8));
    fc.assert(
      fc.property(spelled, ([groups, flips, from, length]) => {
        const fields = groups.map((g, i) => {
          const hex = flips[i] ? g.toString(16).padStart(4, '0') : g.toString(16);
          return flips[i + 8] ? hex.toUpperCase() : hex;
        });
        const end = Math.min(8, from + length);
        const zeroRun = length >= 1 && from < 8 && groups.slice(from, end).every((g) => g === 0);
        const text = zeroRun ? `${fields.slice(0, from).join(':')}::${fields.slice(end).join(':')}` : fields.join(':');
        expect(isIP(text)).toBe(6);
        // The URL parser writes IPv6 hosts in the RFC 5952 form too (and an IPv4 tail in hex).
        const viaUrl = new URL(`http://[${text}]/`).hostname.slice(1, -1);
        const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
        const expected = mapped ? [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join('.') : viaUrl;
        expect(parseIpAddress(text)).toBe(expected);
      }),
      { seed: 12, numRuns: 2000 },
    );
    fc.assert(
      // Strings of the characters addresses are made of, and arbitrary ones.
      fc.property(fc.oneof(fc.string({ unit: fc.constantFrom('0', '1', '2', '5', '9', 'a', 'F', 'f', ':', ':', '.'), maxLength: 40 }), fc.string({ maxLength: 40 })), (text) => {
        expect(parseIpAddress(text) !== null).toBe(isIP(text.trim()) !== 0 && !text.includes('%'));
      }),
      { seed: 12, numRuns: 20000 },
    );
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

describe('networkBucket', () => {
  it('an IPv4 address by its /24, an IPv6 address (or its /64 bucket) by its /48, anything else as itself', () => {
    expect(networkBucket('203.0.113.7')).toBe('203.0.113.0/24');
    expect(networkBucket('203.0.113.250')).toBe('203.0.113.0/24');
    expect(networkBucket('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1::/48');
    expect(networkBucket(addressBucket('2001:db8:1:ffff::9'))).toBe('2001:db8:1::/48');
    expect(networkBucket('unknown')).toBe('unknown');
  });
});
