// The fetch options are declared once (src/config/fetch-options.ts): every command that takes them declares exactly the table's
// options, with the table's help, choices and default; they parse into the settings the table names, in its units;
// and the MCP tools' inputs that take the same settings agree with it.
import type { Command, Option } from 'commander';
import { describe, expect, test } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';
import { defaultShown } from '../../src/cli/commands/command.js';
import { DEFAULT_OPTIONS, MCP_DEFAULTS } from '../../src/config/defaults.js';
import { verifyInput } from '../../src/mcp/tool-schemas.js';
import {
  FETCH_OPTIONS,
  fetchSettings,
  optionsOf,
  type OptionCommand,
  type OptionSpec,
} from '../../src/config/fetch-options.js';

const COMMANDS: OptionCommand[] = ['run', 'label', 'verify', 'mcp'];
const SPECS = Object.entries(FETCH_OPTIONS) as [string, OptionSpec][];
const longOf = (spec: OptionSpec): string => spec.flags.split(' ')[0]!;

/** The program with every action replaced by nothing: parsing only. */
function program(): Command {
  const p = buildProgram();
  for (const c of p.commands) c.action(() => undefined);
  return p;
}

function command(p: Command, name: string): Command {
  return p.commands.find((c) => c.name() === name)!;
}

/** What help shows after the table's help: its choices and its default, as HELP_CONFIG writes them. */
function shownDefault(spec: OptionSpec): string {
  if (spec.default === undefined) return `default: ${spec.shown}`;
  if (typeof spec.default === 'boolean') return `default: ${spec.default ? 'on' : 'off'}`;
  return `default: ${String(spec.default)}`;
}

describe('the fetch options table (src/config/fetch-options.ts) is what each command declares', () => {
  const p = buildProgram();

  test.each(COMMANDS)('%s: exactly the table options it takes, with their help, choices and default', (name) => {
    const cmd = command(p, name);
    const options = cmd.options as Option[];
    const taken = optionsOf(name).map(([, spec]) => longOf(spec));
    const tableFlags = new Set(SPECS.map(([, spec]) => longOf(spec)));
    expect(options.map((o) => o.long).filter((flag) => tableFlags.has(flag!))).toEqual(taken);
    const help = cmd.helpInformation().replace(/\s+/g, ' ');
    for (const [attribute, spec] of optionsOf(name)) {
      const option = options.find((o) => o.long === longOf(spec))!;
      expect(option.flags, attribute).toBe(spec.flags);
      expect(option.attributeName(), attribute).toBe(attribute);
      expect(option.description, attribute).toBe(spec.help);
      expect(option.argChoices, attribute).toEqual(spec.choices ? [...spec.choices] : undefined);
      expect(defaultShown(option), attribute).toBe(shownDefault(spec));
      const choices = spec.choices ? `one of ${spec.choices.join(', ')}; ` : '';
      expect(help, attribute).toContain(`${spec.flags} ${spec.help} (${choices}${shownDefault(spec)})`);
    }
  });

  test('every option of the table is taken by some command, and names a unit where it counts one', () => {
    for (const [attribute, spec] of SPECS) {
      expect(spec.commands.length, attribute).toBeGreaterThan(0);
      if (spec.kind === 'seconds') expect(spec.unit, attribute).toBe('seconds');
      if (spec.kind === 'megabytes')
        expect([spec.unit, longOf(spec).endsWith('-mb')], attribute).toEqual(['megabytes', true]);
      // A setting's name says its unit: milliseconds and bytes are scaled from the flag's seconds and megabytes.
      if (spec.unit === 'seconds') expect([spec.setting?.endsWith('Ms'), spec.scale], attribute).toEqual([true, 1000]);
      if (spec.unit === 'megabytes')
        expect([spec.setting?.endsWith('Bytes'), spec.scale], attribute).toEqual([true, 1024 * 1024]);
    }
  });
});

