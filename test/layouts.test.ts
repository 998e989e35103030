// Both task layouts as each harness reads them: SkillsBench 1.1's task.md (EvalScope, AgentCompass) and Harbor's,
// played here as the harnesses do it: front matter split by hand, skills stripped for no-skill runs, the oracle and
// the verifier run at the container paths each layout uses.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { runEvaluation } from '../src/evaluate/evaluate.js';
import { listTasks } from '../src/task/task-dir.js';
import { QUICK_ISOLATION } from './support/engine.js';
import { ROOT, runCliInProcess, serve, tempDir } from './support/helpers.js';
import { checkTaskFolder } from './support/harbor-helpers.js';
import { shellQuote } from '../src/sh-quote.js';

type Layout = 'harbor' | 'skillsbench';

/**
 * Front matter as the simplest readers take it (EvalScope's SkillsBench adapter): the text between the first
 * `---` pair, one `key: value` a line, nesting by indentation; quoted strings unquoted, numbers as numbers.
 * Lines it does not understand (list items) are skipped, as such readers skip them.
 */
function naiveFrontMatter(text: string): { settings: Record<string, unknown>; body: string } {
  const lines = text.split('\n');
  if (lines[0] !== '---') throw new Error('task.md does not open with ---');
  const end = lines.indexOf('---', 1);
  if (end < 0) throw new Error('task.md has no closing ---');
  const root: Record<string, unknown> = {};
  const stack: { indent: number; table: Record<string, unknown> }[] = [{ indent: -1, table: root }];
  for (const line of lines.slice(1, end)) {
    const m = /^( *)([A-Za-z_][\w-]*):(?: (.*))?$/.exec(line);
    if (!m) continue;
    const indent = m[1]!.length;
    while (stack.length > 1 && stack.at(-1)!.indent >= indent) stack.pop();
    const parent = stack.at(-1)!.table;
    const raw = (m[3] ?? '').trim();
    if (raw === '') {
      const table: Record<string, unknown> = {};
      parent[m[2]!] = table;
      stack.push({ indent, table });
    } else {
      parent[m[2]!] = /^".*"$/.test(raw) ? JSON.parse(raw) : /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
    }
  }
  return { settings: root, body: lines.slice(end + 1).join('\n') };
}

/** What a harness's no-skill mode does to a Dockerfile: drops the line that copies the skills in. */
const stripSkills = (dockerfile: string): string =>
  dockerfile
    .split('\n')
    .filter((l) => !/^\s*COPY\s+skills\s/i.test(l))
    .join('\n');

/** A labelled file of claims against one loopback page: half are on it. */
async function labelledDataset(dir: string): Promise<string> {
  const page =
    '<html><head><title>Harbour report</title></head><body><article><p>The harbour master counted forty-two ships before the storm.</p><p>Nobody left the pier that night.</p></article></body></html>';
  const server = await serve([
    { path: '/report', body: page, headers: { 'content-type': 'text/html; charset=utf-8' } },
  ]);
  const url = `${server.origin}/report`;
  const rows = [
    { task: 'harbour', id: 'h1', quote: 'counted forty-two ships', url, label: 'verbatim' },
    { task: 'harbour', id: 'h2', quote: 'counted forty-three ships', url, label: 'no_match' },
    { task: 'pier', id: 'p1', quote: 'Nobody left the pier that night.', url: `${url}#pier`, label: 'verbatim' },
    { task: 'pier', id: 'p2', quote: 'Everybody left the pier', url, label: 'no_match' },
    { task: 'pier', id: 'p3', quote: 'the storm never came', url, label: 'no_match' },
  ];
  const file = join(dir, 'labelled.jsonl');
  writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return file;
}

