/**
 * One spelling per address, so that a ban matches however the connection was accepted: an IPv4
 * client on a dual-stack listener arrives as ::ffff:a.b.c.d and is the same client as a.b.c.d.
 * Takes an address already in compressed, lower-case form (as sockets report it); the mapped
 * prefix in hexadecimal (::ffff:102:304) is recognised too.
 */
export function canonicalIpAddress(ip: string): string {
  const lower = ip.toLowerCase();
  const dotted = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(lower);
  if (dotted?.[1]) return dotted[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex?.[1] && hex[2]) {
    const high = parseInt(hex[1], 16);
    const low = parseInt(hex[2], 16);
    return [high >> 8, high & 255, low >> 8, low & 255].join('.');
  }
  return lower;
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted quad included), or null. */
function ipv6Groups(ip: string): number[] | null {
  let text = ip.toLowerCase();
  const quad = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(2).map(Number) as [number, number, number, number];
    if ([a, b, c, d].some((n) => n > 255)) return null;
    text = `${quad[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const part = (s: string | undefined) => (s ? s.split(':') : []);
  const head = part(halves[0]);
  const tail = part(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 1 ? 0 : missing).fill('0'), ...tail];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.map((g) => parseInt(g, 16));
}

/**
 * The unit an address is counted under by the throttle and the sign-up limits: an IPv4 address
 * itself, an IPv6 address by its /64 (one subscriber's network hands out a whole /64, so counting
 * single addresses would count nothing). Anything else is its own unit.
 */
export function addressBucket(ip: string): string {
  if (!ip.includes(':')) return ip;
  const groups = ipv6Groups(ip);
  if (groups === null) return ip;
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`;
}
