// Every quotecheck command line in the documentation's shell blocks (README.md and docs/*.md) is one the CLI accepts:
// parsed by the real program (buildProgram) with every action replaced by nothing, so an unknown option, a missing
// value, a bad choice or a conflict fails here, naming the file and the line. A synopsis is expanded: every optional
// [group] in, each alternative of `a | b` and of `auto|always` in turn. Placeholders (FILE, URL, DIR) stand as
// values; N, SECONDS and MB become 1. Commands that are not quotecheck (npm, docker, harbor) are out of scope.
import { CommanderError, type Command } from 'commander';
import { describe, expect, test } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';
import { docFiles, readDoc, shellLines } from '../support/docs.js';

type Word =
  | { kind: 'word'; alternatives: string[] }
  | { kind: 'op'; op: string }
  | { kind: 'open' }
  | { kind: 'close' };

/** A shell line's words, as sh splits them (quotes removed; an unquoted `#` starting a word ends the line), with `[`, `]` and operators apart. */
function words(line: string): Word[] {
  const out: Word[] = [];
  let i = 0;
  while (i < line.length) {
    while (line[i] === ' ' || line[i] === '\t') i++;
    if (i >= line.length || line[i] === '#') break;
    while (line[i] === '[') {
      out.push({ kind: 'open' });
      i++;
    }
    const op = /^(\|\||&&|\||;|&)(?=\s|$)/.exec(line.slice(i));
    if (op) {
      out.push({ kind: 'op', op: op[1]! });
      i += op[1]!.length;
      continue;
    }
    // One word: quoted parts kept whole; an unquoted `|` inside it separates alternative values.
    const alternatives: string[] = [''];
    let closes = 0;
    let quoted = false;
    while (i < line.length && line[i] !== ' ' && line[i] !== '\t') {
      const c = line[i]!;
      if (c === "'") {
        const end = line.indexOf("'", i + 1);
        if (end < 0) throw new Error(`unclosed ' in: ${line}`);
        alternatives[alternatives.length - 1] += line.slice(i + 1, end);
        quoted = true;
        i = end + 1;
      } else if (c === '"') {
        let j = i + 1;
        let s = '';
        while (j < line.length && line[j] !== '"') {
          if (line[j] === '\\' && j + 1 < line.length) j++;
          s += line[j];
          j++;
        }
        if (j >= line.length) throw new Error(`unclosed " in: ${line}`);
        alternatives[alternatives.length - 1] += s;
        quoted = true;
        i = j + 1;
      } else if (c === ']') {
        closes++;
        i++;
      } else if (c === '|') {
        alternatives.push('');
        i++;
      } else {
        if (closes) throw new Error(`"]" inside a word in: ${line}`);
        alternatives[alternatives.length - 1] += c;
        i++;
      }
    }
    if (alternatives.some((a) => a !== '') || quoted) out.push({ kind: 'word', alternatives });
    for (let k = 0; k < closes; k++) out.push({ kind: 'close' });
  }
  return out;
}

type Item =
  | { kind: 'word'; alternatives: string[] }
  | { kind: 'op'; op: string }
  | { kind: 'group'; alternatives: Item[][] };

/** Words into items: each [ ... ] a group whose `|` (spaced) separates alternatives. */
function items(ws: Word[]): Item[] {
  let pos = 0;
  const sequence = (inGroup: boolean): Item[][] => {
    const alternatives: Item[][] = [[]];
    while (pos < ws.length) {
      const w = ws[pos++]!;
      if (w.kind === 'open')
        alternatives[alternatives.length - 1]!.push({ kind: 'group', alternatives: sequence(true) });
      else if (w.kind === 'close') {
        if (!inGroup) throw new Error('a "]" without its "["');
        return alternatives;
      } else if (w.kind === 'op' && w.op === '|' && inGroup) alternatives.push([]);
      else alternatives[alternatives.length - 1]!.push(w);
    }
    if (inGroup) throw new Error('a "[" without its "]"');
    return alternatives;
  };
  return sequence(false)[0]!;
}

/** Every variant worth parsing: all optional groups in (first alternatives, first values), then each other alternative and value in turn. */
function expand(seq: Item[]): string[][] {
  const choicePoints = (s: Item[]): number =>
    s.reduce(
      (n, it) =>
        n +
        (it.kind === 'word'
          ? it.alternatives.length > 1
            ? 1
            : 0
          : it.kind === 'group'
            ? 1 + it.alternatives.reduce((m, a) => m + choicePoints(a), 0)
            : 0),
      0,
    );
  // A variant is "vary choice point k to its alternative j"; -1 means all first choices.
  const render = (s: Item[], pick: (id: number, n: number) => number, counter: { id: number }): string[] =>
    s.flatMap((it): string[] => {
      if (it.kind === 'op') return [it.op];
      if (it.kind === 'word') {
        if (it.alternatives.length === 1) return [it.alternatives[0]!];
        return [it.alternatives[pick(counter.id++, it.alternatives.length)]!];
      }
      const which = pick(counter.id++, it.alternatives.length);
      return render(it.alternatives[which]!, pick, counter);
    });
  const variants: string[][] = [render(seq, () => 0, { id: 0 })];
  const total = choicePoints(seq);
  for (let k = 0; k < total; k++) {
    for (let j = 1; j < 20; j++) {
      let exists = false;
      const v = render(
        seq,
        (id, n) => {
          if (id !== k) return 0;
          if (j < n) exists = true;
          return j < n ? j : 0;
        },
        { id: 0 },
      );
      if (!exists) break;
      variants.push(v);
    }
  }
  return variants;
}

