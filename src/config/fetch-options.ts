// The fetch and pipeline options, declared once: each one's flag, kind, default, unit, help and the commands that take
// it, and the setting it becomes. The command line adds a command's options from this table
// (src/cli/commands/flags.ts), the commands' option types and the settings they pass on derive from it, and
// test/cli/options.test.ts holds every command's --help (and the MCP tools' inputs) to it. Loads no commander and no
// pipeline: --help and the MCP schemas read it.
import { DEFAULT_OPTIONS, MCP_DEFAULTS } from './defaults.js';
import { RETRYABLE_STATUSES } from '../fetch/policy.js';
import { WAYBACK_MODES, type HtmlViewChoice, type RunSettings, type WaybackMode } from './settings.js';

/** The commands that take options of this table. */
export type OptionCommand = 'run' | 'label' | 'verify' | 'mcp';

/**
 * How a flag's value is read: `count` a whole number ≥ 0, `positive` a whole number ≥ 1, `seconds` a number of seconds
 * above 0, `megabytes` a number of megabytes above 0, `text` any string, `choice` one of `choices`, `switch` no value.
 */
export type OptionKind = 'count' | 'positive' | 'seconds' | 'megabytes' | 'text' | 'choice' | 'switch';

/** Where an option lands: a run setting (settings.ts), or the MCP server's cache size and work budget. */
type OptionSettings = RunSettings & { cacheBytes: number; workBytes: number };

/** The settings of the MCP server's own, not the pipeline's: runSettingsOf leaves them out. */
const SESSION_SETTINGS: ReadonlySet<keyof OptionSettings> = new Set(['cacheBytes', 'workBytes']);

export interface OptionSpec {
  /** Commander's flags: `--timeout <seconds>`. */
  flags: string;
  kind: OptionKind;
  /** What the flag's number counts (help names it in the flags' placeholder too). */
  unit?: 'seconds' | 'megabytes' | 'a minute';
  help: string;
  choices?: readonly string[];
  /** The default commander passes, in the flag's unit; without one the option is absent unless given. */
  default?: string | number | boolean;
  /** How help shows a default commander does not pass (the code's own default applies). */
  shown?: string;
  /** The option these are refused together with (its attribute name). */
  conflicts?: string;
  commands: readonly OptionCommand[];
  /** The setting it becomes, and the factor from the flag's unit to the setting's (seconds to milliseconds: 1000). */
  setting?: keyof OptionSettings;
  scale?: number;
}

/** Bytes in a megabyte: the `--*-mb` options' unit. */
const MB = 1024 * 1024;

/** Megabytes as a flag gives them (`--max-mb 0.5`), in whole bytes. */
export function bytesOf(megabytes: number): number {
  return Math.round(megabytes * MB);
}
const ALL = ['run', 'label', 'verify', 'mcp'] as const satisfies readonly OptionCommand[];
const SOURCES = ['run', 'label'] as const satisfies readonly OptionCommand[];
const WAYBACK = ['run', 'verify', 'mcp'] as const satisfies readonly OptionCommand[];

/** The statuses `--retries` retries, listed from the retry policy itself so help and code cannot disagree. */
const RETRIED = `network errors, timeouts and HTTP ${[...RETRYABLE_STATUSES].join(', ')} (never other 4xx)`;

/**
 * The table, keyed by commander's attribute name (the flag in camelCase). Help lists a command's options in this order.
 * docs/cli.md's option tables say the same.
 */
