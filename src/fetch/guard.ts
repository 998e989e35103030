// The network rule (docs/real-web.md#the-network-rule-global-addresses-only): only global unicast addresses are reached
// unless private networks are allowed, judged on every connection of every hop.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { judgeAddress } from './address.js';
import { NOT_GLOBAL, PRIVATE_ADDRESS_CODE } from './errors.js';

export { judgeAddress } from './address.js';

/** What a refusal tells the user to do about it (the CLI flag; the library's option is `allowPrivate`). */
const ALLOW_HINT = 'pass --allow-private to reach private networks';

/**
 * The error a refused connection fails with; classifyNetworkError turns it into a `refused` FetchError with this
 * message.
 */
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
function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '');
    const list = addresses as LookupAddress[];
    for (const a of list) {
      const verdict = judgeAddress(a.address);
      if (!verdict.allowed)
        return callback(
          refusal(`${hostname} resolves to ${a.address}, ${verdict.why}: ${NOT_GLOBAL}; ${ALLOW_HINT}`),
          '',
        );
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

interface NetworkRule {
  /** Reach private networks too (--allow-private): for tests and intranets. */
  allowPrivate: boolean;
  /**
   * One origin reached whatever its address: the Wayback Machine (or the Wayback stub) the operator
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
function guardedConnector(rule: NetworkRule): buildConnector.connector {
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

/**
 * The dispatcher for a request made without one (a library caller's fetchSource): guarded unless private networks are
 * allowed.
 */
export function defaultDispatcher(allowPrivate: boolean): Dispatcher {
  const key = allowPrivate ? 'open' : 'guarded';
  defaultAgents[key] ??= guardedAgent({ allowPrivate }, { keepAliveTimeout: 4_000 });
  return defaultAgents[key];
}
