// `evaluate` as a harness that the agent cannot fool (docs/security.md#trial-isolation): every attack an agent can make from the agent phase, run through the real evaluate with namespace isolation, scores 0 and says why.
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runEvaluation, type EvaluationOptions } from '../src/evaluate/evaluate.js';
import { canIsolate } from '../src/evaluate/namespace-root.js';
import type { Layout } from '../src/task/layout.js';
import { writeTaskFolder } from '../src/task/task-writer.js';
import { shellQuote as q } from '../src/sh-quote.js';
import { makeTask } from './support/harbor-helpers.js';
import { afterTest, runCli, runCliInProcess, serve, tempDir } from './support/helpers.js';
import type { EvaluationReport, TaskRun } from '../src/results/evaluation-report.js';
import { taskToml } from '../src/task/task-toml.js';
import { bundledSkillDir, type TaskVariant } from '../src/task/variant.js';

/** Docker's default capabilities (src/evaluate/namespace-root.ts DOCKER_CAPABILITIES) as /proc/PID/status prints them. */
const DOCKER_CAPABILITY_MASK = 0xa80425fbn;

const ISOLATED = canIsolate();

/**
 * Datasets and outputs live outside /tmp here (the test below puts some inside it): the hiding mounts must do their
 * work wherever the dataset is.
 */
const hostFolders: string[] = [];
afterAll(() => {
  for (const dir of hostFolders.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function hostDir(): string {
  const dir = mkdtempSync('/var/tmp/quotecheck-isolation-');
  hostFolders.push(dir);
  return dir;
}

const PAGE =
  '<html><body><article><p>The lighthouse keeper logged every ship that passed the point in winter.</p></article></body></html>';

interface Fixture {
  /** The dataset: one task. */
  tasks: string;
  task: string;
  /** The task's gold.json on the host. */
  gold: string;
  base: string;
}

/** A one-task dataset against a loopback page: one verbatim claim, one no_match (the baseline scores 0.5). */
async function dataset(opts: { layout?: Layout; variant?: TaskVariant; frozen?: boolean } = {}): Promise<Fixture> {
  const server = await serve([{ path: '/log', body: PAGE, headers: { 'content-type': 'text/html; charset=utf-8' } }]);
  const claims = [
    { id: 'v', quote: 'logged every ship that passed', url: `${server.origin}/log`, gold: 'verbatim' as const },
    { id: 'n', quote: 'logged no ship at all', url: `${server.origin}/log`, gold: 'no_match' as const },
  ];
  const base = hostDir();
  const tasks = join(base, 'tasks');
  const layout = opts.layout ?? 'harbor';
  if (!opts.variant) makeTask(tasks, 'lighthouse', claims, layout);
  else {
    writeTaskFolder(join(tasks, 'lighthouse'), {
      name: 'lighthouse',
      layout,
      claims: claims.map(({ gold: _g, ...c }) => c),
      gold: Object.fromEntries(claims.map((c) => [c.id, c.gold])),
      instruction: 'Check the quotes.',
      config: { agentTimeoutSec: 60, verifierTimeoutSec: 30 },
      variant: opts.variant,
      solve: { runArgs: ['--allow-private', '--retries', '0', '--timeout', '5'] },
      ...(opts.variant.skill ? { skillDir: bundledSkillDir() } : {}),
      ...(opts.frozen ? { frozen: true } : {}),
    });
  }
  if (opts.frozen) {
    // A frozen task's archive: a recorded run of its own claims.
    const work = tempDir();
    writeFileSync(join(work, 'claims.json'), JSON.stringify(claims.map(({ gold: _g, ...c }) => c)));
    const r = await runCliInProcess([
      'run',
      '--allow-private',
      '--quiet',
      '--claims',
      join(work, 'claims.json'),
      '--out',
      join(work, 'a.json'),
      '--record',
      join(tasks, 'lighthouse', 'environment', 'sources.warc.gz'),
    ]);
    expect(r.code, r.stderr).toBe(0);
  }
  const verifierFolder = layout === 'harbor' ? 'tests' : 'verifier';
  return { tasks, task: join(tasks, 'lighthouse'), gold: join(tasks, 'lighthouse', verifierFolder, 'gold.json'), base };
}

interface Bench {
  report: EvaluationReport;
  run: TaskRun;
  /** A file of the trial (app/answers.json, agent-output.txt, logs/verifier/test-stdout.txt), or '' when missing. */
  file: (path: string) => string;
}

let outs = 0;
/** Runs one agent over the fixture's dataset with namespace isolation, into a fresh --out beside the dataset. */
async function evaluate(f: Fixture, agent: string, extra: Partial<EvaluationOptions> = {}): Promise<Bench> {
  const outDir = extra.outDir ?? join(f.base, `out-${++outs}`);
  const report = await runEvaluation({ tasksDir: f.tasks, agent, isolation: 'namespace', jobs: 1, ...extra, outDir });
  const trial = join(outDir, 'trials', 'lighthouse');
  const file = (path: string) => (existsSync(join(trial, path)) ? readFileSync(join(trial, path), 'utf8') : '');
  return { report, run: report.tasks[0]!, file };
}

/** The processes on this machine whose command line holds `token`. */
function processesWith(token: string): string[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(token);
      } catch {
        return false; // gone meanwhile
      }
    });
}

