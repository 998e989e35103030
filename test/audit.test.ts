// `quotecheck audit`: what it reads of a task (the answers path, the verifier's files, the modes), its cheat suite
// (every script valid bash), how it judges and reports (with a stand-in for evaluate), and, as root, the real thing: a
// deliberately naive dataset fails, naming the attacks that worked; the golden tasks pass in separate mode, and in
// shared mode exactly the harness attacks are reported as the harness's to stop.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startGoldenServer, type RunningServer } from '../golden/server.js';
import { goldenAtPort } from '../golden/lib/tasks.js';
import { ATTACKS } from '../src/audit/attacks.js';
import { runAudit, type AuditReport, type TrialRunner } from '../src/audit/audit.js';
import { listTasks } from '../src/task/task-dir.js';
import { canIsolate } from '../src/evaluate/namespace-root.js';
import { makeTask } from './support/harbor-helpers.js';
import { pathWithoutEngines } from './support/engine.js';
import { FIXTURES, ROOT, fileTempDir, runCli, runCliInProcess, tempDir } from './support/helpers.js';
import type { EvaluationReport } from '../src/results/evaluation-report.js';
import { NOT_APPLICABLE_MARK } from '../src/audit/attack-scripts.js';
import { auditJson, auditTable } from '../src/audit/table.js';
import { ceilingOf, judgeAttack, judgeCheck } from '../src/audit/judge.js';
import {
  answersFromArtifacts,
  answersFromInstruction,
  attackFacts,
  auditTask,
  dockerfileCopies,
} from '../src/audit/facts.js';
import { planTrials, sampleTasks } from '../src/audit/plan.js';

const ISOLATED = canIsolate();
const NAIVE = join(FIXTURES, 'naive-dataset');
const GOLDEN_TASKS = join(ROOT, 'golden', 'tasks');

/** A copy of the naive task in a temp folder, its task.toml and instruction changed by `edit`. */
function naiveCopy(edit: { toml?: (t: string) => string; instruction?: string } = {}): string {
  const dir = join(tempDir(), 'naive');
  cpSync(join(NAIVE, 'naive'), dir, { recursive: true });
  if (edit.toml) writeFileSync(join(dir, 'task.toml'), edit.toml(readFileSync(join(dir, 'task.toml'), 'utf8')));
  if (edit.instruction !== undefined) writeFileSync(join(dir, 'instruction.md'), edit.instruction);
  return dir;
}

const taskOf = (dir: string, opts: Parameters<typeof auditTask>[1] = {}) => auditTask(listTasks(dir)[0]!, opts);

