// Which addresses the network rule (docs/real-web.md#the-network-rule-global-addresses-only) lets a connection reach:
// global unicast only, IPv4 inside IPv6 judged as itself; and which URLs it refuses by their host alone (an IP literal,
// a localhost name), before any lookup.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * ipaddr.js's range names that are global unicast. Its other names (loopback, private, linkLocal,
 * carrierGradeNat, reserved, benchmarking, uniqueLocal, segmentRouting, ...) are special-purpose
 * blocks the IANA registries mark as not globally reachable; the translation forms are decoded below.
 * `as112`, `amt`, `orchid2` and `droneRemoteIdProtocolEntityTags` are "Globally Reachable: True" there.
 */
const GLOBAL_RANGES: ReadonlySet<string> = new Set([
  'unicast',
  'as112',
  'amt',
  'as112v6',
  'orchid2',
  'droneRemoteIdProtocolEntityTags',
]);

/**
 * Single addresses the IANA special-purpose registries mark globally reachable inside a block they do
 * not (ipaddr.js names the whole block): the anycast services of RFC 7723 and RFC 8155.
 */
const GLOBAL_EXCEPTIONS: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]> = [
  '192.0.0.9/32',
  '192.0.0.10/32',
  '2001:1::1/128',
  '2001:1::2/128',
].map((cidr) => ipaddr.parseCIDR(cidr));

/**
 * Blocks ipaddr.js does not name, from the IANA IPv6 special-purpose registry: the local-use NAT64
 * prefix (RFC 8215: "Globally Reachable: False"; ipaddr.js files it with the global 64:ff9b::/96).
 */
const LOCAL_NAT64 = ipaddr.parseCIDR('64:ff9b:1::/48');
/**
 * All of IPv6's global unicast space as allocated (RFC 4291 §2.4, IANA's IPv6 address space registry): anything outside
 * is unassigned or special.
 */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** The verdict on one address: allowed, or why not (one phrase, e.g. "loopback (127.0.0.0/8)"). */
type AddressVerdict = { allowed: true } | { allowed: false; why: string };

/** The CIDR block of range `name` that holds `addr`, for messages. */
function blockOf(addr: ipaddr.IPv4 | ipaddr.IPv6, name: string): string {
  // ipaddr.js's typings leave out the table its range() reads (IPv4/IPv6.prototype.SpecialRanges).
  const ranges = (addr as unknown as { SpecialRanges: Record<string, unknown> }).SpecialRanges[name];
  const list = (Array.isArray(ranges) && Array.isArray(ranges[0]) ? ranges : [ranges]) as Array<
    [ipaddr.IPv4 | ipaddr.IPv6, number]
  >;
  for (const block of list) {
    if (block && block[0].kind() === addr.kind() && addr.match(block)) return `${block[0].toString()}/${block[1]}`;
  }
  return '';
}

/** How a range is named in a message: ipaddr.js's camelCase names in words. */
function rangeWords(name: string): string {
  return name === 'unicast' ? 'unassigned' : name.replace(/([a-z])([A-Z0-9])/g, '$1 $2').toLowerCase();
}

function isException(addr: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return GLOBAL_EXCEPTIONS.some((block) => block[0].kind() === addr.kind() && addr.match(block));
}

function judgeV4(addr: ipaddr.IPv4): AddressVerdict {
  const range = addr.range();
  if (GLOBAL_RANGES.has(range) || isException(addr)) return { allowed: true };
  return { allowed: false, why: `${rangeWords(range)} (${blockOf(addr, range)})` };
}