async function exportAs(labelled: string, out: string, layout: Layout, ...extra: string[]): Promise<void> {
  const r = await runCliInProcess([
    'export',
    '--allow-private',
    '--labelled',
    labelled,
    '--out',
    out,
    '--layout',
    layout,
    '--task-field',
    'task',
    ...extra,
  ]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
}

const canUnshare =
  process.getuid?.() === 0 &&
  spawnSync('unshare', ['--mount', '--propagation', 'private', 'true'], { stdio: 'ignore' }).status === 0;

describe('export --layout skillsbench: what EvalScope and AgentCompass read', () => {
  it("task.md: front matter a line-by-line reader parses as YAML does, then the same instruction as Harbor's", async () => {
    const dir = tempDir();
    const labelled = await labelledDataset(dir);
    const pkg = [
      '--org',
      'acme-bench',
      '--author',
      'Ada Lovelace <ada@example.org>',
      '--keyword',
      'quotes',
      '--keyword',
      'news',
    ];
    await exportAs(labelled, join(dir, 'sb'), 'skillsbench', ...pkg);
    await exportAs(labelled, join(dir, 'hb'), 'harbor', ...pkg);
    expect(readdirSync(join(dir, 'sb')).sort()).toEqual(['README.md', 'harbour', 'pier']);
    for (const task of ['harbour', 'pier']) {
      const t = join(dir, 'sb', task);
      for (const f of [
        'task.md',
        'environment/Dockerfile',
        'environment/claims.json',
        'oracle/solve.sh',
        'verifier/test.sh',
        'verifier/gold.json',
      ])
        expect(existsSync(join(t, f)), f).toBe(true);
      for (const f of ['task.toml', 'instruction.md', 'solution', 'tests'])
        expect(existsSync(join(t, f)), f).toBe(false);
      const text = readFileSync(join(t, 'task.md'), 'utf8');
      const { settings, body } = naiveFrontMatter(text);
      expect(settings).toMatchObject({
        schema_version: '1.3',
        agent: { timeout_sec: 600 },
        verifier: { timeout_sec: 120 },
        environment: { network_mode: 'public', workdir: '/app' },
      });
      // The same [task] as task.toml's: the name <org>/<task>, the description, the authors and keywords (one line each).
      expect(settings.task).toMatchObject({
        name: `acme-bench/${task}`,
        description: expect.stringMatching(/^Check \d quotes against their sources/),
      });
      const yaml = parseYaml(text.split('\n---\n')[0]!.replace(/^---\n/, '')) as Record<string, unknown>;
      expect(yaml.task).toEqual(
        (parseToml(readFileSync(join(dir, 'hb', task, 'task.toml'), 'utf8')) as Record<string, unknown>).task,
      );
      expect(yaml.task).toMatchObject({
        authors: [{ name: 'Ada Lovelace', email: 'ada@example.org' }],
        keywords: ['quotes', 'news'],
      });
      // A YAML parser reads the same settings; the simplest reader takes the one-line lists as one value each.
      for (const key of ['schema_version', 'agent', 'verifier', 'environment'])
        expect(yaml[key], key).toEqual(settings[key]);
      const { authors: _a, keywords: _k, ...scalars } = yaml.task as Record<string, unknown>;
      expect(settings.task).toMatchObject(scalars);
      // The instruction is the one the Harbor layout gives, and the Dockerfile starts the agent in /app.
      expect(body.trim()).toBe(readFileSync(join(dir, 'hb', task, 'instruction.md'), 'utf8').trim());
      expect(readFileSync(join(t, 'environment', 'Dockerfile'), 'utf8')).toMatch(/^WORKDIR \/app$/m);
      expect(readFileSync(join(t, 'verifier', 'gold.json'), 'utf8')).toBe(
        readFileSync(join(dir, 'hb', task, 'tests', 'gold.json'), 'utf8'),
      );
      // Public base image, nothing of quotecheck for the agent; the oracle and the grader in their own folders.
      checkTaskFolder(t, { layout: 'skillsbench' });
      checkTaskFolder(join(dir, 'hb', task));
    }
  });

  it('--with-skill: environment/skills/ and one COPY line; a no-skill build keeps no trace of a skills path', async () => {
    const dir = tempDir();
    const labelled = await labelledDataset(dir);
    await exportAs(labelled, join(dir, 'sb'), 'skillsbench', '--with-skill');
    await exportAs(labelled, join(dir, 'plain'), 'skillsbench');
    for (const task of ['harbour', 'pier']) {
      const env = join(dir, 'sb', task, 'environment');
      expect(readFileSync(join(env, 'skills', 'quote-verification', 'SKILL.md'), 'utf8')).toBe(
        readFileSync(join(ROOT, 'skills', 'quote-verification', 'SKILL.md'), 'utf8'),
      );
      const dockerfile = readFileSync(join(env, 'Dockerfile'), 'utf8');
      expect(dockerfile.split('\n').filter((l) => /skills/i.test(l))).toEqual(['COPY skills /skills']);
      const stripped = stripSkills(dockerfile);
      expect(stripped).not.toMatch(/skills/i);
      // Stripped, it is the Dockerfile of the dataset exported without the skill: the tool, which travels inside the
      // skill folder, goes with it.
      expect(stripped).toBe(readFileSync(join(dir, 'plain', task, 'environment', 'Dockerfile'), 'utf8'));
      expect(existsSync(join(env, 'skills', 'quote-verification', 'quotecheck', 'quotecheck.mjs'))).toBe(true);
      expect(stripped).not.toMatch(/quotecheck/i);
      checkTaskFolder(join(dir, 'sb', task), { layout: 'skillsbench', skill: true });
    }
  });

  it('bench reads both layouts: oracle 1.000 and the baseline at the no_match share, the same rewards task by task', async () => {
    const dir = tempDir();
    const labelled = await labelledDataset(dir);
    const rewards: Record<string, Record<string, number>> = {};
    for (const layout of ['harbor', 'skillsbench'] as const) {
      const out = join(dir, layout);
      await exportAs(labelled, out, layout);
      expect(listTasks(out).map((t) => [t.name, t.layout, t.agentTimeoutSec, t.verifierTimeoutSec])).toEqual([
        ['harbour', layout, 600, 120],
        ['pier', layout, 600, 120],
      ]);
      for (const agent of ['oracle', 'baseline']) {
        const report = await runEvaluation({
          tasksDir: out,
          agent,
          outDir: join(dir, `run-${layout}-${agent}`),
          ...QUICK_ISOLATION,
        });
        for (const t of report.tasks) expect(t.problems, `${layout} ${agent} ${t.task}`).toEqual([]);
        rewards[`${layout} ${agent}`] = Object.fromEntries(report.tasks.map((t) => [t.task, t.reward]));
      }
    }
    expect(rewards['harbor oracle']).toEqual({ harbour: 1, pier: 1 });
    expect(rewards['harbor baseline']!.harbour).toBe(0.5);
    expect(rewards['harbor baseline']!.pier).toBeCloseTo(2 / 3, 5); // reward.txt holds 6 decimals
    expect(rewards['skillsbench oracle']).toEqual(rewards['harbor oracle']);
    expect(rewards['skillsbench baseline']).toEqual(rewards['harbor baseline']);
  }, 180_000);
});

describe.skipIf(!canUnshare)("the scripts at each harness's container paths (private mount namespace)", () => {
  /** Runs the oracle, then (as EvalScope does) recreates /logs/verifier and runs the verifier with its output in test-stdout.txt. */
  async function runAtContainerPaths(
    task: string,
    oracle: string,
    verifier: string,
    work: string,
  ): Promise<{ reward: string; stdout: string; code: number | null }> {
    const app = join(work, 'app');
    const logs = join(work, 'logs');
    const bin = join(work, 'bin');
    for (const d of [app, logs, bin]) mkdirSync(d, { recursive: true });
    cpSync(join(task, 'environment', 'claims.json'), join(app, 'claims.json'));
    // A `quotecheck` first on PATH that fails loudly: the oracle runs the build its task ships, the verifier its own grader.
    writeFileSync(join(bin, 'quotecheck'), '#!/bin/sh\necho "not this quotecheck" >&2\nexit 99\n');
    chmodSync(join(bin, 'quotecheck'), 0o755);
    const [oracleFolder, verifierFolder] = oracle === '/oracle' ? ['oracle', 'verifier'] : ['solution', 'tests'];
    const mounts = [
      [app, '/app'],
      [logs, '/logs'],
      [join(task, oracleFolder!), oracle],
      [join(task, verifierFolder!), verifier],
    ]
      .map(([from, to]) => `mkdir -p ${to} && mount --bind ${shellQuote(from!)} ${to}`)
      .join(' && ');
    const script = `${mounts} && cd /app && bash ${oracle}/solve.sh > /dev/null 2>&1; rm -rf /logs/verifier && mkdir -p /logs/verifier && bash ${verifier}/test.sh > /logs/verifier/test-stdout.txt`;
    // Asynchronously: the loopback server the oracle fetches from answers from this very process.
    const code = await new Promise<number | null>((resolve) => {
      spawn('unshare', ['--mount', '--propagation', 'private', 'bash', '-c', script], {
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
        stdio: 'ignore',
      }).on('close', resolve);
    });
    return {
      reward: readFileSync(join(logs, 'verifier', 'reward.txt'), 'utf8').trim(),
      stdout: readFileSync(join(logs, 'verifier', 'test-stdout.txt'), 'utf8'),
      code,
    };
  }

  it.each([
    ['skillsbench', '/oracle', '/verifier'],
    ['harbor', '/solution', '/tests'],
  ] as const)(
    '%s: bash %s/solve.sh, then bash %s/test.sh > /logs/verifier/test-stdout.txt: reward 1',
    async (layout, oracle, verifier) => {
      const dir = tempDir();
      const labelled = await labelledDataset(dir);
      await exportAs(labelled, join(dir, 'ds'), layout);
      const { reward, stdout, code } = await runAtContainerPaths(
        join(dir, 'ds', 'pier'),
        oracle,
        verifier,
        join(dir, 'work'),
      );
      expect(code).toBe(0);
      expect(reward).toBe('1');
      expect(stdout).toMatch(/accuracy 1\.000 \(3\/3 correct\)/);
    },
    60_000,
  );
});

describe('test.sh finds its gold file wherever the verifier folder is copied', () => {
  it('run from another folder, by a relative path, with no container path set up: it grades against the gold.json beside it', async () => {
    const dir = tempDir();
    const labelled = await labelledDataset(dir);
    await exportAs(labelled, join(dir, 'ds'), 'skillsbench');
    const copied = join(dir, 'elsewhere', 'verifier');
    mkdirSync(join(dir, 'elsewhere'));
    cpSync(join(dir, 'ds', 'harbour', 'verifier'), copied, { recursive: true });
    const app = join(dir, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'answers.json'), JSON.stringify({ h1: 'verbatim', h2: 'verbatim' }));
    const logs = join(dir, 'logs');
    const r = spawnSync('bash', ['verifier/test.sh'], {
      cwd: join(dir, 'elsewhere'),
      env: { ...process.env, QUOTECHECK_APP_DIR: app, QUOTECHECK_VERIFIER_LOGS: logs },
      encoding: 'utf8',
    }); // grading fetches nothing: spawnSync is fine
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(join(logs, 'reward.txt'), 'utf8').trim()).toBe('0.5');
  });
});