describe('audit: what it reads of a task', () => {
  test('the answers path: the artifacts, else the instruction, else --answers, else /app/answers.json', () => {
    expect(answersFromArtifacts(['/logs/artifacts/', '/app/report.json', '/app/out/answers.json'])).toBe(
      '/app/out/answers.json',
    );
    expect(answersFromArtifacts(['/app/result.json'])).toBe('/app/result.json');
    expect(answersFromArtifacts(['/app/out/'])).toBeUndefined();
    expect(answersFromInstruction('Write `/app/answers.json`: one JSON object.')).toBe('/app/answers.json');
    expect(answersFromInstruction('Save your labels to `/work/labels.json` when done.')).toBe('/work/labels.json');
    expect(answersFromInstruction('Read /app/claims.json. Then write your verdicts to /out/verdicts.jsonl.')).toBe(
      '/out/verdicts.jsonl',
    );
    expect(answersFromInstruction('Label every claim.')).toBeUndefined();

    expect(taskOf(naiveCopy()).answers).toEqual({ path: '/app/answers.json', from: 'instruction' });
    const declared = naiveCopy({ toml: (t) => `artifacts = ["/app/out/verdicts.json"]\n${t}` });
    expect(taskOf(declared).answers).toEqual({ path: '/app/out/verdicts.json', from: 'artifacts' });
    const silent = naiveCopy({ instruction: '# Check the quotes\n\nLabel every claim of the claims file.\n' });
    expect(taskOf(silent, { answers: '/app/labels.json' }).answers).toEqual({
      path: '/app/labels.json',
      from: 'option',
    });
    expect(taskOf(silent).answers).toEqual({ path: '/app/answers.json', from: 'default' });
  });

  test("the verifier's files where a harness uploads them, those that look like labels, and where a separate verifier's Dockerfile copies them", () => {
    const t = taskOf(naiveCopy());
    expect(t.verifierFiles).toEqual(['/tests/gold.json', '/tests/test.sh']);
    expect(t.goldPaths).toEqual(['/tests/gold.json']);
    expect(t.claimIds).toEqual(['a', 'b', 'c']);
    expect(t.agentUser).toBe('agent');
    expect(
      dockerfileCopies(
        'FROM node:20\nCOPY gold.json /grader/gold.json\nCOPY test.sh grade.mjs /tests/\nCOPY --chown=0:0 . /verifier/\n',
        ['gold.json', 'grade.mjs', 'test.sh'],
      ),
    ).toEqual([
      ['gold.json', '/grader/gold.json'],
      ['test.sh', '/tests/test.sh'],
      ['grade.mjs', '/tests/grade.mjs'],
      ['gold.json', '/verifier/gold.json'],
      ['grade.mjs', '/verifier/grade.mjs'],
      ['test.sh', '/verifier/test.sh'],
    ]);
    const separate = naiveCopy();
    writeFileSync(
      join(separate, 'tests', 'Dockerfile'),
      'FROM node:20-bookworm-slim\nCOPY gold.json /grader/labels.json\nCOPY test.sh /tests/test.sh\n',
    );
    expect(taskOf(separate).goldPaths).toEqual(['/tests/gold.json', '/grader/labels.json']);
  });

  test('the modes: shared unless task.toml declares a separate verifier; a mode asked for that the task does not declare is forced', () => {
    expect(taskOf(naiveCopy()).modes).toEqual([{ mode: 'shared', forced: false }]);
    const separate = naiveCopy({
      toml: (t) => t.replace('[verifier]\n', '[verifier]\nenvironment_mode = "separate"\n'),
    });
    expect(taskOf(separate).declaredMode).toBe('separate');
    expect(taskOf(separate).modes).toEqual([
      { mode: 'separate', forced: false },
      { mode: 'shared', forced: false },
    ]);
    expect(taskOf(naiveCopy(), { modes: ['separate', 'shared'] }).modes).toEqual([
      { mode: 'separate', forced: true },
      { mode: 'shared', forced: false },
    ]);
  });

  test("a SkillsBench 1.1 task: /verifier, its instruction after the front matter, always shared; quotecheck's export declares the separate verifier", () => {
    const root = tempDir();
    const claims = [
      { id: 'v', quote: 'every ship that passed', url: 'http://127.0.0.1:9/log', gold: 'verbatim' },
      { id: 'n', quote: 'no ship at all', url: 'http://127.0.0.1:9/log', gold: 'no_match' },
    ];
    const sb = taskOf(makeTask(root, 'sb', claims, 'skillsbench'));
    expect(sb).toMatchObject({
      layout: 'skillsbench',
      verifierDir: '/verifier',
      declaredMode: 'shared',
      agentUser: 'agent',
      claimIds: ['v', 'n'],
    });
    expect(sb.answers).toEqual({ path: '/app/answers.json', from: 'instruction' });
    expect(sb.goldPaths).toEqual(['/verifier/gold.json']);
    expect(sb.modes).toEqual([{ mode: 'shared', forced: false }]);
    const harbor = taskOf(makeTask(root, 'hb', claims));
    expect(harbor).toMatchObject({
      verifierDir: '/tests',
      declaredMode: 'separate',
      answers: { path: '/app/answers.json', from: 'artifacts' },
    });
    expect(harbor.modes.map((m) => m.mode)).toEqual(['separate', 'shared']);
    expect(harbor.goldPaths).toEqual(['/tests/gold.json']);
  });

  test('the golden tasks share one verifier: the cheat suite runs on one of them by default, on N evenly spread, or on all', () => {
    const tasks = listTasks(GOLDEN_TASKS).map((t) => auditTask(t));
    expect(tasks.length).toBeGreaterThanOrEqual(6);
    expect(new Set(tasks.map((t) => t.verifierFingerprint)).size).toBe(1);
    expect(sampleTasks(tasks, undefined).map((t) => t.name)).toEqual([tasks[0]!.name]);
    const three = sampleTasks(tasks, 3).map((t) => t.name);
    expect(three).toHaveLength(3);
    expect(three[0]).toBe(tasks[0]!.name);
    expect(sampleTasks(tasks, 3).map((t) => t.name)).toEqual(three);
    expect(sampleTasks(tasks, 'all')).toHaveLength(tasks.length);
    // A task with another verifier is taken before a second of the same.
    const naive = taskOf(naiveCopy());
    expect(sampleTasks([...tasks, naive], 2).map((t) => t.name)).toEqual([tasks[0]!.name, 'naive']);
  });
});

