/**
 * One spelling per address, so that a ban matches however the connection was accepted: an IPv4
 * client on a dual-stack listener arrives as ::ffff:a.b.c.d and is the same client as a.b.c.d.
 */
export function canonicalIpAddress(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  return mapped?.[1] ?? ip.toLowerCase();
}
