// What quotecheck says: one error prefix, claims counted from 1, file-system errors in words, JSON errors
// with line and column, plurals, grade's wrong ids, help defaults that agree with the documentation (docs/cli.md), files ending in a newline.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Option } from 'commander';
import { describe, expect, test } from 'vitest';
import { plural, thousands } from '../../src/messages.js';
import { ClaimsFileError, parseClaims } from '../../src/claims/schema.js';
import { DEFAULT_MAX_CLAIMS_BYTES, readClaimsFile } from '../../src/claims/claims-file.js';
import { buildProgram } from '../../src/cli/main.js';
import { defaultShown } from '../../src/cli/commands/command.js';
import { RETRYABLE_STATUSES } from '../../src/fetch/policy.js';
import { listTasks } from '../../src/task/task-dir.js';
import { readLabelled } from '../../src/dataset/labelled.js';
import { ExportError } from '../../src/dataset/export-error.js';
import { docSection } from '../support/docs.js';
import { ROOT, runCliInProcess, serve, tempDir, writeJson } from '../support/helpers.js';
import { WRONG_IDS_SHOWN, formatGrade, grade, readLabels, describeFsError } from '../../src/grader/grade.mjs';

const ERRNO = /\bE[A-Z]{2,}\b/;

describe('file-system errors in words', () => {
  test("describeFsError words the codes and keeps node's words (without the code) for the rest", () => {
    const err = (code: string, message: string) => Object.assign(new Error(message), { code });
    expect(describeFsError(err('ENOENT', "ENOENT: no such file or directory, open '/x'"))).toBe('no such file');
    expect(describeFsError(err('EISDIR', 'EISDIR: illegal operation on a directory, read'))).toBe('is a folder');
    expect(describeFsError(err('EACCES', "EACCES: permission denied, open '/x'"))).toBe('permission denied');
    expect(describeFsError(err('EWHATEVER', "EWHATEVER: something odd happened, open '/x'"))).toBe(
      'something odd happened',
    );
  });

  test('reading a missing or folder claims file: the reason in words, no errno code', async () => {
    const dir = tempDir();
    await expect(readClaimsFile(join(dir, 'none.json'))).rejects.toThrowError(
      `${join(dir, 'none.json')}: cannot read claims file: no such file`,
    );
    await expect(readClaimsFile(dir)).rejects.toThrowError(`${dir}: cannot read claims file: is a folder`);
    expect(() => readLabels(dir, 'gold')).toThrowError(`gold file ${dir} is a folder, not a regular file: not graded`);
    expect(() => readLabels(join(dir, 'none.json'), 'gold')).toThrowError(
      `cannot read gold file ${join(dir, 'none.json')}: no such file`,
    );
    expect(() => readLabelled(join(dir, 'none.jsonl'))).toThrowError(
      `cannot read --labelled ${join(dir, 'none.jsonl')}: no such file`,
    );
  });

  test('a dataset: a missing folder, and a task.toml that is a folder, in words', () => {
    const dir = tempDir();
    expect(() => listTasks(join(dir, 'none'))).toThrowError(`${join(dir, 'none')}: no such folder`);
    mkdirSync(join(dir, 'task.toml'));
    expect(() => listTasks(dir)).toThrowError(`${join(dir, 'task.toml')}: is a folder`);
  });
});

describe('claims counted from 1', () => {
  test('the first claim is claim #1, and a duplicate names both by their place in the file', () => {
    expect(() => parseClaims([{ quote: 'q', url: 'http://127.0.0.1/' }])).toThrowError(
      /^claims\.json: claim #1: field "id" is missing/,
    );
    const dup = [
      { id: 'a', quote: 'q', url: 'http://127.0.0.1/' },
      { id: 'b', quote: 'q', url: 'http://127.0.0.1/' },
      { id: 'a', quote: 'r', url: 'http://127.0.0.1/' },
    ];
    expect(() => parseClaims(dup)).toThrowError(
      'claims.json: claim #3 (id "a"): duplicate id, first used by claim #1; ids must be unique',
    );
  });
});