export const FETCH_OPTIONS = {
  htmlView: {
    flags: '--html-view <view>',
    kind: 'choice',
    choices: ['article', 'full', 'any'] as const satisfies readonly HtmlViewChoice[],
    help: 'which HTML text may match: Readability article, full page, or either',
    default: DEFAULT_OPTIONS.htmlView,
    commands: ['run', 'label', 'verify'],
    setting: 'htmlView',
  },
  concurrency: {
    flags: '--concurrency <n>',
    kind: 'positive',
    help: 'requests at once, in all',
    default: DEFAULT_OPTIONS.concurrency,
    commands: SOURCES,
    setting: 'concurrency',
  },
  perHost: {
    flags: '--per-host <n>',
    kind: 'positive',
    help:
      'requests at once to one host (halved while it answers 429 or 503 with no Retry-After; ' +
      'a source waiting for a retry holds none)',
    default: DEFAULT_OPTIONS.perHost,
    commands: SOURCES,
    setting: 'perHost',
  },
  timeout: {
    flags: '--timeout <seconds>',
    kind: 'seconds',
    unit: 'seconds',
    help: 'limit for one HTTP attempt',
    default: DEFAULT_OPTIONS.timeoutMs / 1000,
    commands: ALL,
    setting: 'timeoutMs',
    scale: 1000,
  },
  retries: {
    flags: '--retries <n>',
    kind: 'count',
    help: `further attempts on ${RETRIED}`,
    default: DEFAULT_OPTIONS.retries,
    commands: ALL,
    setting: 'retries',
  },
  sourceBudget: {
    flags: '--source-budget <seconds>',
    kind: 'seconds',
    unit: 'seconds',
    help: 'time for one source, all attempts and waits included',
    default: DEFAULT_OPTIONS.sourceBudgetMs / 1000,
    commands: ALL,
    setting: 'sourceBudgetMs',
    scale: 1000,
  },
  extractTimeout: {
    flags: '--extract-timeout <seconds>',
    kind: 'seconds',
    unit: 'seconds',
    help: 'time to extract one source (pdftotext, or the HTML parser)',
    default: DEFAULT_OPTIONS.extractTimeoutMs / 1000,
    commands: ALL,
    setting: 'extractTimeoutMs',
    scale: 1000,
  },
  allowPrivate: {
    flags: '--allow-private',
    kind: 'switch',
    help:
      'also reach private networks (loopback, 10/8, 172.16/12, 192.168/16, link-local, unique-local, ...): ' +
      "refused by default, as claims' URLs come from strangers",
    default: DEFAULT_OPTIONS.allowPrivate,
    commands: ALL,
    setting: 'allowPrivate',
  },
  blockPrivate: {
    flags: '--block-private',
    kind: 'switch',
    help: 'refuse URLs on private networks, as without --allow-private (kept for old scripts)',
    shown: 'on',
    conflicts: 'allowPrivate',
    commands: ['run', 'label', 'verify'],
  },
  userAgent: {
    flags: '--user-agent <string>',
    kind: 'text',
    help: 'User-Agent header',
    shown: DEFAULT_OPTIONS.userAgent,
    commands: ['run', 'label', 'verify'],
    setting: 'userAgent',
  },
  maxMb: {
    flags: '--max-mb <megabytes>',
    kind: 'megabytes',
    unit: 'megabytes',
    help: 'largest body accepted (decoded size)',
    shown: String(DEFAULT_OPTIONS.maxBytes / MB),
    commands: SOURCES,
    setting: 'maxBytes',
    scale: MB,
  },
  wayback: {
    flags: '--wayback <mode>',
    kind: 'choice',
    choices: WAYBACK_MODES as readonly WaybackMode[],
    help:
      'look up Wayback captures: auto (claims with evidence whose source changed and whose quote is not in ' +
      "today's text), always (also claims without evidence not found live), strict (also claims with evidence " +
      "found in today's changed text: one archive lookup per such URL and date, for re-deriving gold), off",
    default: DEFAULT_OPTIONS.wayback,
    commands: ['run', 'verify'],
    setting: 'wayback',
  },
  waybackUrl: {
    flags: '--wayback-url <url>',
    kind: 'text',
    help: 'the Wayback Machine (the loopback Wayback stub in tests)',
    default: DEFAULT_OPTIONS.waybackUrl,
    commands: WAYBACK,
    setting: 'waybackUrl',
  },
  waybackRate: {
    flags: '--wayback-rate <n>',
    kind: 'positive',
    unit: 'a minute',
    help: 'requests a minute to the Wayback Machine',
    default: DEFAULT_OPTIONS.waybackPerMinute,
    commands: WAYBACK,
    setting: 'waybackPerMinute',
  },
  cacheMb: {
    flags: '--cache-mb <megabytes>',
    kind: 'megabytes',
    unit: 'megabytes',
    help:
      'memory kept for the session, in megabytes: HTTP bodies and extracted texts (least recently used dropped ' +
      'first, also to make room for the pages in work: --work-mb)',
    default: MCP_DEFAULTS.cacheMb,
    commands: ['mcp'],
    setting: 'cacheBytes',
    scale: MB,
  },
  workMb: {
    flags: '--work-mb <megabytes>',
    kind: 'megabytes',
    unit: 'megabytes',
    help:
      'pages the calls fetch, extract and search at once, in megabytes of their bodies (a page larger runs alone): ' +
      'a call past it waits its turn, in arrival order (pages of 2 MB or less never wait); each megabyte in work ' +
      'holds about 20 MB of memory while it is worked on',
    default: MCP_DEFAULTS.workMb,
    commands: ['mcp'],
    setting: 'workBytes',
    scale: MB,
  },
} as const satisfies Record<string, OptionSpec>;