describe('bad input names what is wrong', () => {
  it('a task.md without front matter, or with YAML that is not a mapping: the file and the reason', () => {
    const dir = tempDir();
    for (const [name, text, why] of [
      ['bare', '# Just an instruction\n', 'no front matter'],
      ['list', '---\n- a\n- b\n---\nText\n', 'front matter is not a mapping'],
      ['broken', '---\nagent: [unclosed\n---\nText\n', 'front matter is not valid YAML'],
    ] as const) {
      mkdirSync(join(dir, name, 'verifier'), { recursive: true });
      writeFileSync(join(dir, name, 'task.md'), text);
      writeFileSync(join(dir, name, 'verifier', 'test.sh'), 'exit 0\n');
      expect(() => listTasks(join(dir, name))).toThrowError(`${join(dir, name, 'task.md')}: ${why}`);
    }
  });

  it('--name that is not a task name (a path, a dot-dot, a slash): one line, exit 2, nothing written anywhere', async () => {
    const dir = tempDir();
    const file = join(dir, 'labelled.jsonl');
    writeFileSync(
      file,
      `${JSON.stringify({ id: 'a', quote: 'words', url: 'https://example.org/a', label: 'verbatim' })}\n`,
    );
    const out = join(dir, 'deep', 'out');
    for (const name of ['../../x', '/tmp/x', 'a/b', '..', '.hidden', '']) {
      const r = await runCliInProcess(['export', '--labelled', file, '--out', out, '--name', name]);
      expect(r.code, name).toBe(2);
      expect(r.stderr).toBe(
        `quotecheck: error: --name ${JSON.stringify(name)}: must be letters, digits, '.', '_' or '-', starting with a letter or digit (at most 128): it names the task folders\n`,
      );
    }
    expect(readdirSync(dir)).toEqual(['labelled.jsonl']);
  });

  it('--task-field: a claim without the field, or with a name that cannot be a folder, is an error naming its line', async () => {
    const dir = tempDir();
    const file = join(dir, 'labelled.jsonl');
    const claim = { id: 'a', quote: 'words', url: 'https://example.org/a', label: 'verbatim' };
    writeFileSync(file, `${JSON.stringify({ ...claim, task: 'one' })}\n${JSON.stringify({ ...claim, id: 'b' })}\n`);
    let r = await runCliInProcess(['export', '--labelled', file, '--out', join(dir, 'out1'), '--task-field', 'task']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `quotecheck: error: ${file}:2 (id "b"): field "task" is missing: it must name the claim's task (a non-empty string)\n`,
    );
    writeFileSync(file, `${JSON.stringify({ ...claim, task: '../escape' })}\n`);
    r = await runCliInProcess(['export', '--labelled', file, '--out', join(dir, 'out2'), '--task-field', 'task']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/:1 \(id "a"\): task name "\.\.\/escape" \(field "task"\) must be letters, digits/);
    expect(existsSync(join(dir, 'out2'))).toBe(false);
  });

  it("--with-mcp in the SkillsBench layout: the MCP server is the last entry of the front matter, read as Harbor's mcp_servers", async () => {
    const dir = tempDir();
    const labelled = await labelledDataset(dir);
    await exportAs(labelled, join(dir, 'sb'), 'skillsbench', '--with-mcp');
    const text = readFileSync(join(dir, 'sb', 'pier', 'task.md'), 'utf8');
    const yaml = parseYaml(text.split('\n---\n')[0]!.replace(/^---\n/, '')) as { environment: Record<string, unknown> };
    expect(yaml.environment.mcp_servers).toEqual([
      {
        name: 'quotecheck',
        transport: 'stdio',
        command: 'quotecheck',
        args: ['mcp', '--root', '/app', '--allow-private'],
      },
    ]); // exported with --allow-private: the sources are on loopback
    // The simple reader still gets every plain key before the list.
    expect(naiveFrontMatter(text).settings).toMatchObject({
      agent: { timeout_sec: 600, user: 'agent' },
      verifier: { timeout_sec: 120, user: 'root' },
      environment: { network_mode: 'public' },
    });
    checkTaskFolder(join(dir, 'sb', 'pier'), { layout: 'skillsbench', mcp: true });
  });
});
