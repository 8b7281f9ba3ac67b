// Which webhook receivers Gatehouse may call (docs/api.md, Webhooks, "Server-side request forgery"):
// an https:// URL whose host is, or resolves only to, a public address. Pure: the resolving adapter
// (adapters/events/webhook-sender.ts) asks these rules about each address and connects to the one checked.
import { ipv4Octets, ipv6Groups } from './ip-address.js';

/** IPv4 ranges no receiver may be in: [first octets as a number, prefix length, what it is]. */
const V4_REFUSED: ReadonlyArray<readonly [string, number, string]> = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved or broadcast'],
];

const v4Number = (octets: readonly number[]) => octets.reduce((n, o) => n * 256 + o, 0);

function v4Refusal(octets: readonly number[]): string | null {
  const n = v4Number(octets);
  for (const [base, bits, what] of V4_REFUSED) {
    const size = 2 ** (32 - bits);
    const start = v4Number(ipv4Octets(base) ?? []);
    if (n >= start && n < start + size) return what;
  }
  return null;
}

function v6Refusal(g: readonly number[]): string | null {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const embedded = () => [g6 >> 8, g6 & 255, g7 >> 8, g7 & 255];
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroTo(8)) return 'unspecified';
  if (zeroTo(7) && g7 === 1) return 'loopback';
  // Forms that reach the IPv4 address they carry: its rules apply. IPv4-mapped (::ffff:a.b.c.d),
  // IPv4-translated (::ffff:0:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and
  // 6to4 (2002:AABB:CCDD::/48, the relay's IPv4 address AA.BB.CC.DD).
  if (zeroTo(5) && g5 === 0xffff) return v4Refusal(embedded());
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return v4Refusal(embedded());
  if (zeroTo(6)) return v4Refusal(embedded());
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return v4Refusal(embedded());
  if (g0 === 0x2002) return v4Refusal([g1 >> 8, g1 & 255, g2 >> 8, g2 & 255]);
  // The local-use NAT64 prefix (RFC 8215) translates into a network of its own: never public.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return v4Refusal(embedded()) ?? 'local-use NAT64';
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local';
  if ((g0 & 0xffc0) === 0xfec0) return 'site-local';
  if ((g0 & 0xfe00) === 0xfc00) return 'unique-local';
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  return null;
}

/** Why a receiver at `address` (an IP address, as written or as a resolver returns it) is refused, or
 * null when it is a public address. */
export function addressRefusal(address: string): string | null {
  const text = address.trim().replace(/^\[(.*)\]$/, '$1');
  const v4 = ipv4Octets(text);
  if (v4 !== null) return v4Refusal(v4);
  const percent = text.indexOf('%');
  const groups = ipv6Groups(percent >= 0 ? text.slice(0, percent) : text);
  if (groups === null) return 'not an IP address';
  return v6Refusal(groups);
}

/** The parts of a receiver's URL a connection needs: the host as written, without brackets. */
export interface WebhookUrl {
  protocol: 'https:' | 'http:';
  /** A name, or an IP address (IPv6 without its brackets). */
  host: string;
  port: number;
  /** Path and query. */
  path: string;
  /** Whether `host` is an IP address (no name to resolve). */
  literal: boolean;
}

/** Why a URL is refused; `private` when GATEHOUSE_WEBHOOKS_ALLOW_PRIVATE=1 would accept it. */
export interface UrlRefusal {
  refused: string;
  private: boolean;
}

/** `raw` as a receiver URL, or why it is refused: not a URL, not https:// (http:// too when
 * `allowPrivate`), credentials in it, or an address literal that is not public (unless `allowPrivate`). */
export function parseWebhookUrl(raw: string, allowPrivate: boolean): WebhookUrl | UrlRefusal {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { refused: 'is not a URL', private: false };
  }
  const allowed = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!allowed.includes(url.protocol)) {
    if (allowPrivate) return { refused: 'must be an http:// or https:// URL', private: false };
    return { refused: 'must be an https:// URL', private: url.protocol === 'http:' };
  }
  if (url.username !== '' || url.password !== '') return { refused: 'must not carry credentials', private: false };
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') return { refused: 'has no host', private: false };
  const literal = ipv4Octets(host) !== null || host.includes(':');
  if (literal && !allowPrivate) {
    const why = addressRefusal(host);
    if (why !== null) return { refused: `points to a ${why} address`, private: true };
  }
  const protocol = url.protocol as WebhookUrl['protocol'];
  const port = url.port === '' ? (protocol === 'https:' ? 443 : 80) : Number(url.port);
  return { protocol, host, port, path: `${url.pathname}${url.search}`, literal };
}
