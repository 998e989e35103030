// Refusing private-network targets (--block-private): for hosted use, where claims' URLs come from strangers.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { FetchError, PRIVATE_ADDRESS_CODE } from './errors.js';

/** Loopback, private, link-local, carrier-grade NAT, "this network", unique-local and mapped forms. */
const PRIVATE = new BlockList();
for (const [net, bits] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16], ['192.0.0.0', 24], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv6');
}

export function isPrivateAddress(ip: string): boolean {
  const bare = ip.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) return PRIVATE.check(bare, 'ipv4');
  if (family === 6) {
    const mapped = bare.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i);
    return mapped ? PRIVATE.check(mapped[1]!, 'ipv4') : PRIVATE.check(bare, 'ipv6');
  }
  return false;
}

function privateError(host: string, address: string): FetchError {
  return new FetchError(`refused: ${host} is a private address (${address}) and --block-private is on`, { kind: 'refused' });
}

/** For IP literals, which never reach DNS: checked before each request (and each redirect). */
export function checkHost(url: URL): void {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && isPrivateAddress(host)) throw privateError(host, host);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A DNS lookup for the HTTP client's connections that fails for private addresses, so a public
 * name that resolves to 127.0.0.1 (or rebinds to it) is refused at connect time.
 */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '');
    const list = addresses as LookupAddress[];
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad) {
      const e = new Error(`${hostname} resolves to the private address ${bad.address}`) as NodeJS.ErrnoException;
      e.code = PRIVATE_ADDRESS_CODE;
      return callback(e, '');
    }
    if (options.all) return callback(null, list);
    const first = list[0]!;
    return callback(null, first.address, first.family);
  });
}
