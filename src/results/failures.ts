// What evaluate says when sources could not be read or the archive never answered: the real cause first, from the
// agent's evidence report.
import { refusedByNetworkRule } from '../fetch/errors.js';
import { isLoopback } from '../wayback/stub/loopback.js';
import { hostOf } from '../messages.js';

/** Why a source could not be read, as advice tells causes apart: each has its own thing to check. */
type FailureCause = 'network_rule' | 'connection' | 'dns' | 'timeout' | 'tls' | 'http_status' | 'replay' | 'other';

/**
 * What the failure analysis reads of a claim's row (local-harness ClaimRow): the report line's fields as evaluate keeps
 * them.
 */
interface RowFacts {
  url: string;
  diagnosis?: string;
  note?: string;
  httpStatus?: number;
  /** The report's `fetch_error` (the kind of today's failed fetch), absent in reports written before it. */
  fetchError?: string;
  drift?: string;
  asOf?: { capture_url?: string | null } | null;
}

/** The sources of one cause: how many, their hosts and (for HTTP errors) statuses, and the most common reason given. */
interface CauseGroup {
  cause: FailureCause;
  sources: number;
  /** host:port, sorted. */
  hosts: string[];
  /** HTTP statuses answered, sorted (http_status only). */
  statuses?: number[];
  reason: string;
}

/** A task none of whose sources could be fetched: its no_match answers say nothing about its quotes. */
export interface SourcesFailure {
  /** Distinct source URLs. */
  sources: number;
  /** Their hosts (host:port), sorted. */
  hosts: string[];
  /** The most common reason the agent's report gives. */
  reason: string;
  /** The sources by cause, most sources first (absent in reports written before evaluate told causes apart). */
  causes?: CauseGroup[];
}

/**
 * A task whose claims needed Wayback captures and got none, because every archive request failed (not because it had
 * none).
 */
export interface ArchiveFailure {
  /** Claims that needed a capture. */
  claims: number;
  /** The most common reason the agent's report gives (the archive left alone, an error answer, ...). */
  reason: string;
  /** The archive the task's solve.sh names (`--wayback-url`), when it names one. */
  waybackUrl?: string;
}

/** A source whose live fetch failed, as evaluate names it: once per URL, with its task, cause and reason. */
export interface UnreadSource {
  url: string;
  task: string;
  cause: FailureCause;
  reason: string;
  /** Its claims were judged on Wayback captures (the live fetch failed, the archive had the text). */
  fromCaptures: boolean;
}

/** What advice reads of a task's run (local-harness TaskRun). */
interface FailedTask {
  task: string;
  sourcesFailed?: SourcesFailure;
  archiveFailed?: ArchiveFailure;
}

/** FetchErrorKind (src/fetch/errors.ts) to cause; kinds not named here are `other`. */
const CAUSE_OF_KIND: Record<string, FailureCause> = {
  refused: 'network_rule',
  connection: 'connection',
  dns: 'dns',
  timeout: 'timeout',
  tls: 'tls',
  http_status: 'http_status',
  not_archived: 'replay',
};

/**
 * The messages quotecheck gives each kind of failure (src/fetch/errors.ts, request.ts), for reports written before
 * `fetch_error`: a report that has the field is classified by it alone.
 */