/** What the verifier said, with what the agent printed: the reason a 0 was given is in one of them. */
const said = (b: Bench): string => `${b.file('agent-output.txt')}\n${b.file('logs/verifier/test-stdout.txt')}`;

describe.skipIf(!ISOLATED)('evaluate with namespace isolation: the agent phase', () => {
  /** Runs `lines` (each `p NAME 'CHECK'`, printing NAME=yes when the check succeeds) as the agent; the answers map. */
  async function probe(
    f: Fixture,
    lines: string[],
    extra: Partial<EvaluationOptions> = {},
  ): Promise<{ seen: Record<string, string>; b: Bench }> {
    const script = ['p() { if eval "$2" >/dev/null 2>&1; then echo "$1=yes"; else echo "$1=no"; fi; }', ...lines].join(
      '\n',
    );
    const b = await evaluate(f, `bash -c ${q(script)} > /app/probe.txt 2>&1`, extra);
    const seen = Object.fromEntries(
      b
        .file('app/probe.txt')
        .trim()
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    return { seen, b };
  }

  test("nothing of the host is in the agent's root: no quotecheck on PATH, no host /tmp, no checkout or .git, no other run's output, no dataset; mountinfo leads nowhere (Why 4, 5, 6)", async () => {
    const f = await dataset();
    // What a builder leaves about: a labelled file in the host's /tmp, an earlier run's report with every gold label, a quotecheck on PATH.
    const inTmp = tempDir('quotecheck-host-tmp-');
    writeFileSync(join(inTmp, 'claims.labelled.jsonl'), '{"id":"v","label":"verbatim"}\n');
    const earlier = join(f.base, 'earlier-run');
    mkdirSync(earlier);
    writeFileSync(join(earlier, 'report.json'), '{"tasks":[{"rows":[{"id":"v","gold":"verbatim"}]}]}');
    const bin = hostDir();
    writeFileSync(join(bin, 'quotecheck'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(bin, 'quotecheck'), 0o755);
    const saved = process.env.PATH;
    process.env.PATH = `${bin}:${saved ?? ''}`;
    const checkout = process.cwd();
    const hostPaths = [inTmp, earlier, f.tasks, checkout, join(checkout, '.git'), bin, f.base];
    try {
      const { seen, b } = await probe(f, [
        "p quotecheck 'command -v quotecheck'",
        `p host_tmp 'ls ${q(join(inTmp, 'claims.labelled.jsonl'))}'`,
        'p tmp_empty \'[ -z "$(ls -A /tmp)" ]\'',
        `p earlier_run 'cat ${q(join(earlier, 'report.json'))}'`,
        `p dataset 'ls ${q(f.tasks)}'`,
        `p checkout 'ls ${q(join(checkout, 'package.json'))}'`,
        `p git 'ls ${q(join(checkout, '.git'))}'`,
        "p work 'ls /work'",
        // Every absolute path the mount table names (mount roots, overlay folders): none of the host's folders is there to be opened.
        `for p in $(awk '{print $4}' /proc/self/mountinfo) $(grep -o 'dir=[^,]*' /proc/self/mountinfo | cut -d= -f2); do [ -e "$p" ] && echo "exists=$p"; done`,
        'p uid_agent \'[ "$(id -u)" = 1001 ] && [ "$(id -un)" = agent ]\'',
        'p home \'[ "$HOME" = /home/agent ] && [ -O /home/agent ]\'',
        'p path \'[ "$PATH" = /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin ]\'',
        "p node '/usr/local/bin/node -e 0'",
        "p pdftotext 'command -v pdftotext'",
      ]);
      expect(seen).toEqual({
        quotecheck: 'no',
        host_tmp: 'no',
        tmp_empty: 'yes',
        earlier_run: 'no',
        dataset: 'no',
        checkout: 'no',
        git: 'no',
        work: 'no',
        // Only the system folders the root is made of (and the npm it keeps) exist under the names the mount table gives.
        exists: expect.stringMatching(/^\/(usr|etc|var|lib|bin)?/),
        uid_agent: 'yes',
        home: 'yes',
        path: 'yes',
        node: 'yes',
        pdftotext: 'yes',
      });
      const existing = b
        .file('app/probe.txt')
        .split('\n')
        .filter((l) => l.startsWith('exists='))
        .map((l) => l.slice('exists='.length));
      for (const host of hostPaths) expect(existing.filter((p) => p.startsWith(host))).toEqual([]);
    } finally {
      process.env.PATH = saved;
    }
  });

  test('sees /app and its logs only: no tests, no solution; the system folders are copy-on-write, the host untouched; a private /tmp and a minimal /dev', async () => {
    const f = await dataset();
    const out = join(f.base, 'out-probe');
    const { seen, b } = await probe(
      f,
      [
        `p tests '[ -n "$(ls -A /tests)" ]'`,
        `p solution '[ -n "$(ls -A /solution)" ]'`,
        `p out '[ -n "$(ls -A ${q(out)})" ]'`,
        `p write_beside_dataset 'touch ${q(join(f.base, 'planted'))}'`,
        `p write_etc 'touch /etc/quotecheck-planted'`,
        `p write_usr 'touch /usr/local/bin/quotecheck-planted'`,
        `p write_tmp 'touch /tmp/x'`,
        `p write_app 'touch /app/x && touch /logs/agent/x'`,
        // A device node made in /app cannot be opened there (the bind is nodev), and no disk is in /dev.
        `p open_own_device 'mknod /app/zero c 1 5 && head -c 1 /app/zero'`,
        `p proc_sys 'cat /proc/sys/kernel/printk_ratelimit > /proc/sys/kernel/printk_ratelimit'`,
        'echo "dev=$(ls /dev | tr "\\n" " ")"',
      ],
      { outDir: out },
    );
    expect(b.run.problems).toEqual(['no answers file']);
    expect(seen).toEqual({
      tests: 'no',
      solution: 'no',
      out: 'no',
      write_beside_dataset: 'no',
      write_etc: 'no',
      write_usr: 'no',
      write_tmp: 'yes',
      write_app: 'yes',
      open_own_device: 'no',
      proc_sys: 'no',
      dev: 'fd full null ptmx pts random shm stderr stdin stdout tty urandom zero',
    });
    expect(existsSync(join(f.base, 'planted'))).toBe(false);
    expect(existsSync('/etc/quotecheck-planted')).toBe(false);
  });

  test("as root (a harness that ignores [agent] user): Docker's default capabilities only; what it changes in the system folders is its container's, never the host's", async () => {
    const f = await dataset();
    const attempts = [
      'grep ^Cap /proc/self/status > /app/caps.txt',
      'id -u > /app/uid.txt',
      'nsenter -t 1 -m true 2>> /app/attempts.txt && echo nsenter-worked >> /app/attempts.txt',
      'unshare --mount true 2>> /app/attempts.txt && echo unshare-worked >> /app/attempts.txt',
      'mount -t tmpfs x /app 2>> /app/attempts.txt && echo mount-worked >> /app/attempts.txt',
      'umount /tmp 2>> /app/attempts.txt && echo umount-worked >> /app/attempts.txt',
      'echo planted > /etc/quotecheck-root-planted',
      'echo planted > /usr/local/bin/quotecheck-root-planted',
    ].join('; ');
    const { run, file } = await evaluate(f, attempts, { agentUser: 'root' });
    expect(file('app/uid.txt').trim()).toBe('0');
    const caps = Object.fromEntries(
      file('app/caps.txt')
        .trim()
        .split('\n')
        .map((l) => l.split(/:\s+/) as [string, string]),
    );
    expect(BigInt(`0x${caps.CapBnd}`)).toBe(DOCKER_CAPABILITY_MASK);
    expect(BigInt(`0x${caps.CapEff}`)).toBe(DOCKER_CAPABILITY_MASK);
    expect(BigInt(`0x${caps.CapInh}`)).toBe(0n);
    expect(BigInt(`0x${caps.CapAmb}`)).toBe(0n);
    const tried = file('app/attempts.txt');
    expect(tried).not.toMatch(/-worked/);
    expect(tried).toMatch(/must be superuser|Operation not permitted|Permission denied/);
    expect(existsSync('/etc/quotecheck-root-planted')).toBe(false);
    expect(existsSync('/usr/local/bin/quotecheck-root-planted')).toBe(false);
    expect(run.agentUser).toBe('root');
    expect(run.reward).toBe(0);
  });

  test("the task's agent user is not root; with no [agent] user in task.toml the agent runs as the image's root, as Harbor runs it", async () => {
    const f = await dataset();
    const user = await evaluate(f, 'id -u > /app/uid.txt');
    expect(user.file('app/uid.txt').trim()).toBe('1001');
    expect(user.run.agentUser).toBe('agent');
    const toml = readFileSync(join(f.task, 'task.toml'), 'utf8');
    writeFileSync(join(f.task, 'task.toml'), toml.replace(/^user = "agent"\n/m, ''));
    const root = await evaluate(f, 'id -u > /app/uid.txt');
    expect(root.file('app/uid.txt').trim()).toBe('0');
    expect(root.run.agentUser).toBe('root');
  });

  test("cp /tests/gold.json (Harbor's layout) finds nothing: reward 0, and the reason is said", async () => {
    const f = await dataset();
    const b = await evaluate(f, 'cp /tests/gold.json /app/answers.json');
    expect(b.run.reward).toBe(0);
    expect(b.run.problems).toEqual(expect.arrayContaining(['agent exited 1', 'no answers file']));
    expect(said(b)).toContain("cp: cannot stat '/tests/gold.json': No such file or directory");
  });

  test("cp /verifier/gold.json (SkillsBench 1.1's layout) finds nothing either", async () => {
    const f = await dataset({ layout: 'skillsbench' });
    expect(existsSync(join(f.task, 'task.md'))).toBe(true);
    const b = await evaluate(f, 'cp /verifier/gold.json /app/answers.json');
    expect(b.run.reward).toBe(0);
    expect(b.run.problems).toContain('no answers file');
    expect(said(b)).toContain("cp: cannot stat '/verifier/gold.json': No such file or directory");
  });

  test("the dataset's gold.json cannot be read or rewritten by its absolute host path", async () => {
    const f = await dataset();
    const before = readFileSync(f.gold);
    const b = await evaluate(
      f,
      `cp ${q(f.gold)} /app/answers.json; echo '{"v":"no_match","n":"verbatim"}' > ${q(f.gold)}`,
    );
    expect(readFileSync(f.gold)).toEqual(before);
    expect(b.run.reward).toBe(0);
    expect(b.run.problems).toContain('no answers file');
    expect(said(b)).toContain(`cp: cannot stat '${f.gold}': No such file or directory`);
    expect(said(b)).toMatch(
      new RegExp(`${f.gold.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: (No such file or directory|Read-only file system)`),
    );
  });

  test('separate: a process the agent leaves running is gone before the verifier, which never sees the gold it waits for (Why 2)', async () => {
    const f = await dataset();
    const token = `qc-leftover-${randomBytes(6).toString('hex')}`;
    const loop = `while :; do cp /tests/gold.json /app/answers.json; echo 1 > /logs/verifier/reward.txt; sleep 0.05; done # ${token}`;
    const b = await evaluate(f, `setsid nohup sh -c ${q(loop)} >/dev/null 2>&1 &`, { verifierMode: 'separate' });
    expect(b.run.reward).toBe(0);
    expect(b.run.verifierMode).toBe('separate');
    // The loop, and maybe the sleep or cp it was running when the agent's command returned.
    expect(b.run.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^the agent left [12] process(es)? running; (it was|they were) stopped before the verifier$/,
        ),
      ]),
    );
    expect(b.file('logs/verifier/reward.txt').trim()).toBe('0');
    // Nowhere on this machine is the loop still running.
    expect(processesWith(token)).toEqual([]);
  });

  test("shared (Harbor's in-container verifier): the same process copies the gold when it is uploaded and rewrites the reward after the verifier: 1.000, which only the harness stops, and evaluate says it ran through the verifier", async () => {
    const f = await dataset();
    const token = `qc-leftover-${randomBytes(6).toString('hex')}`;
    // It copies the gold once it is uploaded and rewrites the reward after the verifier (Harbor's 777 lets it replace root's
    // file), by rename: a write cut short when the container ends would leave an empty file.
    const loop = `while :; do [ -f /tests/gold.json ] && cp /tests/gold.json /app/answers.json; [ -f /logs/verifier/test-stdout.txt ] && echo 1 > /logs/verifier/.t && mv -f /logs/verifier/.t /logs/verifier/reward.txt && echo '{"reward": 1}' > /logs/verifier/.j && mv -f /logs/verifier/.j /logs/verifier/reward.json; sleep 0.01; done # ${token}`;
    const b = await evaluate(f, `setsid nohup sh -c ${q(loop)} >/dev/null 2>&1 &`, { verifierMode: 'shared' });
    expect(b.run.verifierMode).toBe('shared');
    expect(b.run.reward).toBe(1);
    expect(b.run.problems).toEqual(
      expect.arrayContaining([expect.stringMatching(/running through the verifier \(shared mode/)]),
    );
    expect(processesWith(token)).toEqual([]);
  });

  test('a helper still on its way out when the command returns is not counted as left running (quotecheck SIGKILLs its pdftotext shells as it exits)', async () => {
    const f = await dataset();
    const b = await evaluate(f, `(sleep 0.3 &) ; echo '{"v":"verbatim","n":"no_match"}' > /app/answers.json`);
    expect(b.run.problems.filter((p) => p.includes('running'))).toEqual([]);
    expect(b.run.reward).toBe(1);
  });

  test('at its time limit the phase ends with every process it started, detached ones too', async () => {
    const f = await dataset();
    writeFileSync(join(f.task, 'task.toml'), taskToml({ agentTimeoutSec: 1, verifierTimeoutSec: 30 }));
    const token = `qc-timeout-${randomBytes(6).toString('hex')}`;
    const b = await evaluate(
      f,
      `setsid sh -c ${q(`sleep 300 # ${token}`)} >/dev/null 2>&1 & exec sh -c ${q(`sleep 300 # ${token}`)}`,
    );
    expect(b.run.problems).toEqual(expect.arrayContaining(['agent stopped at its 1 s timeout', 'no answers file']));
    expect(b.run.reward).toBe(0);
    expect(processesWith(token)).toEqual([]);
  });

  test("reward.txt and reward.json planted in /logs/verifier are thrown away: the verifier's own reward counts, in both modes", async () => {
    for (const verifierMode of ['separate', 'shared'] as const) {
      const f = await dataset();
      const b = await evaluate(
        f,
        'echo 1 > /logs/verifier/reward.txt; echo \'{"reward": 1}\' > /logs/verifier/reward.json; chmod 444 /logs/verifier/reward.txt',
        {
          verifierMode,
        },
      );
      expect(b.run.reward, verifierMode).toBe(0);
      expect(b.run.problems).toContain('no answers file');
      expect(b.file('logs/verifier/reward.txt').trim()).toBe('0');
      expect(JSON.parse(b.file('logs/verifier/reward.json') || '{"reward":0}').reward).toBe(0);
    }
  });

  test('Why 1: a planted reward.json with test-stdout.txt made a folder (or a link to test.sh) scores 0 in separate mode; in shared mode test.sh never runs and Harbor reads the plant', async () => {
    for (const block of [
      'mkdir /logs/verifier/test-stdout.txt',
      'ln -s /tests/test.sh /logs/verifier/test-stdout.txt',
    ]) {
      const attack = `echo '{"reward": 1.0}' > /logs/verifier/reward.json; ${block}`;
      const separate = await evaluate(await dataset(), attack, { verifierMode: 'separate' });
      expect(separate.run.reward, block).toBe(0);
      const shared = await evaluate(await dataset(), attack, { verifierMode: 'shared' });
      expect(shared.run.reward, `${block}: only a separate verifier (or the harness) stops this`).toBe(1);
    }
  });

  test('Why 3: a root agent that replaces /usr/local/bin/node and /usr/bin/env and adds /etc/ld.so.preload scores 0 in separate mode', async () => {
    const trojan =
      '#!/bin/sh\\necho 1 > /logs/verifier/reward.txt\\necho "{\\\\"reward\\\\": 1}" > /logs/verifier/reward.json\\n';
    const attack = [
      `printf ${q(trojan)} > /tmp/trojan && chmod 755 /tmp/trojan`,
      'rm -f /usr/local/bin/node && cp /tmp/trojan /usr/local/bin/node',
      'cp /tmp/trojan /usr/bin/env',
      'echo /tmp/nothing.so > /etc/ld.so.preload',
    ].join('; ');
    const separate = await evaluate(await dataset(), attack, { verifierMode: 'separate', agentUser: 'root' });
    expect(separate.run.reward).toBe(0);
    const shared = await evaluate(await dataset(), attack, { verifierMode: 'shared', agentUser: 'root' });
    expect(shared.run.reward, 'in its own container, root rewrote what the verifier runs').toBe(1);
    expect(readFileSync('/usr/bin/env').subarray(0, 2).toString()).not.toBe('#!');
  });

  test('answers that are a FIFO, a symlink to the gold or a device: evaluate reads none of them (and does not hang)', async () => {
    for (const [make, kind] of [
      ['mkfifo /app/answers.json; mkfifo /logs/agent/report.jsonl', 'a named pipe (FIFO)'],
      ['ln -s /tests/gold.json /app/answers.json', 'a symbolic link (to /tests/gold.json)'],
      ['mknod /app/answers.json c 1 5', 'a character device'],
    ] as const) {
      const f = await dataset();
      // mknod needs root: a harness that ignores [agent] user.
      const b = await evaluate(f, make, make.startsWith('mknod') ? { agentUser: 'root' } : {});
      expect(b.run.reward, make).toBe(0);
      expect(b.run.problems, make).toContain(`answers file not read: /app/answers.json is ${kind}`);
    }
  });

  test("a verifier's reward file is read as Harbor reads it: reward.json first, a link followed inside /logs/verifier only", async () => {
    const f = await dataset();
    // A verifier (not quotecheck's) that leaves reward.txt as a link to a file beside it, and reward.json as a link out.
    writeFileSync(
      join(f.task, 'tests', 'test.sh'),
      '#!/bin/bash\necho 0.5 > /logs/verifier/half.txt\nln -s half.txt /logs/verifier/reward.txt\n',
    );
    chmodSync(join(f.task, 'tests', 'test.sh'), 0o755);
    const inside = await evaluate(f, 'baseline');
    expect(inside.run.reward).toBe(0.5);
    writeFileSync(
      join(f.task, 'tests', 'test.sh'),
      '#!/bin/bash\nln -s /etc/hostname /logs/verifier/reward.json\necho 0.25 > /logs/verifier/reward.txt\n',
    );
    const out = await evaluate(f, 'baseline');
    expect(out.run.reward).toBe(0.25);
    expect(out.run.problems).toContain('reward.json not read: a link leading out of /logs/verifier');
  });
});

