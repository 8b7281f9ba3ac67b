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