describe('the table options parse into the settings it names, in their units', () => {
  test('run with no options: the pipeline defaults (DEFAULT_OPTIONS), and no User-Agent or body limit of its own', async () => {
    const p = program();
    await p.parseAsync(['node', 'quotecheck', 'run']);
    const settings = fetchSettings('run', command(p, 'run').opts() as never) as Record<string, unknown>;
    const expected = { ...DEFAULT_OPTIONS } as Record<string, unknown>;
    for (const key of Object.keys(settings)) expect(settings[key], key).toEqual(expected[key]);
    expect(Object.keys(settings).sort()).toEqual(
      [
        'allowPrivate',
        'concurrency',
        'extractTimeoutMs',
        'htmlView',
        'perHost',
        'retries',
        'sourceBudgetMs',
        'timeoutMs',
        'wayback',
        'waybackPerMinute',
        'waybackUrl',
      ].sort(),
    );
  });

  test('seconds become milliseconds, megabytes whole bytes, a rate a minute waybackPerMinute', async () => {
    const p = program();
    await p.parseAsync([
      'node',
      'quotecheck',
      'run',
      '--timeout',
      '1.5',
      '--max-mb',
      '0.5',
      '--wayback-rate',
      '4',
      '--user-agent',
      'me',
      '--allow-private',
    ]);
    expect(fetchSettings('run', command(p, 'run').opts() as never)).toMatchObject({
      timeoutMs: 1500,
      maxBytes: 512 * 1024,
      waybackPerMinute: 4,
      userAgent: 'me',
      allowPrivate: true,
    });
  });

  test('mcp: its settings are the pipeline limits, the cache and the work budget, in bytes from megabytes', async () => {
    const p = program();
    await p.parseAsync(['node', 'quotecheck', 'mcp']);
    expect(command(p, 'mcp').opts().cacheMb).toBe(MCP_DEFAULTS.cacheMb);
    expect(fetchSettings('mcp', command(p, 'mcp').opts() as never)).toEqual({
      timeoutMs: DEFAULT_OPTIONS.timeoutMs,
      retries: DEFAULT_OPTIONS.retries,
      sourceBudgetMs: DEFAULT_OPTIONS.sourceBudgetMs,
      extractTimeoutMs: DEFAULT_OPTIONS.extractTimeoutMs,
      allowPrivate: false,
      waybackUrl: DEFAULT_OPTIONS.waybackUrl,
      waybackPerMinute: DEFAULT_OPTIONS.waybackPerMinute,
      cacheBytes: MCP_DEFAULTS.cacheMb * 1024 * 1024,
      workBytes: MCP_DEFAULTS.workMb * 1024 * 1024,
    });
    const small = program();
    await small.parseAsync(['node', 'quotecheck', 'mcp', '--cache-mb', '0.003', '--work-mb', '2.5']);
    const settings = fetchSettings('mcp', command(small, 'mcp').opts() as never);
    expect(settings.cacheBytes).toBe(Math.round(0.003 * 1024 * 1024));
    expect(settings.workBytes).toBe(Math.round(2.5 * 1024 * 1024));
  });
});

describe("the MCP tools' inputs agree with the table where they take the same settings", () => {
  test('verify_quote html_view: the choices, wording and default of --html-view', () => {
    const schema = verifyInput.html_view.unwrap();
    expect(schema.options).toEqual([...FETCH_OPTIONS.htmlView.choices]);
    expect(verifyInput.html_view.description).toBe(
      `${FETCH_OPTIONS.htmlView.help} (default ${FETCH_OPTIONS.htmlView.default})`,
    );
  });

  test('verify_quote wayback: the modes and the default of --wayback', () => {
    const schema = verifyInput.wayback.unwrap();
    expect([...schema.options].sort()).toEqual([...FETCH_OPTIONS.wayback.choices].sort());
    expect(verifyInput.wayback.description).toContain(`${FETCH_OPTIONS.wayback.default} (default`);
  });
});