describe('invalid JSON: line and column', () => {
  test.each([
    [
      'a trailing comma',
      '[\n  {"id": "a", "quote": "q", "url": "http://x/"},\n]',
      'line 3, column 1: expected a value, found "]"',
    ],
    [
      'text that is not JSON at all (V8 gives no position)',
      'id,quote,url\n',
      'line 1, column 1: expected a value, found "i"',
    ],
    [
      'a raw line break in a string',
      '[{"id": "a", "quote": "two\nlines"}]',
      'line 1, column 27: a line break or control character inside a string must be escaped, found "\\n"',
    ],
    [
      'a file cut short',
      '[{"id": "a"',
      "line 1, column 12: expected ',' or '}' after a property value, found the end of the file",
    ],
  ])('%s', async (_what, text, where) => {
    const file = join(tempDir(), 'claims.json');
    writeFileSync(file, text);
    await expect(readClaimsFile(file)).rejects.toThrowError(
      new ClaimsFileError(`${file}: is not valid JSON: ${where}`),
    );
  });

  test('grade: an answers file that is not JSON names the line and column', async () => {
    const file = join(tempDir(), 'answers.json');
    writeFileSync(file, '{\n  "a": "verbatim"\n  "b": "no_match"\n}\n');
    expect(() => readLabels(file, 'answers')).toThrowError(
      `answers file ${file} is not valid JSON: line 3, column 3: expected ',' or '}' after a property value, found "\\""`,
    );
  });
});

