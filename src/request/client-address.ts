// Who the client is: the one address the rate limit, the change streams' cap per address and the request
// log all use. Behind reverse proxies the socket's peer is the nearest proxy, and X-Forwarded-For lists
// the hops, each appended by the proxy that received it: only the addresses appended by proxies we trust
// can be believed. So the client is the right-most address not among the trusted proxies, read only
// when the peer itself is trusted (as nginx's real_ip_recursive and Express's `trust proxy` do). The
// left-most entry is whatever the client chose to send: taking it let anyone name a victim to lock out,
// or rotate names to escape the limit.
import { isIP } from 'node:net';

/** Named ranges, for TRUSTED_PROXIES: where proxies live in practice (the same host, a private network). */
export const NAMED_RANGES: Readonly<Record<string, readonly string[]>> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  // RFC 1918 and IPv6 unique local addresses (RFC 4193): Docker, Kubernetes and cloud networks.
  private: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
};

/** What `TRUST_PROXY=true` stands for: a proxy on this host or on a private network. */
export const TRUST_PROXY_ALIAS: readonly string[] = ['loopback', 'private'];

/** How many hops of X-Forwarded-For are read at most, from the right: a longer chain is not a real one. */
export const MAX_HOPS = 16;

/** An address in one spelling: IPv4-mapped IPv6 as IPv4, IPv6 compressed and lower-case; null if not an address. */
export function canonicalAddress(text: string): string | null {
  let address = text.trim();
  if (address.startsWith('[')) {
    // [v6] or [v6]:port (RFC 7239's form, which some proxies also use here)
    const end = address.indexOf(']');
    if (end < 0) return null;
    address = address.slice(1, end);
  } else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(address)) address = address.slice(0, address.indexOf(':'));
  const zone = address.indexOf('%'); // fe80::1%eth0: the zone names an interface of the sender, not the address
  if (zone >= 0) address = address.slice(0, zone);
  const version = isIP(address);
  if (version === 4) return address;
  if (version !== 6) return null;
  // How Node names an IPv4 peer on a dual-stack socket: the common case, without parsing.
  if (address.startsWith('::ffff:') && isIP(address.slice(7)) === 4) return address.slice(7);
  const compressed = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const mapped =
    /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(compressed) ?? /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(compressed);
  if (!mapped) return compressed;
  if (mapped.length === 2) return mapped[1]!;
  const [high, low] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** Why an entry of TRUSTED_PROXIES is not one (null: it is a name, an address or a CIDR range). */
export function trustedEntryProblem(entry: string): string | null {
  if (entry in NAMED_RANGES) return null;
  const [address, prefix, ...rest] = entry.split('/');
  const version = isIP(address ?? '');
  if (version === 0 || rest.length > 0)
    return `"${entry}" is not an IP address, a CIDR range or one of ${Object.keys(NAMED_RANGES).join(', ')}`;
  const max = version === 4 ? 32 : 128;
  if (prefix !== undefined && !(/^\d{1,3}$/.test(prefix) && Number(prefix) <= max))
    return `"${entry}": the prefix length must be 0 to ${max}`;
  return null;
}

/** TRUSTED_PROXIES as written (commas or spaces between entries). */
export const splitTrustedProxies = (list: string): string[] => list.split(/[\s,]+/).filter((e) => e !== '');

export interface TrustedProxies {
  trusts(address: string): boolean;
}

/**
 * An address as 16 bytes, IPv4 as IPv4-mapped IPv6 (so that one rule matches both spellings); null if
 * it is not an address.
 */
function addressBytes(text: string): Uint8Array | null {
  const zone = text.indexOf('%');
  const address = zone < 0 ? text : text.slice(0, zone);
  const version = isIP(address);
  if (version === 0) return null;
  const bytes = new Uint8Array(16);
  let v6 = address;
  let v4: string | undefined = address;
  if (version === 6) {
    const last = address.lastIndexOf(':');
    v4 = address.includes('.', last) ? address.slice(last + 1) : undefined;
    if (v4) v6 = `${address.slice(0, last + 1)}0:0`; // a dotted tail fills the last two groups
    const [head = '', tail] = v6.split('::');
    const before = head ? head.split(':') : [];
    const after = tail ? tail.split(':') : [];
    const groups =
      tail === undefined ? before : [...before, ...Array<string>(8 - before.length - after.length).fill('0'), ...after];
    groups.forEach((group, i) => {
      const value = parseInt(group, 16);
      bytes[2 * i] = value >> 8;
      bytes[2 * i + 1] = value & 255;
    });
  } else bytes[10] = bytes[11] = 255;
  if (v4) v4.split('.').forEach((octet, i) => (bytes[12 + i] = Number(octet)));
  return bytes;
}

