// The run's HTTP stack: guarded agents (or a replay), the fetch settings over them, and the Wayback client; built here
// only.
import type { Dispatcher } from 'undici';
import { fetchSource, type FetchSettings, type SourceOutcome } from '../fetch/index.js';
import { guardedAgent } from '../fetch/guard.js';
import { WaybackClient, type WaybackOptions } from '../wayback/client.js';
import type { RunSettings } from '../config/settings.js';

/** An undici interceptor put under every HTTP exchange of a run. */
export interface ExchangeInterceptor {
  interceptor(): Dispatcher.DispatcherComposeInterceptor;
}

/**
 * A WARC replay: answers every request with no network; when it names the Wayback base its recording asked, the run's
 * archive requests go there.
 */
export type ReplayArchive = Dispatcher & { readonly waybackBase?: string };

/**
 * Where a run's HTTP exchanges go, one explicit choice:
 * - `network`: the network, under the network rule (src/fetch/guard.ts);
 * - `recorded`: the network, every exchange also kept by `recorder` (a WARC file);
 * - `cached`: the network, answered from `cache` when it holds the response (the MCP server's session cache);
 * - `replay`: no network at all: `archive` answers every request, texts are reported as `replay`, retries are
 *   immediate and the Wayback Machine is not paced (there is no server to be polite to).
 */
export type Transport =
  | { kind: 'network' }
  | { kind: 'recorded'; recorder: ExchangeInterceptor }
  | { kind: 'cached'; cache: ExchangeInterceptor }
  | { kind: 'replay'; archive: ReplayArchive };

const NETWORK: Transport = { kind: 'network' };

/** Whether a run over `transport` reaches no network (a replay). */
export const isReplay = (transport: Transport | undefined): transport is Extract<Transport, { kind: 'replay' }> =>
  transport?.kind === 'replay';

/** Idle sockets are closed after this long: a run fetches in bursts, and an idle keep-alive costs the server a slot. */
const KEEP_ALIVE_MS = 4_000;

/** What the stack needs of a run's settings. */
type StackSettings = Pick<RunSettings, 'allowPrivate' | 'perHost' | 'wayback' | 'waybackUrl'> & {
  transport?: Transport;
};

/**
 * A run's two HTTP stacks: one for sources, one for the Wayback Machine (whose configured origin it may reach whatever
 * its address).
 */
export interface HttpStacks {
  sources: Dispatcher;
  archive: Dispatcher;
  /** Closes the sockets in the background: a stopped run does not wait for in-flight work. */
  close: () => void;
}

/**
 * The HTTP stacks of a run: pooled agents under the network rule, with the transport's interceptor, or both
 * replaced by a replay (which never reaches the network, so there is nothing to guard). The archive's agent trusts
 * the archive's own origin only: a capture that redirects elsewhere is judged like a source.
 */
export function httpStacks(settings: StackSettings): HttpStacks {
  const transport = settings.transport ?? NETWORK;
  if (transport.kind === 'replay') return { sources: transport.archive, archive: transport.archive, close: () => {} };
  const pool = { connections: settings.perHost * 2, keepAliveTimeout: KEEP_ALIVE_MS };
  const agents = [guardedAgent({ allowPrivate: settings.allowPrivate }, pool)];
  if (settings.wayback !== 'off')
    agents.push(guardedAgent({ allowPrivate: settings.allowPrivate, trustedOrigin: settings.waybackUrl }, pool));
  const interceptor =
    transport.kind === 'recorded' ? transport.recorder : transport.kind === 'cached' ? transport.cache : undefined;
  const [sources, archive = sources] = agents.map((agent) =>
    interceptor ? agent.compose(interceptor.interceptor()) : agent,
  ) as [Dispatcher, Dispatcher?];
  return { sources, archive, close: () => agents.forEach((agent) => void agent.destroy().catch(() => {})) };
}

/** What the fetch settings need of a run's settings. */
type FetchSettingsSource = Pick<
  RunSettings,
  | 'timeoutMs'
  | 'maxBytes'
  | 'maxRedirects'
  | 'userAgent'
  | 'retries'
  | 'backoffMinMs'
  | 'backoffMaxMs'
  | 'retryAfterCapMs'
  | 'sourceBudgetMs'
> & { transport?: Transport };

/** A run's fetch settings, from its settings and its HTTP stack. */
export function fetchSettingsFor(settings: FetchSettingsSource, dispatcher: Dispatcher): FetchSettings {
  // A replay has no server to be polite to: retries are immediate.
  const replaying = isReplay(settings.transport);
  return {
    timeoutMs: settings.timeoutMs,
    maxBytes: settings.maxBytes,
    maxRedirects: settings.maxRedirects,
    userAgent: settings.userAgent,
    retries: settings.retries,
    backoffMinMs: replaying ? 0 : settings.backoffMinMs,
    backoffMaxMs: replaying ? 0 : settings.backoffMaxMs,
    retryAfterCapMs: replaying ? 0 : settings.retryAfterCapMs,
    budgetMs: settings.sourceBudgetMs,
    dispatcher,
  };
}

/** What the Wayback client needs of a run's options. */
interface ArchiveSettings
  extends Pick<RunSettings, 'wayback' | 'waybackUrl' | 'waybackPerMinute' | 'waybackMaxWaitMs'> {
  transport?: Transport;
  signal?: AbortSignal;
  deadlineAt?: number;
  onArchive?: WaybackOptions['onActivity'];
}

/** A run's Wayback client, over the run's HTTP stack (so a replay answers it too); none with `wayback: 'off'`. */
export function waybackFor(
  settings: ArchiveSettings,
  fetch: FetchSettings,
  archive: Dispatcher,
): WaybackClient | undefined {
  if (settings.wayback === 'off') return undefined;
  const { transport } = settings;
  return new WaybackClient({
    // A replay asks the archive the recording asked: its lookups and capture URLs are the recorded ones.
    base: (isReplay(transport) ? transport.archive.waybackBase : undefined) ?? settings.waybackUrl,
    perMinute: isReplay(transport) ? Infinity : settings.waybackPerMinute,
    request: { ...fetch, dispatcher: archive },
    maxWaitMs: settings.waybackMaxWaitMs,
    signal: settings.signal,
    deadlineAt: settings.deadlineAt,
    onActivity: settings.onArchive,
  });
}

/** Fetches single sources over one stack, outside a run: what the MCP server pages and searches. */
export interface SourceFetcher {
  fetch(url: string, signal?: AbortSignal): Promise<SourceOutcome>;
  close(): Promise<void>;
}

/**
 * A source fetcher with a run's settings and transport: the same network rule, limits and retries as a run's sources.
 */
export function sourceFetcher(settings: StackSettings & FetchSettingsSource): SourceFetcher {
  const stacks = httpStacks({ ...settings, wayback: 'off' });
  const fetch = fetchSettingsFor(settings, stacks.sources);
  return {
    fetch: (url, signal) => fetchSource(url, fetch, signal),
    close: async () => stacks.close(),
  };
}