describe.skipIf(!ISOLATED)('evaluate with namespace isolation: the leaks of issue 42 closed', () => {
  /** The fixture's dataset moved under `parent` (a system folder of this machine), removed after the test. */
  async function datasetUnder(parent: string): Promise<Fixture> {
    const f = await dataset();
    const home = mkdtempSync(join(parent, 'quotecheck-test-'));
    afterTest(() => rmSync(home, { recursive: true, force: true }));
    cpSync(f.tasks, join(home, 'tasks'), { recursive: true });
    return {
      ...f,
      tasks: join(home, 'tasks'),
      task: join(home, 'tasks', 'lighthouse'),
      gold: join(home, 'tasks', 'lighthouse', 'tests', 'gold.json'),
    };
  }

  test('a dataset kept under /var/lib or /usr/local/share: a search of /var, /usr and /etc for its gold finds nothing, as the agent user or as root (Why 2)', async () => {
    const search =
      'for f in $(find /var /usr /etc -name gold.json 2>/dev/null); do cp "$f" /app/answers.json; done; true';
    for (const parent of ['/var/lib', '/usr/local/share']) {
      const f = await datasetUnder(parent);
      for (const agentUser of ['task', 'root'] as const) {
        const b = await evaluate(f, search, { agentUser });
        expect([parent, agentUser, b.run.reward]).toEqual([parent, agentUser, 0]);
      }
    }
  });

  test("answers raced into a link to the host's gold by a process left running score no more than its own answers (Why 3)", async () => {
    const f = await dataset();
    const racer =
      `printf '%s' '{"v": "no_match", "n": "no_match"}' > /app/honest.json; cp /app/honest.json /app/answers.json; ` +
      `setsid nohup sh -c 'while :; do ln -sfn ${f.gold} /app/a.lnk; mv -fT /app/a.lnk /app/answers.json; ` +
      `cp /app/honest.json /app/a.tmp; mv -fT /app/a.tmp /app/answers.json; done' >/dev/null 2>&1 &`;
    for (let i = 0; i < 4; i++) {
      const b = await evaluate(f, racer, { verifierMode: 'separate' });
      expect(b.run.reward).toBeLessThanOrEqual(0.5);
    }
  });

  test('shared mode as root: /tests made a link to a host folder by a process left running, and nothing is written there (Why 4)', async () => {
    const f = await dataset();
    const trap = hostDir();
    const swap = `setsid nohup sh -c 'while :; do rm -rf /tests 2>/dev/null; ln -sfn ${trap} /tests 2>/dev/null; done' >/dev/null 2>&1 &`;
    for (let i = 0; i < 3; i++) {
      await evaluate(f, swap, { verifierMode: 'shared', agentUser: 'root' });
      expect(readdirSync(trap)).toEqual([]);
    }
  });

  test('no device node opens on a system folder or /app (nodev), and a task with no network gets a network of its own (Why 5)', async () => {
    const f = await dataset();
    const toml = join(f.task, 'task.toml');
    const config = readFileSync(toml, 'utf8');
    const withNone = config.replace(
      /(\n\[environment\]\n(?:[^[].*\n)*?)network_mode = "public"/,
      '$1network_mode = "no-network"',
    );
    expect(withNone).not.toBe(config);
    writeFileSync(toml, withNone);
    const script = [
      'p() { if eval "$2" >/dev/null 2>&1; then echo "$1=yes"; else echo "$1=no"; fi; }',
      "p usr 'mknod /usr/local/bin/zz c 1 5 && head -c 1 /usr/local/bin/zz'",
      "p etc 'mknod /etc/zz c 1 5 && head -c 1 /etc/zz'",
      "p app 'mknod /app/zz c 1 5 && head -c 1 /app/zz'",
      "p interfaces 'test $(grep -c : /proc/net/dev) -gt 1'",
    ].join('\n');
    const b = await evaluate(f, `bash -c ${q(script)} > /app/probe.txt 2>&1`, { agentUser: 'root' });
    expect(b.file('app/probe.txt').trim().split('\n').sort()).toEqual(['app=no', 'etc=no', 'interfaces=no', 'usr=no']);
  });
});

describe.skipIf(!ISOLATED)('evaluate with namespace isolation: the oracle, the baseline and the verifier', () => {
  /** A `quotecheck` on evaluate's own PATH that fails: the oracle and the baseline must not use it. */
  function fakeQuotecheckOnPath(): () => void {
    const bin = hostDir();
    writeFileSync(join(bin, 'quotecheck'), '#!/bin/sh\necho "fake quotecheck" >&2\nexit 99\n');
    chmodSync(join(bin, 'quotecheck'), 0o755);
    const saved = process.env.PATH;
    process.env.PATH = `${bin}:${saved ?? ''}`;
    return () => {
      process.env.PATH = saved;
    };
  }

  test('the oracle scores 1.000 and the baseline its no_match share, with a failing quotecheck first on PATH; neither leaves a process', async () => {
    const restore = fakeQuotecheckOnPath();
    try {
      const f = await dataset();
      // The fake is first on evaluate's own PATH, and the agent's container has no quotecheck at all (127: not found).
      const probe = await evaluate(f, 'quotecheck --version; echo $? > /app/exit.txt');
      expect(probe.file('app/exit.txt').trim()).toBe('127');
      const oracle = await evaluate(f, 'oracle');
      expect(oracle.run.reward).toBe(1);
      expect(oracle.run.problems).toEqual([]);
      expect(oracle.report.isolation).toBe('namespace');
      const baseline = await evaluate(f, 'baseline');
      expect(baseline.run.reward).toBe(0.5);
      expect(baseline.run.baseline).toBe(0.5);
      expect(baseline.run.problems).toEqual([]);
    } finally {
      restore();
    }
  });

  test('a variant that gives the agent quotecheck has it at /opt/quotecheck (read-only) and on PATH as `quotecheck`', async () => {
    const restore = fakeQuotecheckOnPath();
    try {
      const f = await dataset({ variant: { mcp: true } });
      expect(existsSync(join(f.task, 'environment', 'quotecheck', 'quotecheck.mjs'))).toBe(true);
      const agent =
        'command -v quotecheck > /app/which.txt; touch /opt/quotecheck/x 2> /app/touch.txt; quotecheck run --allow-private --claims /app/claims.json --out /app/answers.json --retries 0 --timeout 5';
      const b = await evaluate(f, agent);
      expect(b.file('app/which.txt').trim()).toBe('/opt/quotecheck-harness/bin/quotecheck');
      expect(b.file('app/touch.txt')).toMatch(/Read-only file system/);
      expect(b.run.reward).toBe(1);
      expect(b.run.problems).toEqual([]);
      // /app holds what the image puts there, not the tool.
      expect(b.file('app/quotecheck/quotecheck.mjs')).toBe('');
    } finally {
      restore();
    }
  });

  test('a frozen task with the skill: /app holds what the image copies there, the skill (and the tool inside it) is at /skills, warc-extract on PATH', async () => {
    const restore = fakeQuotecheckOnPath();
    try {
      const f = await dataset({ variant: { skill: true }, frozen: true });
      const tool = '/skills/quote-verification/quotecheck/quotecheck.mjs';
      const agent = [
        'ls -A /app > /app/ls.txt',
        `test -r ${tool} && echo skill-tool > /app/skill.txt`,
        'warc-extract /app/sources.warc.gz /tmp/sources > /app/extract.txt',
        `grep -c '"url"' /tmp/sources/index.json > /app/entries.txt`,
        `node ${tool} run --replay /app/sources.warc.gz --claims /app/claims.json --out /app/answers.json --quiet`,
      ].join('; ');
      const b = await evaluate(f, agent);
      expect(
        b
          .file('app/ls.txt')
          .split('\n')
          .filter((n) => n && n !== 'ls.txt')
          .sort(),
      ).toEqual(['claims.json', 'sources.warc.gz']);
      expect(b.file('app/skill.txt').trim()).toBe('skill-tool');
      expect(b.file('app/extract.txt')).toMatch(/^200\ttext\/html\tbodies\/1\.html\thttp:\/\/127\.0\.0\.1:\d+\/log$/m);
      expect(Number(b.file('app/entries.txt'))).toBeGreaterThanOrEqual(1);
      expect(b.run.reward).toBe(1);
      expect(b.run.problems).toEqual([]);
    } finally {
      restore();
    }
  });

  test("the separate verifier: its own container with the image's environment, the answers only (as the agent left them), no network, Docker's capabilities, its own PID namespace", async () => {
    const server = await serve([{ path: '/x', body: 'reachable' }]);
    const f = await dataset();
    writeFileSync(
      join(f.task, 'tests', 'test.sh'),
      [
        '#!/bin/bash',
        'env > /logs/verifier/env.txt',
        'grep ^CapBnd /proc/self/status > /logs/verifier/caps.txt',
        'ls -A /app > /logs/verifier/app.txt',
        'ls -A /solution /logs/agent /tests > /logs/verifier/ls.txt 2>&1',
        "ls /proc | grep -c '^[0-9]' > /logs/verifier/processes.txt",
        `(exec 3<>/dev/tcp/127.0.0.1/${new URL(server.origin).port} && echo network) > /logs/verifier/network.txt 2>/dev/null`,
        'echo 0.25 > /logs/verifier/reward.txt',
      ].join('\n'),
    );
    process.env.QUOTECHECK_ISOLATION_SECRET = 'agent-only';
    try {
      const b = await evaluate(f, 'oracle', { verifierMode: 'separate' });
      const env = Object.fromEntries(
        b
          .file('logs/verifier/env.txt')
          .trim()
          .split('\n')
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      );
      expect(env.PATH).toBe('/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin');
      expect(Object.keys(env).filter((k) => !['PATH', 'HOME', 'PWD', 'SHLVL', '_', 'OLDPWD'].includes(k))).toEqual([]);
      expect(BigInt(`0x${b.file('logs/verifier/caps.txt').split(/\s+/)[1]}`)).toBe(DOCKER_CAPABILITY_MASK);
      expect(b.file('logs/verifier/app.txt').trim()).toBe('answers.json');
      expect(b.file('logs/verifier/ls.txt')).toMatch(/cannot access '\/solution'/);
      expect(b.file('logs/verifier/ls.txt')).toMatch(/cannot access '\/logs\/agent'/);
      expect(b.file('logs/verifier/network.txt')).toBe('');
      // Its own PID namespace: the init, the shell, test.sh and ls, not the machine's processes.
      expect(Number(b.file('logs/verifier/processes.txt'))).toBeLessThan(8);
      expect(b.run.reward).toBe(0.25);
    } finally {
      delete process.env.QUOTECHECK_ISOLATION_SECRET;
    }
  });

  test('how an agent failed, not only how often: reward.json answered, overclaim and missed per task, over all claims in report.json and in the tables', async () => {
    const f = await dataset();
    const out = join(f.base, 'out-shape');
    const r = await runCli([
      'evaluate',
      '--quiet',
      '--tasks',
      f.tasks,
      '--out',
      out,
      '--agent',
      'baseline',
      '--agent',
      `echo '{"v":"verbatim","n":"verbatim"}' > /app/answers.json`,
      '--name',
      'no-match',
      '--name',
      'all-verbatim',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const all = JSON.parse(readFileSync(join(out, 'all-verbatim', 'report.json'), 'utf8')) as EvaluationReport;
    expect(all.tasks[0]!.rewardFields).toEqual({ reward: 0.5, answered: 1, overclaim: 1, missed: 0 });
    expect(all.failure_shape).toEqual({ answered: 1, overclaim: 1, missed: 0 });
    const none = JSON.parse(readFileSync(join(out, 'no-match', 'report.json'), 'utf8')) as EvaluationReport;
    expect(none.failure_shape).toEqual({ answered: 1, overclaim: 0, missed: 1 });
    expect(r.stdout).toMatch(/^overclaim\s+0%\s+100%$/m);
    expect(r.stdout).toMatch(/^missed\s+100%\s+0%$/m);
  });

  test('--replay is readable in the agent phase wherever the archive is (here in /tmp)', async () => {
    const f = await dataset();
    const archive = join(tempDir(), 'sources.warc.gz');
    writeFileSync(archive, 'not really a WARC');
    const b = await evaluate(
      f,
      'cat "$QUOTECHECK_REPLAY" > /app/replay.txt; echo "$QUOTECHECK_REPLAY" > /app/where.txt',
      {
        replay: archive,
      },
    );
    expect(b.file('app/replay.txt')).toBe('not really a WARC');
    expect(b.file('app/where.txt').trim()).toBe('/opt/quotecheck-harness/replay/sources.warc.gz');
  });
});

describe('evaluate with paths isolation (not root)', () => {
  test.skipIf(!ISOLATED)(
    '--isolation namespace where it cannot be given (not root) is refused in one line, before anything runs',
    async () => {
      const tasks = tempDir();
      chmodSync(tasks, 0o755); // readable by the user the CLI runs as
      makeTask(tasks, 'lighthouse', [
        { id: 'v', quote: 'logged every ship', url: 'http://127.0.0.1:9/log', gold: 'verbatim' },
      ]);
      const out = join(tasks, 'never-made');
      const r = await runCli(['evaluate', '--tasks', tasks, '--out', out, '--isolation', 'namespace'], {
        asUid: 65534,
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        /^quotecheck: error: --isolation namespace needs root, util-linux's unshare .* use --isolation paths, which says what it cannot stop\n$/,
      );
      expect(existsSync(out)).toBe(false);
    },
  );

  test('says plainly what it cannot stop: once on stderr, and in report.json', async () => {
    const server = await serve([{ path: '/log', body: PAGE, headers: { 'content-type': 'text/html' } }]);
    const tasks = tempDir();
    makeTask(tasks, 'lighthouse', [
      { id: 'v', quote: 'logged every ship', url: `${server.origin}/log`, gold: 'verbatim' },
    ]);
    const out = join(tempDir(), 'evaluate');
    const r = await runCli([
      'evaluate',
      '--tasks',
      tasks,
      '--out',
      out,
      '--isolation',
      'paths',
      '--quiet',
      '--agent',
      'baseline',
      '--agent',
      'baseline',
    ]);
    expect(r.code).toBe(0);
    const warnings = r.stderr.split('\n').filter((l) => l.startsWith('evaluate: paths isolation (not root): '));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/the agent phase can read and write the dataset \(tests\/, gold\.json, solution\/\)/);
    expect(warnings[0]).toMatch(/processes the agent leaves running are not stopped before the verifier/);
    const report = JSON.parse(readFileSync(join(out, 'baseline', 'report.json'), 'utf8')) as EvaluationReport;
    expect(report.isolation).toBe('paths');
    expect(report.isolation_limits).toEqual(
      expect.arrayContaining([expect.stringMatching(/can read and write the dataset/)]),
    );
  }, 60_000);
});