function v4At(parts: number[], i: number, invert = false): ipaddr.IPv4 {
  const hi = invert ? ~parts[i]! & 0xffff : parts[i]!;
  const lo = invert ? ~parts[i + 1]! & 0xffff : parts[i + 1]!;
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

/**
 * The IPv4 addresses an IPv6 address carries, and the form's name: IPv4-mapped (::ffff:0:0/96),
 * IPv4-translated (::ffff:0:0:0/96, RFC 6145), IPv4-compatible (::/96, deprecated by RFC 4291),
 * NAT64 (64:ff9b::/96, RFC 6052), 6to4 (2002::/16, RFC 3056: the gateway's address in bits 16-47)
 * and Teredo (2001::/32, RFC 4380: the server in bits 32-63, the client inverted in the last 32).
 * A connection to any of them can end at the IPv4 address inside, so that address is what is judged.
 */
function embeddedV4(addr: ipaddr.IPv6, range: string): { form: string; inside: ipaddr.IPv4[] } | undefined {
  const p = addr.parts;
  switch (range) {
    case 'ipv4Mapped':
      return { form: 'IPv4-mapped', inside: [v4At(p, 6)] };
    case 'rfc6145':
      return { form: 'IPv4-translated', inside: [v4At(p, 6)] };
    case 'rfc6052':
      return addr.match(LOCAL_NAT64) ? undefined : { form: 'NAT64', inside: [v4At(p, 6)] };
    case '6to4':
      return { form: '6to4', inside: [v4At(p, 1)] };
    case 'teredo':
      return { form: 'Teredo', inside: [v4At(p, 2), v4At(p, 6, true)] };
    case 'unicast':
      return p.slice(0, 6).every((x) => x === 0) ? { form: 'IPv4-compatible', inside: [v4At(p, 6)] } : undefined;
    default:
      return undefined;
  }
}

function judgeV6(addr: ipaddr.IPv6): AddressVerdict {
  const range = addr.range();
  const embedded = embeddedV4(addr, range);
  if (embedded) {
    for (const v4 of embedded.inside) {
      const verdict = judgeV4(v4);
      if (!verdict.allowed)
        return { allowed: false, why: `${embedded.form}, carrying ${v4.toString()}: ${verdict.why}` };
    }
    return { allowed: true };
  }
  if (addr.match(LOCAL_NAT64)) return { allowed: false, why: 'local-use NAT64 (64:ff9b:1::/48)' };
  if (isException(addr)) return { allowed: true };
  if (!GLOBAL_RANGES.has(range)) return { allowed: false, why: `${rangeWords(range)} (${blockOf(addr, range)})` };
  if (!addr.match(GLOBAL_UNICAST_V6)) return { allowed: false, why: 'outside the global unicast space (2000::/3)' };
  return { allowed: true };
}

/**
 * Whether a connection may go to `ip` (an IPv4 or IPv6 literal, brackets allowed): global unicast
 * addresses only, with every IPv4 address embedded in IPv6 judged as itself. Anything that is not an
 * address is refused too: the rule never guesses.
 */
export function judgeAddress(ip: string): AddressVerdict {
  const bare = ip.replace(/^\[|\]$/g, '');
  if (!isIP(bare)) return { allowed: false, why: 'not an IP address' };
  if (isIP(bare) === 4) return judgeV4(ipaddr.IPv4.parse(bare));
  // ipaddr.js reads a dotted tail as IPv4-mapped whatever precedes it (`::127.0.0.1` becomes ::ffff:7f00:1):
  // the WHATWG URL parser writes the address out in hex groups first, as a URL's host is.
  return judgeV6(ipaddr.IPv6.parse(new URL(`http://[${bare}]/`).hostname.slice(1, -1)));
}

/** Host names that are loopback by definition (RFC 6761 §6.3): `localhost` and every name under it. */
const LOOPBACK_NAME = /^(?:[^.]+\.)*localhost\.?$/i;

/**
 * Why the network rule refuses `url` by its host alone, or undefined when only a DNS lookup could tell (a name) or it
 * is allowed: an IP literal that is not global unicast (IPv4 inside IPv6 judged as itself), or `localhost` and
 * `*.localhost`. What a run's connection refuses without --allow-private, known without resolving anything.
 */
export function refusedHost(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return undefined;
  }
  if (LOOPBACK_NAME.test(host)) return `${host} is a loopback name`;
  const bare = host.replace(/^\[|\]$/g, '');
  if (!isIP(bare)) return undefined;
  const verdict = judgeAddress(bare);
  return verdict.allowed ? undefined : `${bare} is ${verdict.why}`;
}
