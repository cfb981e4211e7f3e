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

/**
 * Private webhook targets an operator allows (`SVC_WEBHOOK_ALLOWED_PRIVATE_TARGETS`, svix's
 * `whitelist_subnets` model): subnets (CIDR or single addresses) and host names whose private
 * addresses may be called. Loopback, link-local (cloud metadata), unspecified and multicast
 * addresses can never be allowed.
 */
export interface PrivateTargetAllowance {
  /** The entries as configured (for logs and docs). */
  entries: readonly string[];
  subnets: net.BlockList;
  hosts: ReadonlySet<string>;
}

/** Ranges no allowance may open (they reach the service's own host or the cloud's metadata). */
const neverAllowed = new net.BlockList();
for (const [addr, prefix] of [
  ['0.0.0.0', 8],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  neverAllowed.addSubnet(addr, prefix, 'ipv4');
for (const [addr, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  neverAllowed.addSubnet(addr, prefix, 'ipv6');

const HOST_NAME =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * Reads `SVC_WEBHOOK_ALLOWED_PRIVATE_TARGETS`: comma-separated private CIDRs (`10.20.0.0/16`,
 * `fd00:1::/64`), single private addresses (`192.168.1.20`) or host names (`erp.internal`). A
 * public range (nothing to allow), a loopback, link-local, unspecified or multicast range, a
 * prefix broader than /8 (IPv4) or /16 (IPv6), or anything else unreadable is a start problem.
 */
export function readAllowedPrivateTargets(
  value: string | undefined,
  problems: string[],
): PrivateTargetAllowance | null {
  const entries = (value ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  if (entries.length === 0) return null;
  const subnets = new net.BlockList();
  const hosts = new Set<string>();
  const refuse = (entry: string, why: string) =>
    problems.push(`SVC_WEBHOOK_ALLOWED_PRIVATE_TARGETS: "${entry}" ${why}`);
  for (const entry of entries) {
    const [addr = '', prefixText, extra] = entry.split('/');
    const family = net.isIP(addr);
    if (family === 0) {
      if (prefixText === undefined && HOST_NAME.test(entry) && !/^[0-9.]+$/.test(entry)) {
        if (entry === 'localhost' || entry.endsWith('.localhost'))
          refuse(entry, 'is a loopback name, which is never allowed');
        else hosts.add(entry);
      } else refuse(entry, 'is not a CIDR (10.20.0.0/16), an IP address or a host name');
      continue;
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    const max = family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? max : Number(prefixText);
    if (
      extra !== undefined ||
      !Number.isInteger(prefix) ||
      prefix < 0 ||
      prefix > max ||
      (prefixText ?? '0') === ''
    ) {
      refuse(entry, 'is not a CIDR (10.20.0.0/16), an IP address or a host name');
      continue;
    }
    if (prefix < (family === 4 ? 8 : 16)) {
      refuse(entry, `is broader than /${family === 4 ? 8 : 16}`);
      continue;
    }
    if (neverAllowed.check(addr, type)) {
      refuse(entry, 'is a loopback, link-local, unspecified or multicast range, which is never allowed');
      continue;
    }
    if (!blocked.check(addr, type)) {
      refuse(entry, 'is not a private range (public addresses are allowed already)');
      continue;
    }
    if (prefix === max) subnets.addAddress(addr, type);
    else subnets.addSubnet(addr, prefix, type);
  }
  return { entries, subnets, hosts };
}

/** True when an IP address must never be called from production. */
export function isForbiddenAddress(address: string, allow?: PrivateTargetAllowance | null): boolean {
  const family = net.isIP(address);
  if (family === 0) return true;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (!blocked.check(address, type)) return false;
  if (!allow || neverAllowed.check(address, type)) return true;
  return !allow.subnets.check(address, type);
}

/** An allowed host name: its addresses are not checked against the private ranges (see the risk in the docs). */
function isAllowedHost(hostname: string, allow?: PrivateTargetAllowance | null): boolean {
  return !!allow && allow.hosts.has(hostname.toLowerCase().replace(/\.$/, ''));
}

/** For an allowed host name: only the never-allowed ranges (loopback, link-local, …) are refused. */
function isNeverAllowed(address: string): boolean {
  const family = net.isIP(address);
  return family === 0 || neverAllowed.check(address, family === 4 ? 'ipv4' : 'ipv6');
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
  allow: PrivateTargetAllowance | null = null,
): Promise<void> {
  if (net.isIP(hostname)) {
    if (isForbiddenAddress(hostname, allow))
      throw new ForbiddenTargetError(`address ${hostname} is not allowed`);
    return;
  }
  const forbidden = isAllowedHost(hostname, allow)
    ? isNeverAllowed
    : (a: string) => isForbiddenAddress(a, allow);
  let addrs: { address: string; family: number }[];
  try {
    addrs = await lookupAll(hostname);
  } catch {
    throw new ForbiddenTargetError(`host ${hostname} does not resolve`);
  }
  if (addrs.length === 0) throw new ForbiddenTargetError(`host ${hostname} does not resolve`);
  const bad = addrs.find((a) => forbidden(a.address));
  if (bad) throw new ForbiddenTargetError(`host ${hostname} resolves to a non-public address`);
}

/**
 * A `lookup` for net/tls.connect that only ever yields checked public addresses. Used as the
 * HTTP agent's connect lookup in production, so the connection goes to the address checked.
 */
export function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  guardedLookupFor(null)(hostname, options, callback);
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/** `guardedLookup` with the operator's allowance of private targets. */
export const guardedLookupFor =
  (allow: PrivateTargetAllowance | null) =>
  (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    const forbidden = isAllowedHost(hostname, allow)
      ? isNeverAllowed
      : (a: string) => isForbiddenAddress(a, allow);
    dns.lookup(hostname, { all: true, verbatim: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const list = addresses.filter((a) => !options.family || a.family === options.family);
      if (list.length === 0)
        return callback(
          Object.assign(new Error(`host ${hostname} does not resolve`), { code: 'ENOTFOUND' }),
          '',
        );
      if (list.some((a) => forbidden(a.address))) {
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
  };