describe('audit: the cheat suite', () => {
  test('every attack has a unique id, one line of description, a class and its users; every script is valid bash that fits one command line, and so is every program it writes', () => {
    expect(new Set(ATTACKS.map((a) => a.id)).size).toBe(ATTACKS.length);
    expect(ATTACKS.length).toBeGreaterThanOrEqual(35);
    for (const a of ATTACKS) {
      expect(a.description, a.id).not.toMatch(/\n/);
      expect(['task', 'harness'], a.id).toContain(a.class);
      expect(a.users.length, a.id).toBeGreaterThan(0);
    }
    const scratch = tempDir();
    for (const dir of [join(NAIVE, 'naive'), join(GOLDEN_TASKS, 'news-wire')]) {
      const facts = attackFacts(taskOf(dir));
      for (const a of ATTACKS) {
        for (const plan of a.plans(facts)) {
          expect('script' in plan, `${a.id} on ${dir}: ${'notApplicable' in plan ? plan.notApplicable : ''}`).toBe(
            true,
          );
          if (!('script' in plan)) continue;
          expect(Buffer.byteLength(plan.script), a.id).toBeLessThan(120_000);
          const check = spawnSync('bash', ['-n', '-c', plan.script], { encoding: 'utf8' });
          expect(check.stderr, `${a.id}: bash -n`).toBe('');
          expect(check.status, a.id).toBe(0);
          // The programs the script writes (watchers, trojans): JavaScript checked by node, shell by bash.
          for (const m of plan.script.matchAll(/<<'QUOTECHECK_AUDIT_EOF'\n([\s\S]*?)QUOTECHECK_AUDIT_EOF/g)) {
            const body = m[1]!;
            if (/^import |^const fs = require/.test(body)) {
              const file = join(scratch, `${a.id}-${m.index}.${body.startsWith('import ') ? 'mjs' : 'cjs'}`);
              writeFileSync(file, body);
              const js = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8' });
              expect(js.status, `${a.id}: node --check: ${js.stderr}`).toBe(0);
            } else if (!body.startsWith('import os') && !body.startsWith('#include')) {
              expect(spawnSync('bash', ['-n', '-c', body]).status, `${a.id}: bash -n of a file it writes`).toBe(0);
            }
          }
        }
      }
    }
  });

  test('the documentation counts the attacks as the catalogue does', () => {
    for (const [file, said] of [
      ['docs/cli.md', `(${ATTACKS.length} of them;`],
      ['docs/make-a-benchmark.md', `cheat suite of ${ATTACKS.length} attacks`],
      ['docs/security.md', `(${ATTACKS.length} in all)`],
    ] as const)
      expect(readFileSync(join(ROOT, file), 'utf8').replace(/\s+/g, ' '), file).toContain(said);
  });

  test('the classes: the harness attacks are the broken redirect, what is left running, and what root replaces (Why 1 to 3)', () => {
    expect(
      ATTACKS.filter((a) => a.class === 'harness')
        .map((a) => a.id)
        .sort(),
    ).toEqual(
      [
        'bash-trojan',
        'grader-rewrite',
        'ld-so-preload',
        'leftover-copy-gold',
        'leftover-rewrite-reward',
        'replace-system-binaries',
        'stdout-folder',
        'stdout-symlink',
      ].sort(),
    );
  });

  test('the plan: checks on every task, attacks on the sampled ones; root-only attacks not for the agent user; a task without an [agent] user says why', () => {
    const naive = taskOf(naiveCopy());
    const plans = planTrials([naive], [naive], {});
    expect(plans.filter((p) => p.kind !== 'attack').map((p) => p.key)).toEqual([
      'oracle--shared',
      'nothing--shared',
      'baseline--shared',
    ]);
    expect(plans.some((p) => p.attack === 'replace-system-binaries' && p.user === 'agent')).toBe(false);
    expect(plans.some((p) => p.attack === 'replace-system-binaries' && p.user === 'root')).toBe(true);
    expect(plans.find((p) => p.attack === 'answers-symlink')?.variant).toBe('/tests/gold.json');
    expect(plans.filter((p) => p.notApplicable)).toEqual([]);
    const rootOnly = taskOf(naiveCopy({ toml: (t) => t.replace('user = "agent"\n', '') }));
    const rootPlans = planTrials([rootOnly], [rootOnly], { attacks: ['reward-planted'] });
    expect(rootPlans.find((p) => p.user === 'agent' && p.kind === 'attack')?.notApplicable).toMatch(
      /sets no \[agent\] user/,
    );
    expect(rootPlans.find((p) => p.user === 'root' && p.kind === 'attack')?.agent).toMatch(/reward\.json/);
    // A dataset that is not quotecheck's: no claims.json, so no answers to shape and no baseline.
    const bare = naiveCopy();
    writeFileSync(join(bare, 'environment', 'claims.json'), '{"tasks": 3}');
    const other = taskOf(bare);
    expect(other.baselineNote).toMatch(/names no claim ids/);
    const otherPlans = planTrials([other], [other], { users: ['root'], attacks: ['answers-label-array', 'baseline'] });
    expect(otherPlans.find((p) => p.kind === 'baseline')?.notApplicable).toMatch(/cannot answer it/);
    expect(otherPlans.find((p) => p.attack === 'answers-label-array')?.notApplicable).toMatch(
      /names no claim ids|no claims\.json/,
    );
  });
});

