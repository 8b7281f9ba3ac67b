// Resolves a receiver's name by DNS on the event loop, never dns.lookup: its calls queue on the
// thread pool behind password hashing and would stall logins while a name server is slow
// (docs/api.md, "Server-side request forgery"; docs/choices.md, Webhooks).
import { Resolver as DnsResolver } from 'node:dns/promises';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address of a name; rejects when it has none. */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export interface DnsResolverOptions {
  /** The whole lookup's deadline (both families, every try). */
  timeoutMs: number;
  /** Name servers (`host` or `host:port`); the system's by default. */
  servers?: string[];
}

export const RESOLVE_TIMEOUT_MS = 5_000;

const isLocalhost = (host: string) => /(^|\.)localhost\.?$/i.test(host);

export function createDnsResolver(options: DnsResolverOptions): Resolver {
  return async (host) => {
    if (isLocalhost(host))
      return [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ];
    if (/(^|\.)invalid\.?$/i.test(host)) throw new Error(`${host} is under .invalid, which never resolves`);
    // One resolver per lookup, so cancelling at the deadline cancels only this lookup's queries.
    const dns = new DnsResolver({ timeout: Math.max(1, Math.floor(options.timeoutMs / 2)), tries: 1 });
    if (options.servers !== undefined) dns.setServers(options.servers);
    const timer = setTimeout(() => dns.cancel(), options.timeoutMs);
    try {
      const [v4, v6] = await Promise.allSettled([dns.resolve4(host), dns.resolve6(host)]);
      const addresses = [
        ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
        ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
      ];
      if (addresses.length === 0) throw v4.status === 'rejected' ? v4.reason : new Error(`${host} has no address`);
      return addresses;
    } finally {
      clearTimeout(timer);
    }
  };
}
