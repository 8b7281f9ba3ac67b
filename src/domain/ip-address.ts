/** One spelling per address, so that a ban, a throttle counter and a recorded address match however
 * the address was written (docs/choices.md, "Client addresses", gives the spellings). Anything else is
 * not an address, and parses to null. */
export function parseIpAddress(raw: string): string | null {
  const text = raw.trim();
  if (text.length === 0 || text.length > 64) return null;
  const v4 = ipv4Octets(text);
  if (v4 !== null) return v4.join('.');
  // A zone (fe80::1%eth0) names the link of a link-local address; it is kept as written.
  const percent = text.indexOf('%');
  const zone = percent >= 0 ? text.slice(percent) : '';
  if (percent >= 0 && !/^%[0-9A-Za-z._~-]{1,32}$/.test(zone)) return null;
  const groups = ipv6Groups(percent >= 0 ? text.slice(0, percent) : text);
  if (groups === null) return null;
  if (zone === '' && groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const high = groups[6] ?? 0;
    const low = groups[7] ?? 0;
    return [high >> 8, high & 255, low >> 8, low & 255].join('.');
  }
  return formatIpv6(groups) + zone;
}

/** Four decimal octets without leading zeros (010 reads as octal to some parsers: refused). */
export function ipv4Octets(text: string): number[] | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const octets: number[] = [];
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    octets.push(n);
  }
  return octets;
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail counts as the last two). */
export function ipv6Groups(text: string): number[] | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (half: string, last: boolean): number[] | null => {
    if (half === '') return [];
    const fields = half.split(':');
    const groups: number[] = [];
    for (const [i, field] of fields.entries()) {
      if (last && i === fields.length - 1 && field.includes('.')) {
        const v4 = ipv4Octets(field);
        if (v4 === null) return null;
        groups.push(((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0));
      } else {
        if (!/^[0-9A-Fa-f]{1,4}$/.test(field)) return null;
        groups.push(parseInt(field, 16));
      }
    }
    return groups;
  };
  if (halves.length === 1) {
    const all = parse(text, true);
    return all !== null && all.length === 8 ? all : null;
  }
  const head = parse(halves[0] ?? '', false);
  const tail = parse(halves[1] ?? '', true);
  if (head === null || tail === null || head.length + tail.length > 7) return null;
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

/** RFC 5952, section 4: lower-case hex, no leading zeros, the first longest zero run (2+) as ::. */
function formatIpv6(groups: number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i += 1;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j += 1;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/** The unit an address is counted under by the throttle and the sign-up limits: IPv4 itself, IPv6 by
 * its /64 (one subscriber's network hands out a whole /64, so counting single addresses would count
 * nothing). Anything else is its own unit. */
export function addressBucket(ip: string): string {
  if (!ip.includes(':')) return ip;
  const groups = ipv6Groups(ip);
  if (groups === null) return ip;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The network of an address for an account's lock from one place: an IPv4 /24 or an IPv6 /48 (what
 * one holder of addresses commonly has), so its addresses share one allowance of guesses. Takes an
 * address or its addressBucket; anything else is its own network. */
export function networkBucket(ip: string): string {
  const v4 = ipv4Octets(ip);
  if (v4 !== null) return `${v4.slice(0, 3).join('.')}.0/24`;
  const groups = ipv6Groups(ip.replace(/\/64$/, ''));
  if (groups === null) return ip;
  return `${groups
    .slice(0, 3)
    .map((g) => g.toString(16))
    .join(':')}::/48`;
}