describe('audit: judging and reporting', () => {
  test('checks: the oracle 1, doing nothing 0, the baseline its no_match share, each within 1e-5', () => {
    expect(judgeCheck('oracle', 1, 0.5).verdict).toBe('pass');
    expect(judgeCheck('oracle', 0.999, 0.5).verdict).toBe('fail');
    expect(judgeCheck('nothing', 0, 0.5).verdict).toBe('pass');
    expect(judgeCheck('nothing', 0.5, 0.5)).toEqual({ verdict: 'fail', expected: 0 });
    expect(judgeCheck('baseline', 0.666667, 2 / 3).verdict).toBe('pass');
    expect(judgeCheck('baseline', 0.6, 2 / 3).verdict).toBe('fail');
  });

  test('attacks: no more than doing nothing (or the best constant answer); a harness attack that works in shared mode is the harness to stop, in separate mode a failure', () => {
    expect(ceilingOf('nothing', 0, 0.4)).toBe(0);
    expect(ceilingOf('guess', 0, 0.4)).toBeCloseTo(0.6);
    expect(judgeAttack('task', 'shared', 0, 0)).toBe('pass');
    expect(judgeAttack('task', 'shared', 0.5, 0)).toBe('fail');
    expect(judgeAttack('task', 'separate', 1, 0)).toBe('fail');
    expect(judgeAttack('harness', 'shared', 1, 0)).toBe('harness-only');
    expect(judgeAttack('harness', 'separate', 1, 0)).toBe('fail');
    expect(judgeAttack('task', 'shared', 0.6, 0.6)).toBe('pass');
    // test.sh never ran (no test-stdout.txt): nothing in the task could have stopped it.
    expect(judgeAttack('task', 'shared', 1, 0, false)).toBe('harness-only');
    expect(judgeAttack('task', 'separate', 1, 0, false)).toBe('fail');
  });

  test("an oracle below 1 says what evaluate saw besides the verifier: every source failed, and evaluate's advice on what to check", async () => {
    const dataset = join(tempDir(), 'ds');
    cpSync(join(NAIVE, 'naive'), join(dataset, 'naive'), { recursive: true });
    const stand: TrialRunner = async (o) => {
      const task = listTasks(o.tasksDir)[0]!;
      const trial = join(o.outDir, 'trials', task.name);
      mkdirSync(join(trial, 'logs', 'verifier'), { recursive: true });
      writeFileSync(join(trial, 'logs', 'verifier', 'test-stdout.txt'), 'accuracy 0.667 (2/3 correct)\n');
      const oracle = o.agent === 'oracle';
      const run = {
        task: task.name,
        reward: oracle ? 2 / 3 : o.agent === 'baseline' ? 2 / 3 : 0,
        baseline: 2 / 3,
        problems: oracle ? ['every source failed (1 source on 127.0.0.1:9: connection refused or dropped)'] : [],
        seconds: 0.01,
      };
      return {
        tasks: [run],
        advice: oracle ? ['Check: is the server that serves them running?'] : [],
      } as unknown as EvaluationReport;
    };
    const report = await runAudit(
      { dataset, outDir: join(tempDir(), 'out'), modes: ['shared'], attacks: ['reward-planted'] },
      stand,
    );
    const oracle = report.trials.find((t) => t.kind === 'oracle')!;
    expect(oracle.verdict).toBe('fail');
    expect(oracle.why).toBe(
      'verifier: accuracy 0.667 (2/3 correct); every source failed (1 source on 127.0.0.1:9: connection refused or dropped); Check: is the server that serves them running?',
    );
  });

  test('a whole audit over a stand-in for evaluate: verdicts, the lines that name what succeeded, the table and the JSON', async () => {
    const dataset = join(tempDir(), 'ds');
    cpSync(join(NAIVE, 'naive'), join(dataset, 'naive'), { recursive: true });
    const seen: { name?: string; mode?: string; user?: string }[] = [];
    // Planted rewards work in shared mode (a task failure); the broken redirect works in both (the harness's, then a failure).
    const stand: TrialRunner = async (o) => {
      seen.push({ name: o.name, mode: o.verifierMode, user: o.agentUser });
      const task = listTasks(o.tasksDir)[0]!;
      const trial = join(o.outDir, 'trials', task.name);
      mkdirSync(join(trial, 'logs', 'verifier'), { recursive: true });
      const wins = (o.name === 'reward-planted' && o.verifierMode === 'shared') || o.name === 'stdout-folder';
      const reward =
        o.agent === 'oracle' ? 1 : o.agent === 'baseline' ? 2 / 3 : o.name === 'ld-preload-env' ? 0 : wins ? 1 : 0;
      if (wins) writeFileSync(join(trial, 'logs', 'verifier', 'reward.json'), '{"reward": 1.0}');
      if (o.name === 'stdout-folder') mkdirSync(join(trial, 'logs', 'verifier', 'test-stdout.txt'));
      else
        writeFileSync(
          join(trial, 'logs', 'verifier', 'test-stdout.txt'),
          `reward ${reward}: as the stand-in says\nsecond line\n`,
        );
      writeFileSync(
        join(trial, 'agent-output.txt'),
        o.name === 'ld-preload-env'
          ? `${NOT_APPLICABLE_MARK} the image has no C compiler to build a preload library\n`
          : 'quotecheck-audit: did its thing\n',
      );
      const run = {
        task: task.name,
        reward,
        baseline: 2 / 3,
        problems: [],
        seconds: 0.01,
        verifierMode: o.verifierMode,
        agentUser: o.agentUser,
      };
      return { tasks: [run] } as unknown as EvaluationReport;
    };
    const report = await runAudit(
      {
        dataset,
        outDir: join(tempDir(), 'out'),
        modes: ['separate', 'shared'],
        attacks: ['reward-planted', 'stdout-folder', 'ld-preload-env', 'bash-trojan'],
      },
      stand,
    );
    expect(seen).toContainEqual({ name: 'bash-trojan', mode: 'shared', user: 'root' });
    expect(seen).not.toContainEqual(expect.objectContaining({ name: 'bash-trojan', user: 'task' }));
    expect(seen.filter((s) => s.name === 'oracle').map((s) => s.mode)).toEqual(['separate', 'shared']);
    expect(report.ok).toBe(false);
    expect(report.counts).toEqual({ pass: 6 + 2 + 2, fail: 4, 'harness-only': 2, 'not-applicable': 4, error: 0 });
    const verdict = (attack: string, mode: string, user: string) =>
      report.trials.find((t) => t.attack === attack && t.mode === mode && t.user === user)!;
    expect(verdict('reward-planted', 'shared', 'agent')).toMatchObject({
      verdict: 'fail',
      reward: 1,
      expected: 0,
      rewardFile: 'reward.json',
    });
    expect(verdict('reward-planted', 'separate', 'agent')).toMatchObject({
      verdict: 'pass',
      verifierRan: true,
      why: 'verifier: reward 0: as the stand-in says; attack: did its thing',
    });
    expect(verdict('stdout-folder', 'shared', 'root').verdict).toBe('harness-only');
    expect(verdict('stdout-folder', 'shared', 'root').why).toMatch(
      /^only the harness can stop this: publish with the separate verifier; reward read from reward\.json; \/logs\/verifier\/test-stdout\.txt is a folder: the harness's redirect failed, test\.sh never ran/,
    );
    expect(verdict('stdout-folder', 'separate', 'agent').verdict).toBe('fail');
    expect(verdict('ld-preload-env', 'shared', 'agent')).toMatchObject({
      verdict: 'not-applicable',
      why: 'the image has no C compiler to build a preload library',
    });
    expect(report.failures).toContain(
      'reward-planted on naive, shared verifier, as the agent user: the attack succeeded: reward 1.000, more than doing nothing (0.000); reward read from reward.json; verifier: reward 1: as the stand-in says; attack: did its thing',
    );
    expect(
      report.failures.some((l) =>
        l.startsWith('stdout-folder on naive, separate verifier (forced), as root: the attack succeeded: reward 1.000'),
      ),
    ).toBe(true);
    expect(report.harness_only).toEqual([
      'stdout-folder on naive, shared verifier, as the agent user: reward 1.000',
      'stdout-folder on naive, shared verifier, as root: reward 1.000',
    ]);
    const table = auditTable(report);
    expect(table).toMatch(/^naive +shared +oracle +1\.000 +1\.000 +ok$/m);
    expect(table).toMatch(/^naive +shared +baseline +0\.667 +0\.667 +ok$/m);
    expect(table).toMatch(/^reward-planted +task +shared +agent +1\.000 +FAILED +reward read from reward\.json/m);
    expect(table).toMatch(/^reward-planted +task +separate\* +root +0\.000 +stopped +verifier: reward 0/m);
    expect(table).toMatch(
      /^stdout-folder +harness +shared +root +1\.000 +harness only +only the harness can stop this/m,
    );
    expect(table).toMatch(/^ld-preload-env +task +shared +agent +0\.000 +n\/a +the image has no C compiler/m);
    expect(table).toMatch(/^FAILED \(4\):$/m);
    const json = JSON.parse(auditJson(report)) as AuditReport;
    expect(json.ok).toBe(false);
    expect(json.trials).toHaveLength(report.trials.length);
    expect(json.failures).toEqual(report.failures);
  });
});

