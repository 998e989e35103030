// The network rule (design.md §9): only global unicast addresses are reached unless private networks are allowed, judged on every connection of every hop.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { NOT_GLOBAL, PRIVATE_ADDRESS_CODE } from './errors.js';

/** What a refusal tells the user to do about it (the CLI flag; the library's option is `allowPrivate`). */
export const ALLOW_HINT = 'pass --allow-private to reach private networks';

/**
 * ipaddr.js's range names that are global unicast. Its other names (loopback, private, linkLocal,
 * carrierGradeNat, reserved, benchmarking, uniqueLocal, segmentRouting, ...) are special-purpose
 * blocks the IANA registries mark as not globally reachable; the translation forms are decoded below.
 * `as112`, `amt`, `orchid2` and `droneRemoteIdProtocolEntityTags` are "Globally Reachable: True" there.
 */
const GLOBAL_RANGES: ReadonlySet<string> = new Set(['unicast', 'as112', 'amt', 'as112v6', 'orchid2', 'droneRemoteIdProtocolEntityTags']);

/**
 * Single addresses the IANA special-purpose registries mark globally reachable inside a block they do
 * not (ipaddr.js names the whole block): the anycast services of RFC 7723 and RFC 8155.
 */
const GLOBAL_EXCEPTIONS: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]> = ['192.0.0.9/32', '192.0.0.10/32', '2001:1::1/128', '2001:1::2/128'].map((cidr) =>
  ipaddr.parseCIDR(cidr),
);

/**
 * Blocks ipaddr.js does not name, from the IANA IPv6 special-purpose registry: the local-use NAT64
 * prefix (RFC 8215: "Globally Reachable: False"; ipaddr.js files it with the global 64:ff9b::/96).
 */
const LOCAL_NAT64 = ipaddr.parseCIDR('64:ff9b:1::/48');
/** All of IPv6's global unicast space as allocated (RFC 4291 §2.4, IANA's IPv6 address space registry): anything outside is unassigned or special. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** The verdict on one address: allowed, or why not (one phrase, e.g. "loopback (127.0.0.0/8)"). */
export type AddressVerdict = { allowed: true } | { allowed: false; why: string };

/** The CIDR block of range `name` that holds `addr`, for messages. */
function blockOf(addr: ipaddr.IPv4 | ipaddr.IPv6, name: string): string {
  // ipaddr.js's typings leave out the table its range() reads (IPv4/IPv6.prototype.SpecialRanges).
  const ranges = (addr as unknown as { SpecialRanges: Record<string, unknown> }).SpecialRanges[name];
  const list = (Array.isArray(ranges) && Array.isArray(ranges[0]) ? ranges : [ranges]) as Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
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
      if (!verdict.allowed) return { allowed: false, why: `${embedded.form}, carrying ${v4.toString()}: ${verdict.why}` };
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

/** The error a refused connection fails with; classifyNetworkError turns it into a `refused` FetchError with this message. */
function refusal(message: string): NodeJS.ErrnoException {
  const e = new Error(message) as NodeJS.ErrnoException;
  e.code = PRIVATE_ADDRESS_CODE;
  return e;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A DNS lookup for the HTTP client's connections that fails when any address a name resolves to is
 * not allowed, so a public name that resolves to 127.0.0.1 (or rebinds to it) is refused at connect
 * time, on the address actually connected to.
 */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '');
    const list = addresses as LookupAddress[];
    for (const a of list) {
      const verdict = judgeAddress(a.address);
      if (!verdict.allowed) return callback(refusal(`${hostname} resolves to ${a.address}, ${verdict.why}: ${NOT_GLOBAL}; ${ALLOW_HINT}`), '');
    }
    if (options.all) return callback(null, list);
    const first = list[0]!;
    return callback(null, first.address, first.family);
  });
}

/** The origin a connection is for, as URL#origin spells it (default ports dropped). */
function originOf(opts: buildConnector.Options): string {
  const port = opts.port ? `:${opts.port}` : '';
  try {
    return new URL(`${opts.protocol}//${opts.hostname}${port}`).origin;
  } catch {
    return '';
  }
}

export interface NetworkRule {
  /** Reach private networks too (--allow-private): for tests and intranets. */
  allowPrivate: boolean;
  /**
   * One origin reached whatever its address: the Wayback Machine (or its stand-in) the operator
   * configured. Only that origin: where it redirects is judged like any other hop.
   */
  trustedOrigin?: string;
}

/**
 * undici's connector with the network rule in front: an IP literal is judged before connecting,
 * a name through the guarded lookup (so the address judged is the one connected to). Every
 * connection of every request made through a dispatcher built on it passes here, redirects and
 * retries included, whoever made the request.
 */
export function guardedConnector(rule: NetworkRule): buildConnector.connector {
  const open = buildConnector({});
  if (rule.allowPrivate) return open;
  const guarded = buildConnector({ lookup: guardedLookup } as buildConnector.BuildOptions);
  const trusted = rule.trustedOrigin ? new URL(rule.trustedOrigin).origin : undefined;
  return (opts, callback) => {
    if (trusted && originOf(opts) === trusted) return open(opts, callback);
    const host = opts.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) {
      const verdict = judgeAddress(host);
      if (!verdict.allowed) {
        // The connector's contract is asynchronous: fail on the next tick, as a refused socket would.
        queueMicrotask(() => callback(refusal(`${host} is ${verdict.why}: ${NOT_GLOBAL}; ${ALLOW_HINT}`), null));
        return;
      }
    }
    return guarded(opts, callback);
  };
}

/** A pooled HTTP client whose every connection obeys `rule`. */
export function guardedAgent(rule: NetworkRule, options: Omit<Agent.Options, 'connect'> = {}): Agent {
  return new Agent({ ...options, connect: guardedConnector(rule) });
}

const defaultAgents: { open?: Dispatcher; guarded?: Dispatcher } = {};

/** The dispatcher for a request made without one (a library caller's fetchSource): guarded unless private networks are allowed. */
export function defaultDispatcher(allowPrivate: boolean): Dispatcher {
  const key = allowPrivate ? 'open' : 'guarded';
  defaultAgents[key] ??= guardedAgent({ allowPrivate }, { keepAliveTimeout: 4_000 });
  return defaultAgents[key];
}
