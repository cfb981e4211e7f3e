/**
 * Outbound-call protection for webhook targets. Only http and https; in production, a host that
 * resolves to a loopback, private, CGNAT, link-local, unspecified, multicast/reserved or
 * IPv4-mapped address is refused. The sender connects to the address that was checked (the
 * check runs inside the socket's DNS lookup), so a rebinding DNS answer cannot slip through.
 */
import dns from 'node:dns';
import net from 'node:net';

const blocked = new net.BlockList();
for (const [addr, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // RFC 1918
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata)
  ['172.16.0.0', 12], // RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // RFC 1918
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  blocked.addSubnet(addr, prefix, 'ipv4');
for (const [addr, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::', 96], // IPv4-compatible (deprecated)
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const)
  blocked.addSubnet(addr, prefix, 'ipv6');
// IPv4-mapped IPv6 (::ffff:a.b.c.d) is matched against the IPv4 rules by BlockList itself.

/** True when an IP address must never be called from production. */
export function isForbiddenAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class ForbiddenTargetError extends Error {
  constructor(public readonly reason: string) {
    super(reason);
    this.name = 'ForbiddenTargetError';
  }
}

/** The URL's host without IPv6 brackets. */
export const hostOf = (u: URL): string => u.hostname.replace(/^\[|\]$/g, '');

/** Parses a webhook URL: http(s), with a host, no credentials. Null when unacceptable. */
export function parseWebhookUrl(value: string): URL | null {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  if (!u.hostname || u.username || u.password) return null;
  return u;
}

type LookupAll = (hostname: string) => Promise<{ address: string; family: number }[]>;
const defaultLookupAll: LookupAll = (hostname) =>
  dns.promises.lookup(hostname, { all: true, verbatim: true });

/** Resolves the host and throws ForbiddenTargetError when any of its addresses is forbidden. */
export async function assertPublicHost(
  hostname: string,
  lookupAll: LookupAll = defaultLookupAll,
): Promise<void> {
  if (net.isIP(hostname)) {
    if (isForbiddenAddress(hostname)) throw new ForbiddenTargetError(`address ${hostname} is not allowed`);
    return;
  }
  let addrs: { address: string; family: number }[];
  try {
    addrs = await lookupAll(hostname);
  } catch {
    throw new ForbiddenTargetError(`host ${hostname} does not resolve`);
  }
  if (addrs.length === 0) throw new ForbiddenTargetError(`host ${hostname} does not resolve`);
  const bad = addrs.find((a) => isForbiddenAddress(a.address));
  if (bad) throw new ForbiddenTargetError(`host ${hostname} resolves to a non-public address`);
}

/**
 * A `lookup` for net/tls.connect that only ever yields checked public addresses. Used as the
 * HTTP agent's connect lookup in production, so the connection goes to the address checked.
 */
export function guardedLookup(
  hostname: string,
  options: dns.LookupOptions,
  callback: (
    err: NodeJS.ErrnoException | null,
    address: string | dns.LookupAddress[],
    family?: number,
  ) => void,
): void {
  dns.lookup(hostname, { all: true, verbatim: true }, (err, addresses) => {
    if (err) return callback(err, '');
    const list = addresses.filter((a) => !options.family || a.family === options.family);
    if (list.length === 0)
      return callback(
        Object.assign(new Error(`host ${hostname} does not resolve`), { code: 'ENOTFOUND' }),
        '',
      );
    if (list.some((a) => isForbiddenAddress(a.address))) {
      const e = new ForbiddenTargetError(
        `host ${hostname} resolves to a non-public address`,
      ) as ForbiddenTargetError & {
        code: string;
      };
      e.code = 'EFORBIDDENTARGET';
      return callback(e, '');
    }
    if (options.all) return callback(null, list);
    return callback(null, list[0]!.address, list[0]!.family);
  });
}