describe('quotecheck audit: the command', () => {
  test('--help: the options with their defaults, and every attack with its class', async () => {
    const r = await runCliInProcess(['audit', '--help']);
    expect(r.code).toBe(0);
    for (const option of [
      '--sample',
      '--modes',
      '--users',
      '--attacks',
      '--jobs',
      '--json',
      '--out',
      '--answers',
      '--quiet',
    ])
      expect(r.stdout).toContain(option);
    expect(r.stdout).toMatch(/by default it runs on one task of each\s+distinct verifier/);
    for (const a of ATTACKS) expect(r.stdout).toMatch(new RegExp(`^  ${a.id} +${a.class} `, 'm'));
  });

  test.each([
    [['--modes', 'both'], /--modes <list>' argument 'both' is invalid\. give one or more of separate, shared/],
    [['--users', 'agent,nobody'], /--users <list>' argument 'agent,nobody' is invalid/],
    [['--sample', '0'], /--sample <n>' argument '0' is invalid/],
  ])('bad %j: exit 2 naming the option', async (args, message) => {
    const r = await runCliInProcess(['audit', NAIVE, ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  test('a folder that is no dataset: exit 2', async () => {
    const r = await runCliInProcess(['audit', tempDir()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^quotecheck: error: .*: no tasks \(folders with a task\.toml or a task\.md\)\n$/);
  });

  test.skipIf(!ISOLATED)(
    'no engine and not root, even with --isolation namespace: exit 2, saying what it needs and why',
    async () => {
      const dir = tempDir();
      chmodSync(dir, 0o755);
      cpSync(NAIVE, join(dir, 'ds'), { recursive: true });
      const env = { ...process.env, PATH: pathWithoutEngines() };
      const r = await runCli(['audit', join(dir, 'ds')], { asUid: 65534, env });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^quotecheck: error: audit certifies a dataset only on a real container engine/);
      const emulated = await runCli(['audit', join(dir, 'ds'), '--isolation', 'namespace'], { asUid: 65534, env });
      expect(emulated.code).toBe(2);
      expect(emulated.stderr).toMatch(/^quotecheck: error: --isolation namespace needs root, util-linux's unshare/);
    },
  );
});

/** Trials at once in the audits below: they wait on namespaces and processes more than on the CPU. */
const JOBS = String(Math.max(8, 4 * availableParallelism()));

describe.skipIf(!ISOLATED)('quotecheck audit on real datasets (evaluate as root)', () => {
  let server: RunningServer | undefined;
  let naive: { code: number; stderr: string; report: AuditReport };
  let golden: { code: number; stderr: string; stdout: string; report: AuditReport };

  // Both audits at once: together they take about as long as the longer one.
  beforeAll(async () => {
    server = await startGoldenServer({ port: 0 });
    const base = fileTempDir('quotecheck-audit-');
    const copy = goldenAtPort(server.port, join(base, 'golden'));
    // One golden task: the cheat suite needs one (they share their verifier), and the checks are the golden tests' own.
    const dataset = join(base, 'golden-one');
    cpSync(join(copy.tasksDir, 'news-wire'), join(dataset, 'news-wire'), { recursive: true });
    const run = async (args: string[], json: string) => {
      const r = await runCliInProcess([
        'audit',
        ...args,
        '--isolation',
        'namespace',
        '--jobs',
        JOBS,
        '--quiet',
        '--json',
        json,
      ]);
      return { ...r, code: r.code ?? -1, report: JSON.parse(readFileSync(json, 'utf8')) as AuditReport };
    };
    [naive, golden] = await Promise.all([
      run([NAIVE, '--attacks', 'reward-,answers-symlink,stdout-'], join(base, 'naive.json')),
      // As root only: root is the stronger adversary (every attack the agent's user can make, and those it cannot),
      // and the naive dataset's audit plays the agent's user; the suite's time stays in bounds.
      run([dataset, '--modes', 'separate,shared', '--users', 'root'], join(base, 'golden.json')),
    ]);
  }, 180_000);

  afterAll(async () => {
    await server?.close();
  });

  test('a naive task (its verifier follows links and writes only reward.txt) fails, naming the planted-reward and symlink attacks', () => {
    expect(naive.code, naive.stderr).toBe(1);
    for (const check of naive.report.trials.filter((t) => t.kind !== 'attack'))
      expect(check.verdict, `${check.kind}: ${check.why}`).toBe('pass');
    const failed = new Set(naive.report.trials.filter((t) => t.verdict === 'fail').map((t) => `${t.attack} ${t.user}`));
    for (const id of ['reward-planted', 'reward-read-only', 'reward-json-extra-keys', 'answers-symlink'])
      for (const user of ['agent', 'root']) expect(failed, `${id} ${user}`).toContain(`${id} ${user}`);
    expect(naive.stderr).toMatch(/^quotecheck: error: audit failed: \d+ trials did not meet their expectation: /m);
    expect(naive.stderr).toContain(
      'reward-planted on naive, shared verifier, as the agent user: the attack succeeded: reward 1.000',
    );
    expect(naive.report.failures).toContain(
      'answers-symlink (/tests/gold.json) on naive, shared verifier, as the agent user: the attack succeeded: reward 1.000, more than doing nothing (0.000); reward read from reward.txt; verifier: reward 3/3',
    );
    // The harness attacks are reported, not failed.
    expect(naive.report.trials.find((t) => t.attack === 'stdout-folder' && t.user === 'agent')?.verdict).toBe(
      'harness-only',
    );
  });

  test('the golden tasks: every check passes; in separate mode every attack is stopped; in shared mode exactly the harness attacks are left to the harness', () => {
    const { report } = golden;
    const problems = report.trials
      .filter((t) => t.verdict === 'fail' || t.verdict === 'error')
      .map((t) => `${t.key}: ${t.why}`);
    expect(problems).toEqual([]);
    expect(golden.code, golden.stderr).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.trials.filter((t) => t.kind !== 'attack').map((t) => `${t.kind} ${t.mode} ${t.verdict}`)).toEqual([
      'oracle separate pass',
      'nothing separate pass',
      'baseline separate pass',
      'oracle shared pass',
      'nothing shared pass',
      'baseline shared pass',
    ]);
    const separate = report.trials.filter((t) => t.kind === 'attack' && t.mode === 'separate');
    expect(separate.length).toBeGreaterThan(35);
    expect(separate.filter((t) => t.verdict !== 'pass').map((t) => `${t.key}: ${t.why}`)).toEqual([]);
    const shared = report.trials.filter((t) => t.kind === 'attack' && t.mode === 'shared');
    expect(shared.filter((t) => t.verdict !== 'pass' && t.verdict !== 'harness-only')).toEqual([]);
    const left = shared.filter((t) => t.verdict === 'harness-only');
    // What needs no race succeeds every time in shared mode: the harness's redirect broken, root's bash or system
    // programs replaced. Attacks that race the verifier (a process left running, the grader rewritten as it is
    // uploaded) may lose on a busy machine: they are reported as the harness's to stop when they win, stopped when
    // they lose, and never fail the audit.
    const certain = ['bash-trojan', 'replace-system-binaries', 'stdout-folder', 'stdout-symlink'];
    expect([...new Set(left.filter((t) => certain.includes(t.attack!)).map((t) => t.attack))].sort()).toEqual(certain);
    // No task attack is left to the harness: evaluate's own tools (timeout, setpriv, env) are never looked up on the
    // container's PATH, where a root agent's /usr/local/sbin comes first; only `bash` is, as under Harbor.
    expect(left.filter((x) => x.class === 'task').map((t) => `${t.key}: ${t.why}`)).toEqual([]);
    // The golden tasks declare the separate verifier: what is left is what a harness that ignores it lets through.
    expect(golden.stdout).toMatch(
      /^Only the harness can stop these \(\d+\), in shared mode: the tasks declare the separate verifier, which stops them/m,
    );
    expect(left[0]!.why).toMatch(
      /^only the harness can stop this: the task declares the separate verifier, a harness that runs it shared lets this through; /,
    );
    expect(golden.stdout).toMatch(/^audit passed/m);
  });
});