type Table = typeof FETCH_OPTIONS;
type FetchOptionName = keyof Table;

/** The value commander gives for an option of this spec (in the flag's unit). */
type ValueOf<S> = S extends { kind: 'switch' }
  ? boolean
  : S extends { kind: 'choice'; choices: readonly (infer C)[] }
    ? C
    : S extends { kind: 'text' }
      ? string
      : number;

type Takes<C extends OptionCommand, K extends FetchOptionName> = C extends Table[K]['commands'][number] ? K : never;
type WithDefault<K extends FetchOptionName> = Table[K] extends { default: unknown } ? K : never;

/** A command's table options as commander parses them: present when they have a default, else optional. */
export type FetchFlags<C extends OptionCommand> = {
  [K in FetchOptionName as Takes<C, K> & WithDefault<K>]: ValueOf<Table[K]>;
} & {
  [K in FetchOptionName as Exclude<Takes<C, K>, WithDefault<K>>]?: ValueOf<Table[K]>;
};

type SettingOf<K extends FetchOptionName> = K extends FetchOptionName
  ? Table[K] extends { setting: infer S extends keyof OptionSettings }
    ? S
    : never
  : never;

/** The settings a command's table options become: set when the option has a default, else only when given. */
export type CommandSettings<C extends OptionCommand> = {
  [K in FetchOptionName as SettingOf<Takes<C, K> & WithDefault<K>>]: OptionSettings[SettingOf<K>];
} & { [K in FetchOptionName as SettingOf<Exclude<Takes<C, K>, WithDefault<K>>>]?: OptionSettings[SettingOf<K>] };

// Checked at compile time: every option's value (scaled) fits the setting it becomes.
type Misfit = {
  [K in FetchOptionName]: Table[K] extends { setting: infer S extends keyof OptionSettings }
    ? ValueOf<Table[K]> extends OptionSettings[S]
      ? never
      : K
    : never;
}[FetchOptionName];
const fits: [Misfit] extends [never] ? true : Misfit = true;
void fits;

/** The table's options a command takes, in the table's order. */
export function optionsOf(command: OptionCommand): [FetchOptionName, OptionSpec][] {
  return (Object.entries(FETCH_OPTIONS) as [FetchOptionName, OptionSpec][]).filter(([, spec]) =>
    spec.commands.includes(command),
  );
}

/**
 * A command's parsed options turned into settings, in the settings' units; an option not given and without default is
 * left out.
 */
export function fetchSettings<C extends OptionCommand>(command: C, flags: FetchFlags<C>): CommandSettings<C> {
  const values = flags as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [name, spec] of optionsOf(command)) {
    const value = values[name];
    // An option whose default is the code's own (`shown`) given empty (`--user-agent ''`) leaves that default.
    if (spec.setting === undefined || value === undefined || (value === '' && spec.default === undefined)) continue;
    const scaled = spec.scale === undefined ? value : (value as number) * spec.scale;
    // Megabytes become whole bytes (as bytesOf); seconds become milliseconds as they are.
    out[spec.setting] = spec.kind === 'megabytes' ? Math.round(scaled as number) : scaled;
  }
  return out as CommandSettings<C>;
}

/** The run settings among a command's settings (what the pipeline takes): the MCP session's own left out. */
export function runSettingsOf<C extends OptionCommand>(
  command: C,
  settings: Omit<CommandSettings<C>, 'cacheBytes' | 'workBytes'>,
): Omit<CommandSettings<C>, 'cacheBytes' | 'workBytes'> {
  const values = settings as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [, spec] of optionsOf(command)) {
    if (spec.setting === undefined || SESSION_SETTINGS.has(spec.setting) || values[spec.setting] === undefined)
      continue;
    out[spec.setting] = values[spec.setting];
  }
  return out as Omit<CommandSettings<C>, 'cacheBytes' | 'workBytes'>;
}