const PREFIXES: string[][] = [['quotecheck'], ['npx', 'quotecheck'], ['node', 'bin/quotecheck.js']];
const NUMERIC_PLACEHOLDERS = new Set(['N', 'SECONDS', 'MB']);

/** The quotecheck argv of each command in a word list split at its operators (also a command after `--`, as in `claude mcp add x -- npx quotecheck mcp`). */
function quotecheckArgvs(argv: string[]): string[][] {
  const out: string[][] = [];
  let segment: string[] = [];
  const take = (s: string[]) => {
    for (let from = 0; from < s.length; from = s.indexOf('--', from) + 1) {
      const rest = s.slice(from);
      const prefix = PREFIXES.find((p) => p.every((w, k) => rest[k] === w));
      if (prefix) out.push(rest.slice(prefix.length).map((w) => (NUMERIC_PLACEHOLDERS.has(w) ? '1' : w)));
      if (!s.includes('--', from)) break;
    }
  };
  for (const w of argv) {
    if (['|', '||', '&&', ';', '&'].includes(w)) {
      take(segment);
      segment = [];
    } else segment.push(w);
  }
  take(segment);
  return out;
}

/** The real program, every action a no-op and every exit a thrown CommanderError, with nothing printed. */
function parser(): Command {
  const program = buildProgram();
  const silent = { writeOut: () => {}, writeErr: () => {}, outputError: () => {} };
  for (const cmd of [program, ...program.commands]) {
    cmd.exitOverride();
    cmd.configureOutput(silent);
  }
  for (const cmd of program.commands) cmd.action(() => {});
  return program;
}

/** Why commander refuses `argv`, or undefined when it accepts it (help and version are accepted). */
function refusal(argv: string[]): string | undefined {
  const program = parser();
  try {
    program.parse(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return undefined;
      return `${e.code}: ${e.message}`;
    }
    throw e;
  }
  if (!program.commands.some((c) => c.name() === argv[0])) return `no command named "${argv[0]}"`;
  return undefined;
}

interface DocCommand {
  where: string;
  line: string;
  argvs: string[][];
}

function docCommands(): DocCommand[] {
  const out: DocCommand[] = [];
  for (const file of docFiles()) {
    for (const { line, text } of shellLines(readDoc(file))) {
      if (!/quotecheck(\.js)?\b/.test(text)) continue;
      const seq = items(words(text));
      const argvs = expand(seq).flatMap(quotecheckArgvs);
      if (argvs.length) out.push({ where: `${file}:${line}`, line: text.trim(), argvs });
    }
  }
  return out;
}

describe('every quotecheck command in README.md and docs/ is one the CLI accepts', () => {
  const commands = docCommands();

  test('the documentation has commands to check, for most subcommands', () => {
    expect(commands.length).toBeGreaterThanOrEqual(15);
    const used = new Set(commands.flatMap((c) => c.argvs.map((a) => a[0])));
    for (const name of ['run', 'verify', 'mcp', 'evaluate', 'compare', 'export']) expect(used, name).toContain(name);
  });

  test.each(commands.map((c) => [c.where, c] as const))('%s', (_where, c) => {
    const problems = c.argvs.flatMap((argv) => {
      const why = refusal(argv);
      return why ? [`${c.where}: \`quotecheck ${argv.join(' ')}\` (from \`${c.line}\`): ${why}`] : [];
    });
    expect(problems).toEqual([]);
  });
});

describe('the command reader', () => {
  test('a synopsis: optional groups, alternatives, value choices, quotes and comments', () => {
    const seq = items(
      words(
        `quotecheck export --labelled x.jsonl --out d/ [--per-task 10 | --task-field task] [--layout harbor|skillsbench] [--with-skill [DIR]] --agent 'my agent --x' # note`,
      ),
    );
    const vs = expand(seq).flatMap(quotecheckArgvs);
    expect(vs[0]).toEqual([
      'export',
      '--labelled',
      'x.jsonl',
      '--out',
      'd/',
      '--per-task',
      '10',
      '--layout',
      'harbor',
      '--with-skill',
      'DIR',
      '--agent',
      'my agent --x',
    ]);
    expect(vs.some((v) => v.includes('--task-field') && !v.includes('--per-task'))).toBe(true);
    expect(vs.some((v) => v.includes('skillsbench'))).toBe(true);
  });

  test('pipes, && and a command after --', () => {
    expect(
      quotecheckArgvs(expand(items(words('echo "a long quote" | quotecheck verify --url URL --quote -'))).flat()),
    ).toEqual([['verify', '--url', 'URL', '--quote', '-']]);
    expect(quotecheckArgvs(expand(items(words('claude mcp add quotecheck -- npx quotecheck mcp'))).flat())).toEqual([
      ['mcp'],
    ]);
    expect(quotecheckArgvs(expand(items(words('npm ci && npm pack'))).flat())).toEqual([]);
  });

  test('refusals are caught: an unknown option, a bad choice, a missing value, a bad number, an unknown command', () => {
    expect(refusal(['run', '--claims', 'c.json'])).toBeUndefined();
    expect(refusal(['run', '--no-such-option'])).toMatch(/unknownOption/);
    expect(refusal(['run', '--wayback', 'sometimes'])).toMatch(/invalidArgument/);
    expect(refusal(['run', '--claims'])).toMatch(/optionMissingArgument/);
    expect(refusal(['run', '--concurrency', 'N'])).toMatch(/invalidArgument/);
    expect(refusal(['evaluate'])).toMatch(/missingMandatoryOptionValue/);
    expect(refusal(['frobnicate'])).toBeDefined();
    expect(refusal(['verify', '--help'])).toBeUndefined();
  });
});