describe('export --labelled: JSON Lines, or a JSON array', () => {
  const rows = [
    { id: 'a', quote: 'first quote', url: 'http://127.0.0.1/a', label: 'verbatim' },
    { id: 'b', quote: 'second quote', url: 'http://127.0.0.1/b', label: 'no_match' },
  ];

  test('a JSON array (pretty-printed or not) and {"claims": [...]} read as the same claims as JSON Lines', () => {
    const dir = tempDir();
    const jsonl = join(dir, 'l.jsonl');
    writeFileSync(jsonl, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
    const expected = readLabelled(jsonl).map((c) => [c.claim.id, c.label, c.public]);
    for (const [name, text] of [
      ['array.json', JSON.stringify(rows, null, 2)],
      ['one-line.json', JSON.stringify(rows)],
      ['object.json', JSON.stringify({ claims: rows }, null, 2)],
    ] as const) {
      writeFileSync(join(dir, name), text);
      expect(
        readLabelled(join(dir, name)).map((c) => [c.claim.id, c.label, c.public]),
        name,
      ).toEqual(expected);
    }
  });

  test('problems name the line of a JSON Lines file and the claim (from 1) of an array', () => {
    const dir = tempDir();
    const jsonl = join(dir, 'l.jsonl');
    writeFileSync(jsonl, `${JSON.stringify(rows[0])}\n\n{"id": "c", "quote": "q" "url": "http://x/"}\n`);
    expect(() => readLabelled(jsonl)).toThrowError(
      new ExportError(
        `${jsonl}: line 3, column 26: not valid JSON: expected ',' or '}' after a property value, found "\\""`,
      ),
    );
    writeFileSync(jsonl, `${JSON.stringify(rows[0])}\n${JSON.stringify(rows[0])}\n`);
    expect(() => readLabelled(jsonl)).toThrowError(
      `${jsonl}: line 2 (id "a"): duplicate id, first used by line 1; ids must be unique`,
    );
    const array = join(dir, 'a.json');
    writeFileSync(array, JSON.stringify([rows[0], { ...rows[1], label: 'maybe' }]));
    expect(() => readLabelled(array)).toThrowError(
      `${array}: claim #2 (id "b"): field "label" must be "verbatim" or "no_match", got "maybe"`,
    );
    writeFileSync(array, '[1, 2]');
    expect(() => readLabelled(array)).toThrowError(
      `${array}: claim #1: expected a JSON object; labelled claims are JSON Lines (one claim object per line) or a JSON array of claim objects`,
    );
  });
});

describe('grade names the wrong ids', () => {
  test('each with the expected and the given label, up to the limit, then how many more', () => {
    const gold = new Map<string, string>();
    const answers = new Map<string, string>();
    for (let i = 1; i <= WRONG_IDS_SHOWN + 5; i++) {
      gold.set(`c${i}`, 'verbatim');
      answers.set(`c${i}`, i === 2 ? 'maybe' : 'no_match');
    }
    gold.set('ok', 'no_match');
    answers.set('ok', 'no_match');
    gold.set('unanswered', 'no_match');
    const text = formatGrade(grade(answers, gold));
    const lines = text.split('\n');
    const head = lines.indexOf(`${WRONG_IDS_SHOWN + 6} wrong answers (the first ${WRONG_IDS_SHOWN}):`);
    expect(head, text).toBeGreaterThan(0);
    expect(lines[head + 1]).toBe('  "c1": expected verbatim, given no_match');
    expect(lines[head + 2]).toBe('  "c2": expected verbatim, given "maybe" (not a label)');
    expect(
      lines.slice(head + 1, head + 1 + WRONG_IDS_SHOWN).every((l) => /^ {2}"c\d+": expected verbatim, given /.test(l)),
    ).toBe(true);
    expect(lines[head + 1 + WRONG_IDS_SHOWN]).toBe('  and 6 more');
    expect(text).not.toMatch(/"ok"/);
  });

  test('one wrong answer: singular, no "more"', () => {
    const text = formatGrade(grade(new Map([['a', 'verbatim']]), new Map([['a', 'no_match']])));
    expect(text).toMatch(/^1 wrong answer:\n {2}"a": expected no_match, given verbatim$/m);
    expect(text).not.toMatch(/more/);
  });
});

describe('plurals', () => {
  test('plural()', () => {
    expect([plural(0, 'claim'), plural(1, 'claim'), plural(2, 'claim'), plural(1234, 'claim')]).toEqual([
      '0 claims',
      '1 claim',
      '2 claims',
      '1,234 claims',
    ]);
  });

  test('thousands() writes every number as en-US toLocaleString does (whole numbers grouped without it)', () => {
    const numbers = [
      0,
      -0,
      7,
      999,
      1000,
      12_345,
      999_999,
      1_000_000,
      -1,
      -1234,
      -9_876_543,
      Number.MAX_SAFE_INTEGER,
      2 ** 60,
      1.5,
      1234.5678,
      -0.25,
      1e21,
    ];
    for (const n of numbers) expect(thousands(n), String(n)).toBe(n.toLocaleString('en-US'));
  });

  test('a baseline run of one claim says "1 claim"; an export of one claim, "1 task (1 claim, 1 source)"', async () => {
    const dir = tempDir();
    const claims = writeJson(join(dir, 'claims.json'), [{ id: 'a', quote: 'q', url: 'http://127.0.0.1:9/' }]);
    const r = await runCliInProcess([
      'run',
      '--allow-private',
      '--baseline',
      '--claims',
      claims,
      '--out',
      join(dir, 'answers.json'),
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/baseline: 1 claim answered no_match/);
    const labelled = join(dir, 'l.jsonl');
    writeFileSync(labelled, '{"id": "a", "quote": "q", "url": "http://127.0.0.1:9/", "label": "no_match"}\n');
    const e = await runCliInProcess(['export', '--allow-private', '--labelled', labelled, '--out', join(dir, 'ds')]);
    expect(e.code, e.stderr).toBe(0);
    expect(e.stdout).toMatch(/^wrote 1 task \(1 claim, 1 source\) to /);
  });
});

describe('one error prefix across commands', () => {
  test('run, grade, export and commander\'s own usage errors all say "quotecheck: error: ", in words', async () => {
    const dir = tempDir();
    const results = await Promise.all([
      runCliInProcess(['run', '--allow-private', '--claims', join(dir, 'none.json'), '--out', join(dir, 'a.json')]),
      runCliInProcess(['grade', '--answers', join(dir, 'none.json'), '--gold', join(dir, 'none.json')]),
      runCliInProcess(['export', '--labelled', join(dir, 'none.jsonl'), '--out', join(dir, 'ds')]),
      runCliInProcess(['run', '--allow-private', '--no-such-option']),
      runCliInProcess(['grade']),
    ]);
    for (const r of results) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.split('\n')[0], r.stderr).toMatch(/^quotecheck: error: \S/);
      expect(r.stderr).not.toMatch(ERRNO);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(results[0]!.stderr).toMatch(/cannot read claims file: no such file/);
  });
});

describe('every file quotecheck writes ends with a newline', () => {
  test('answers, report, reward and every exported task file', async () => {
    const server = await serve([
      {
        path: '/p',
        body: '<html><body><p>The committee approved the budget.</p></body></html>',
        headers: { 'content-type': 'text/html; charset=utf-8' },
      },
    ]);
    const dir = tempDir();
    const claims = writeJson(join(dir, 'claims.json'), [
      { id: 'a', quote: 'approved the budget', url: `${server.origin}/p` },
      { id: 'b', quote: 'rejected', url: `${server.origin}/p` },
    ]);
    const out = join(dir, 'answers.json');
    const report = join(dir, 'report.jsonl');
    const reward = join(dir, 'reward.txt');
    const labelled = join(dir, 'l.jsonl');
    writeFileSync(
      labelled,
      '{"id": "a", "quote": "q", "url": "http://127.0.0.1:9/a", "label": "no_match", "verify_date": "2024-01-01"}\n',
    );
    const runs = await Promise.all([
      runCliInProcess([
        'run',
        '--allow-private',
        '--claims',
        claims,
        '--out',
        out,
        '--report',
        report,
        '--format',
        'list',
        '--quiet',
      ]),
      runCliInProcess(['export', '--allow-private', '--labelled', labelled, '--out', join(dir, 'ds')]),
    ]);
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    writeJson(join(dir, 'gold.json'), { a: 'verbatim', b: 'no_match' });
    expect(
      (await runCliInProcess(['grade', '--answers', out, '--gold', join(dir, 'gold.json'), '--reward', reward])).code,
    ).toBe(0);
    const files = [out, report, reward];
    const walk = (d: string): void => {
      for (const name of readdirSync(d)) {
        const p = join(d, name);
        if (statSync(p).isDirectory()) walk(p);
        else files.push(p);
      }
    };
    walk(join(dir, 'ds'));
    expect(files.length).toBeGreaterThanOrEqual(3 + 7);
    // Text files (the packed oracle is a gzip file, no text).
    for (const f of files.filter((p) => !p.endsWith('.tgz')))
      expect(readFileSync(f, 'utf8').endsWith('\n'), f).toBe(true);
  });
});

describe('help: every option shows its default, in one format, and agrees with the documentation', () => {
  const program = buildProgram();
  const commands = program.commands;
  const helpText = (name: string) => program.commands.find((c) => c.name() === name)!.helpInformation();

  test.each(['run', 'verify', 'grade', 'bench', 'export'])(
    '%s: each option ends with (default: X) or (required), choices before it',
    (name) => {
      const cmd = commands.find((c) => c.name() === name)!;
      const help = cmd.createHelp();
      for (const option of cmd.options as Option[]) {
        const described = help.optionDescription(option);
        expect(described, option.flags).toMatch(
          /\((?:one of [^;)]+; )?(?:default: [^()]+(?:\([^)]*\)[^()]*)*|required)\)$/,
        );
        expect(described).not.toMatch(/\(default: .*\(default/);
        expect(described).not.toMatch(/"/.test(option.description) ? /$^/ : /default: "/);
      }
    },
  );

  test("run: the documented option table's defaults are the help's defaults, option for option", () => {
    // The table lives under the `quotecheck run` heading (docs/cli.md), found wherever it moves.
    const { text: section } = docSection('`quotecheck run`');
    const rows = [...section.matchAll(/^\| `(--[a-z-]+)[^`]*` \| ([^|]+) \|/gm)].map(
      (m) => [m[1]!, m[2]!.trim().replace(/`/g, '')] as const,
    );
    const run = program.commands.find((c) => c.name() === 'run')!;
    const options = (run.options as Option[]).filter((o) => o.long !== '--help');
    expect(rows.map(([flag]) => flag).sort()).toEqual(options.map((o) => o.long).sort());
    for (const [flag, readmeDefault] of rows) {
      const shown = defaultShown(options.find((o) => o.long === flag)!)!.replace(/^default: /, '');
      // The README abbreviates the User-Agent: "quotecheck/0.1.0 (...)".
      if (readmeDefault.endsWith('(...)')) expect(shown.startsWith(readmeDefault.slice(0, -5)), flag).toBe(true);
      else expect(shown, flag).toBe(readmeDefault);
    }
    expect(defaultShown(options.find((o) => o.long === '--max-claims-mb')!)).toBe(
      `default: ${DEFAULT_MAX_CLAIMS_BYTES / 1024 / 1024}`,
    );
  });

  test('the retried statuses: the same list in the retry policy, run and verify help and the documentation (docs/cli.md)', () => {
    const readmeRow = docSection('`quotecheck run`')
      .text.split('\n')
      .find((l) => l.startsWith('| `--retries N`'))!;
    const list = [...RETRYABLE_STATUSES].join(', ');
    expect(readmeRow).toContain(list);
    for (const name of ['run', 'verify'])
      expect(helpText(name).replace(/\s+/g, ' ')).toContain(`HTTP ${list} (never other 4xx)`);
  });

  test('no help text cites a file that is not in the repository', () => {
    const texts = [program.helpInformation(), ...program.commands.map((c) => c.helpInformation())]
      .join('\n')
      .replace(/\s+/g, ' ');
    // Documents (*.md) and repository paths; a task's own files (task.toml, task.md, instruction.md, solve.sh) are formats, not citations.
    const TASK_FILES = new Set(['task.md', 'instruction.md']);
    const cited = [...texts.matchAll(/[\w./-]+\.md\b|\b(?:src|test|golden|bench|skills|docs)\/[\w./-]+/g)]
      .map((m) => m[0])
      .filter((f) => !TASK_FILES.has(f));
    for (const file of cited) expect(() => statSync(join(ROOT, file)), `help cites ${file}`).not.toThrow();
    expect(texts).not.toMatch(/design\.md/);
  });
});