const CAUSE_OF_MESSAGE: readonly [RegExp, FailureCause][] = [
  [/^DNS lookup failed/, 'dns'],
  [/^connection failed: /, 'connection'],
  [/^timed out|^source time budget/, 'timeout'],
  [/^TLS failure: /, 'tls'],
  [/^not in the archive \(replaying/, 'replay'],
];

/** Where a claim's note goes on past the fetch's own message (src/asof/judge.ts's notes on the archive). */
const AFTER_FETCH_MESSAGE =
  /; (?:not drift: |no capture as of the date could be had: |the Wayback Machine was not asked: )/;

/** The live fetch's message in a note judged on a capture: "(the live source: the live fetch failed: MSG)". */
const LIVE_FAILED = /\(the live source: the live fetch failed: (.*?)\)$/;

/**
 * Whether the row's live source could not be read: its report says so (`fetch_error`), or, in older reports, its note
 * or diagnosis.
 */
export function unread(row: RowFacts): boolean {
  if (row.fetchError !== undefined) return true;
  return row.diagnosis === 'fetch_failed' || (row.note?.includes('the live fetch failed: ') ?? false);
}

/** The failed fetch's own message, from the row's note. */
function fetchReason(row: RowFacts): string {
  const note = row.note ?? '';
  const live = LIVE_FAILED.exec(note);
  if (live) return live[1]!;
  const cut = AFTER_FETCH_MESSAGE.exec(note);
  return (cut ? note.slice(0, cut.index) : note) || 'no reason given';
}

/** The cause of an unread row: its `fetch_error`, else (an older report) its status and message. */
function causeOf(row: RowFacts): FailureCause {
  if (row.fetchError !== undefined) return CAUSE_OF_KIND[row.fetchError] ?? 'other';
  const reason = fetchReason(row);
  if (refusedByNetworkRule(reason)) return 'network_rule';
  if (row.httpStatus !== undefined && /^HTTP \d/.test(reason)) return 'http_status';
  return CAUSE_OF_MESSAGE.find(([re]) => re.test(reason))?.[1] ?? 'other';
}

const sourceOf = (url: string): string => url.replace(/#.*$/, '');

/** The most common of `values` (the first met on a tie). */
function mostCommon(values: readonly string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/** Unread rows grouped by cause, most sources first. */
function causeGroups(rows: readonly RowFacts[]): CauseGroup[] {
  const by = new Map<FailureCause, RowFacts[]>();
  for (const r of rows) {
    const cause = causeOf(r);
    by.set(cause, [...(by.get(cause) ?? []), r]);
  }
  const groups = [...by].map(([cause, rs]): CauseGroup => {
    const statuses = [...new Set(rs.flatMap((r) => (r.httpStatus === undefined ? [] : [r.httpStatus])))].sort(
      (a, b) => a - b,
    );
    return {
      cause,
      sources: new Set(rs.map((r) => sourceOf(r.url))).size,
      hosts: [...new Set(rs.map((r) => hostOf(r.url)))].sort(),
      ...(cause === 'http_status' ? { statuses } : {}),
      reason: mostCommon(rs.map(fetchReason)) ?? 'no reason given',
    };
  });
  return groups.sort((a, b) => b.sources - a.sources);
}

/**
 * Every source failed to fetch: the agent's report says fetch_failed for every claim it judged
 * (claims rejected as invalid aside). Undefined when the report is missing or anything was fetched.
 */
export function sourcesFailure(rows: readonly RowFacts[]): SourcesFailure | undefined {
  const judged = rows.filter((r) => r.diagnosis !== undefined && r.diagnosis !== 'invalid_claim');
  if (judged.length === 0 || judged.some((r) => r.diagnosis !== 'fetch_failed')) return undefined;
  const causes = causeGroups(judged);
  return {
    sources: new Set(judged.map((r) => sourceOf(r.url))).size,
    hosts: [...new Set(judged.map((r) => hostOf(r.url)))].sort(),
    reason: causes[0]!.reason,
    causes,
  };
}

/** Every source of a run whose live fetch failed, once per URL (the first task naming it), in the rows' order. */
export function unreadSources(tasks: readonly { task: string; rows: readonly RowFacts[] }[]): UnreadSource[] {
  const found = new Map<string, UnreadSource>();
  for (const t of tasks) {
    for (const row of t.rows) {
      if (!unread(row)) continue;
      const url = sourceOf(row.url);
      const seen = found.get(url);
      if (seen) {
        seen.fromCaptures ||= !!row.asOf?.capture_url;
        continue;
      }
      found.set(url, {
        url,
        task: t.task,
        cause: causeOf(row),
        reason: fetchReason(row),
        fromCaptures: !!row.asOf?.capture_url,
      });
    }
  }
  return [...found.values()];
}

/**
 * Sources read whose bytes no longer hash to a claim's evidence: drift needs bytes; a source that could not be read is
 * not among them.
 */
export function driftedSources(rows: readonly RowFacts[]): number {
  return new Set(rows.filter((r) => r.drift === 'changed' && !unread(r)).map((r) => sourceOf(r.url))).size;
}

/** A claim's note when it needed a capture and got none (src/asof/judge.ts), with the archive's reason. */
const NO_CAPTURE_NOTE = new RegExp(
  /(?:no text as of that date could be had|no capture as of the date could be had): (.*?)/.source +
    /(?:\. That the quote is not in today's text proves nothing)?$/.source,
);
/** Reasons that say the archive itself failed, not that it had no capture (src/wayback/client.ts). */
const ARCHIVE_FAILED = new RegExp(
  `^(?:${[
    'Wayback Machine left alone',
    'the Wayback Machine answered ',
    "the Wayback Machine's CDX answer could not be read",
    "refused: .* is not on the archive's origin",
  ].join('|')})`,
);

/**
 * Every archive request failed: some claims on sources that were read needed a Wayback capture, none got one, and
 * the agent's report gives each of them an archive failure as the reason (not "no capture"). Claims whose source
 * could not be read are not counted: their cause is the source, not the archive. Undefined when the report is
 * missing, nothing needed a capture, or any capture was had.
 */
export function archiveFailure(rows: readonly RowFacts[]): Omit<ArchiveFailure, 'waybackUrl'> | undefined {
  if (rows.some((r) => r.asOf?.capture_url)) return undefined;
  const reasons = rows.flatMap((r) => {
    const m = r.note === undefined || unread(r) ? null : NO_CAPTURE_NOTE.exec(r.note);
    return m ? [m[1]!] : [];
  });
  if (reasons.length === 0 || !reasons.every((reason) => ARCHIVE_FAILED.test(reason))) return undefined;
  return { claims: reasons.length, reason: mostCommon(reasons)! };
}

/** Loopback hosts (127/8, localhost, ::1; `host` may carry a port): sources a local server must be serving. */
function isLoopbackHost(host: string): boolean {
  return isLoopback(host.replace(/:\d+$/, '').replace(/^\[|\]$/g, ''));
}

/** "a, b, c, ..." : the first three. */
function firstHosts(hosts: readonly string[]): string {
  return `${hosts.slice(0, 3).join(', ')}${hosts.length > 3 ? ', ...' : ''}`;
}

/** "task x", "all 3 tasks", "2 of 5 tasks (a, b)". */
function whichTasks(names: readonly string[], total: number): string {
  if (names.length === total) return total === 1 ? `task ${names[0]}` : `all ${total} tasks`;
  return `${names.length} of ${total} tasks (${names.join(', ')})`;
}

/** What advice may be told besides the reports: evaluate's options. */
interface AdviceOptions {
  /** What to check when a connection failed (the golden server), instead of the generic question. */
  sourcesHint?: string;
  /** The archive every task replays (evaluate --replay). */
  replay?: string;
}

/** What to check for one cause: the question that cause asks, never another's. */
function causeCheck(g: CauseGroup, opts: AdviceOptions): string {
  const hosts = firstHosts(g.hosts);
  switch (g.cause) {
    case 'network_rule':
      return (
        `they are on a private network (${hosts}), which quotecheck refuses unless told: ` +
        "export the dataset with --allow-private (it goes into solve.sh), or pass it to the agent's quotecheck"
      );
    case 'connection':
      return (
        opts.sourcesHint ??
        (g.hosts.every(isLoopbackHost)
          ? `they are on loopback (${hosts}): is the server that serves them running, on that port?`
          : `is the server up, and can this machine reach ${hosts}? (proxy, firewall)`)
      );
    case 'dns': {
      const where = '(DNS, /etc/hosts; a name only this machine knows must resolve where the task runs too)';
      return `${g.hosts.length === 1 ? 'does' : 'do'} ${hosts} resolve here? ${where}`;
    }
    case 'timeout':
      return `${hosts} did not answer in time: is it overloaded, or is a firewall dropping the packets?`;
    case 'tls': {
      const refused = '(self-signed and expired certificates are refused; a local server can serve plain http)';
      const one = g.hosts.length === 1;
      return (
        `${one ? 'does' : 'do'} ${hosts} present a certificate valid for ${one ? 'its name' : 'their names'}? ` +
        `${refused}`
      );
    }
    case 'http_status': {
      const answered = `the sources answered HTTP ${g.statuses?.length ? g.statuses.join(', ') : 'errors'}`;
      const failing = g.statuses?.some((s) => s >= 500) ? ' (a 5xx through every retry: is the server failing?)' : '';
      // The server answered: whether it runs is not the question; whether the page is meant to be missing is.
      const intended =
        'their claims are right as no_match labels only if those pages are meant to be gone; otherwise fix the URLs';
      return `${answered}${failing}: ${intended} or what serves them`;
    }
    case 'replay':
      return (
        `do the sources appear in the archive ${opts.replay ?? 'replayed'}? (a replay answers only what was ` +
        `recorded)`
      );
    default:
      return "each claim's note in the agent's evidence report (logs/agent/report.jsonl) says what happened";
  }
}

/** How a cause is named after "N sources": what happened to them. */
const CAUSE_WORDS: Record<FailureCause, string> = {
  network_rule: 'refused by the network rule',
  connection: 'with the connection refused or dropped',
  dns: 'whose names did not resolve',
  timeout: 'that did not answer in time',
  tls: 'whose TLS handshake failed',
  http_status: 'that answered an HTTP error',
  replay: 'not in the replayed archive',
  other: 'that failed otherwise',
};

/**
 * What to check when every source of some task failed: the cause named first, one line per cause (a dataset's
 * tasks can fail for different reasons: a server down, a page gone, a private address refused), never the archive.
 */
export function sourcesAdvice(failed: readonly FailedTask[], total: number, opts: AdviceOptions): string[] {
  if (failed.length === 0) return [];
  const lead = `every source failed in ${whichTasks(
    failed.map((t) => t.task),
    total,
  )}, so ${failed.length === 1 ? 'its' : 'their'} no_match answers say nothing about the quotes`;
  const byCause = new Map<FailureCause, { tasks: string[]; groups: CauseGroup[] }>();
  for (const t of failed) {
    const f = t.sourcesFailed!;
    // A report from before causes were told apart: one group, classified from its reason.
    const groups = f.causes ?? [
      { cause: causeOf({ url: '', note: f.reason }), sources: f.sources, hosts: f.hosts, reason: f.reason },
    ];
    for (const g of groups) {
      const entry = byCause.get(g.cause) ?? { tasks: [], groups: [] };
      entry.tasks.push(t.task);
      entry.groups.push(g);
      byCause.set(g.cause, entry);
    }
  }
  const merged = [...byCause].map(([cause, { tasks, groups }]) => ({ tasks, group: mergeGroups(cause, groups) }));
  merged.sort((a, b) => b.group.sources - a.group.sources);
  if (merged.length === 1) return [`${lead}: ${merged[0]!.group.reason}. Check: ${causeCheck(merged[0]!.group, opts)}`];
  return [
    `${lead}; ${merged.length} causes, most sources first:`,
    ...merged.map(({ tasks, group: g }) => {
      const where = `${tasks.length === 1 ? 'task' : 'tasks'} ${tasks.join(', ')}`;
      return (
        `${g.sources} ${g.sources === 1 ? 'source' : 'sources'} ${CAUSE_WORDS[g.cause]} (${where}): ` +
        `${g.reason}. Check: ${causeCheck(g, opts)}`
      );
    }),
  ];
}

/** One cause's groups from several tasks as one. */
function mergeGroups(cause: FailureCause, groups: readonly CauseGroup[]): CauseGroup {
  const statuses = [...new Set(groups.flatMap((g) => g.statuses ?? []))].sort((a, b) => a - b);
  return {
    cause,
    sources: groups.reduce((n, g) => n + g.sources, 0),
    hosts: [...new Set(groups.flatMap((g) => g.hosts))].sort(),
    ...(cause === 'http_status' ? { statuses } : {}),
    reason: groups[0]!.reason,
  };
}

/**
 * What to check when every archive request of some task failed: its claims on sources that were read, and changed,
 * and needed captures were judged on today's changed text.
 */
export function archiveAdvice(failed: readonly FailedTask[], total: number): string[] {
  if (failed.length === 0) return [];
  const which = whichTasks(
    failed.map((t) => t.task),
    total,
  );
  const claims = failed.reduce((n, t) => n + t.archiveFailed!.claims, 0);
  const urls = [...new Set(failed.flatMap((t) => (t.archiveFailed!.waybackUrl ? [t.archiveFailed!.waybackUrl] : [])))];
  const archive =
    urls.length > 0
      ? `the archive solve.sh names (--wayback-url ${urls.join(', ')})`
      : 'the Wayback Machine (https://web.archive.org, or the --wayback-url given)';
  const loopback = urls.length > 0 && urls.every((u) => isLoopbackHost(hostOf(u)));
  const stub = loopback
    ? 'It is on loopback: is the Wayback stub running? (`quotecheck wayback-stub --captures DIR --host H --port P`, ' +
      'or the golden server for the golden drift task)'
    : 'Can this machine reach it? (DNS, proxy, firewall; the archive paces and may refuse bursts)';
  return [
    `every archive request failed in ${which}, so ${claims === 1 ? 'the claim' : `the ${claims} claims`} that ` +
      `needed a Wayback capture ${claims === 1 ? 'was' : 'were'} judged on today's changed text: ` +
      `${failed[0]!.archiveFailed!.reason}. Check: is ${archive} reachable? ${stub}`,
  ];
}

/** A cause in a few words, for a task's problems column: "connection refused or dropped", "HTTP 404, 410". */
function causeShort(g: CauseGroup): string {
  if (g.cause === 'http_status') return `HTTP ${g.statuses?.length ? g.statuses.join(', ') : 'errors'}`;
  const short: Record<Exclude<FailureCause, 'http_status'>, string> = {
    network_rule: 'refused by the network rule',
    connection: 'connection refused or dropped',
    dns: 'name not resolved',
    timeout: 'timed out',
    tls: 'TLS failed',
    replay: 'not in the replayed archive',
    other: 'failed',
  };
  return short[g.cause];
}

/** A task's problem when every source failed: how many, where, and why. */
export function sourcesProblem(f: SourcesFailure): string {
  const why = f.causes?.length ? `: ${f.causes.map(causeShort).join('; ')}` : '';
  return `every source failed (${f.sources} ${f.sources === 1 ? 'source' : 'sources'} on ${f.hosts.join(', ')}${why})`;
}

/**
 * The evaluate table's line about sources that could not be read (apart from drifted ones), a few of each cause named;
 * undefined if none.
 */
export function unreadLine(sources: readonly UnreadSource[]): string | undefined {
  if (sources.length === 0) return undefined;
  const by = new Map<FailureCause, UnreadSource[]>();
  for (const s of sources) by.set(s.cause, [...(by.get(s.cause) ?? []), s]);
  const name = (s: UnreadSource): string => {
    const status = s.cause === 'http_status' ? /^HTTP \d+/.exec(s.reason)?.[0] : undefined;
    const notes = [status, s.fromCaptures ? 'judged on Wayback captures' : undefined].filter(Boolean);
    return notes.length ? `${s.url} (${notes.join('; ')})` : s.url;
  };
  const groups = [...by]
    .sort((a, b) => b[1].length - a[1].length)
    .map(
      ([cause, ss]) =>
        `${ss.length} ${CAUSE_WORDS[cause]}: ${ss.slice(0, 3).map(name).join(', ')}${ss.length > 3 ? ', ...' : ''}`,
    );
  return `sources that could not be read (no bytes, so not drift): ${sources.length}; ${groups.join('; ')}`;
}