/** A dotted quad (checked) as a number, without allocating. */
function ipv4Number(address: string): number {
  let value = 0;
  let octet = 0;
  for (let i = 0; i < address.length; i++) {
    const c = address.charCodeAt(i);
    if (c === 46 /* . */) {
      value = value * 256 + octet;
      octet = 0;
    } else octet = octet * 10 + c - 48;
  }
  return value * 256 + octet;
}

interface Range {
  bytes: Uint8Array;
  bits: number;
}

const within = (address: Uint8Array, range: Range) => {
  for (let i = 0, bits = range.bits; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 255 : (0xff << (8 - bits)) & 255;
    if ((address[i]! & mask) !== (range.bytes[i]! & mask)) return false;
  }
  return true;
};

/**
 * The matcher of a checked list of entries (see trustedEntryProblem). Node's net.BlockList would do,
 * but it takes microseconds a check, on every request; IPv4 (most peers) is matched here as numbers.
 */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  const ranges: Range[] = entries
    .flatMap((e) => NAMED_RANGES[e] ?? [e])
    .map((entry) => {
      const [address, prefix] = entry.split('/') as [string, string | undefined];
      const v4 = isIP(address) === 4;
      return { bytes: addressBytes(address)!, bits: prefix === undefined ? 128 : Number(prefix) + (v4 ? 96 : 0) };
    });
  // The ranges that hold IPv4 addresses (IPv4 ones, and IPv6 ones over ::ffff:0:0/96), as shifts and values.
  const mapped = addressBytes('0.0.0.0')!;
  const v4Ranges = ranges
    .filter((r) => within(mapped, { bytes: r.bytes, bits: Math.min(r.bits, 96) }))
    .map((r) => {
      const shift = 128 - Math.max(r.bits, 96);
      const base = ((r.bytes[12]! << 24) | (r.bytes[13]! << 16) | (r.bytes[14]! << 8) | r.bytes[15]!) >>> 0;
      return { shift, value: shift === 32 ? 0 : base >>> shift };
    });
  const trustsV4 = (address: string) => {
    const n = ipv4Number(address);
    for (const r of v4Ranges) if ((r.shift === 32 ? 0 : n >>> r.shift) === r.value) return true;
    return false;
  };
  return {
    trusts(address) {
      const version = isIP(address);
      if (version === 4) return trustsV4(address);
      if (address.startsWith('::ffff:') && isIP(address.slice(7)) === 4) return trustsV4(address.slice(7));
      const bytes = version === 6 ? addressBytes(address) : null;
      return bytes !== null && ranges.some((range) => within(bytes, range));
    },
  };
}

/**
 * The client of a request: its socket's peer, or, when that peer is a trusted proxy, the right-most
 * X-Forwarded-For address that is not one. An entry that is not an address stops the walk: the last
 * address vouched for by a trusted hop is the client then (a garbled hop cannot pick an identity).
 */
export function clientAddress(
  peer: string | undefined,
  forwarded: string | string[] | undefined,
  trusted: TrustedProxies | null,
): string {
  let client = (peer && canonicalAddress(peer)) ?? peer ?? 'unknown';
  if (!trusted || forwarded === undefined || !trusted.trusts(client)) return client;
  // Several X-Forwarded-For fields are one list, in order (Node joins them with ", " already).
  const chain = Array.isArray(forwarded) ? forwarded.join(',') : forwarded;
  let end = chain.length;
  for (let hops = 0; end > 0 && hops < MAX_HOPS; hops++) {
    const start = chain.lastIndexOf(',', end - 1);
    const hop = canonicalAddress(chain.slice(start + 1, end));
    if (hop === null) return client;
    client = hop;
    if (!trusted.trusts(hop)) return client;
    end = start < 0 ? 0 : start;
  }
  return client;
}
