// The verifier against an agent that tries to score without solving (docs/security.md#what-testsh-and-the-grader-stop): every attack runs through the
// real test.sh at the container paths (/app, /tests or /verifier, /logs/verifier bind-mounted in a private mount
// namespace, as a harness lays them out), as root or as the agent's user, and must score 0 with its reason said.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { LAYOUTS, type Layout } from '../src/task/layout.js';
// The task's own verifier, as tests/grade.mjs runs it.
import {
  verify,
  failureShape,
  grade,
  rewardJson,
  MAX_LABELS_BYTES,
  readLabels,
  removeEntry,
  replaceFile,
} from '../src/grader/grade.mjs';
import { shellQuote as q } from '../src/sh-quote.js';
import { dockerInstructions, makeTask } from './support/harbor-helpers.js';
import { tempDir } from './support/helpers.js';

/** The agent's user in the task image (templates.ts AGENT_UID); here a uid with no account, which is all a uid needs. */
const AGENT_UID = 1001;

/** The task's grader, as test.sh runs it. */
const GRADER = join(import.meta.dirname, '..', 'src', 'grader', 'grade.mjs');

const CLAIMS = [
  { id: 'a', quote: 'alpha', url: 'http://127.0.0.1:9/a', gold: 'verbatim' },
  { id: 'b', quote: 'beta', url: 'http://127.0.0.1:9/b', gold: 'no_match' },
  { id: 'c', quote: 'gamma', url: 'http://127.0.0.1:9/c', gold: 'no_match' },
];
const GOLD = { a: 'verbatim', b: 'no_match', c: 'no_match' };

const canUnshare =
  process.getuid?.() === 0 &&
  spawnSync('unshare', ['--mount', '--pid', '--fork', '--propagation', 'private', 'true'], { stdio: 'ignore' })
    .status === 0;

/** A container's folders on the host: /app, /logs (verifier and agent), the verifier folder of the task's layout. */
interface Box {
  root: string;
  app: string;
  logs: string;
  verifierLogs: string;
  tests: string;
  layout: Layout;
}

/**
 * A fresh box with the verifier folder of a real task (test.sh, grade.mjs, gold.json), readable by the agent's uid: the
 * task ships gold.json 0600 (root's alone once a harness uploads it as root), and these tests also run the verifier as
 * the agent's user, as a harness that ignores `[verifier] user` would, which needs to read it (`shipped` keeps 0600).
 */
function makeBox(layout: Layout = 'harbor', opts: { shipped?: boolean } = {}): Box {
  const root = tempDir('quotecheck-verifier-');
  chmodSync(root, 0o755);
  const task = makeTask(join(root, 'dataset'), 't', CLAIMS, layout);
  const box: Box = {
    root,
    app: join(root, 'app'),
    logs: join(root, 'logs'),
    verifierLogs: join(root, 'logs', 'verifier'),
    tests: join(root, 'tests'),
    layout,
  };
  for (const d of [box.app, box.verifierLogs, join(box.logs, 'agent')]) mkdirSync(d, { recursive: true });
  cpSync(join(task, LAYOUTS[layout].verifier.folder), box.tests, { recursive: true });
  for (const d of [root, box.app, box.logs, box.verifierLogs, box.tests]) chmodSync(d, 0o755);
  if (!opts.shipped) chmodSync(join(box.tests, 'gold.json'), 0o644);
  return box;
}

/** reward.json as the verifier left it in the box: parsed, or what is there instead. */
function rewardJsonOf(box: Box): unknown {
  const file = join(box.verifierLogs, 'reward.json');
  if (!existsSync(file) && !isLink(file)) return 'missing';
  if (!lstatSync(file).isFile()) return 'not a file';
  return JSON.parse(readFileSync(file, 'utf8'));
}

const ZERO = { reward: 0, answered: 0, overclaim: 0, missed: 0 };

interface RunOptions {
  /** Run the verifier as this uid (the agent's user, when a harness runs the verifier as the image's USER). */
  uid?: number;
  /** More bind mounts inside the namespace: [host path, container path]. */
  mounts?: [string, string][];
  /** The harness's command: `bash <verifier>/test.sh` by default (as Harbor and EvalScope run it). */
  command?: string;
  /** The verifier's environment (default: a harness's plain one). */
  env?: NodeJS.ProcessEnv;
}

/** Runs the verifier as a harness does, in a private mount and PID namespace; returns its output and the reward file. */
function runVerifier(
  box: Box,
  opts: RunOptions = {},
): { stdout: string; reward: string | undefined; rewardKind: string } {
  const verifierPath = LAYOUTS[box.layout].verifier.path;
  for (const p of ['/app', '/logs', verifierPath]) mkdirSync(p, { recursive: true });
  const mounts: [string, string][] = [
    [box.app, '/app'],
    [box.logs, '/logs'],
    [box.tests, verifierPath],
    ...(opts.mounts ?? []),
  ];
  const setup = mounts.map(([from, to]) => `mount --bind ${q(from)} ${q(to)}`).join(' && ');
  const command = opts.command ?? `bash ${verifierPath}/test.sh`;
  const as = opts.uid === undefined ? '' : `setpriv --reuid=${opts.uid} --regid=${opts.uid} --clear-groups -- `;
  const r = spawnSync(
    'unshare',
    ['--mount', '--pid', '--fork', '--propagation', 'private', 'bash', '-c', `${setup} && cd /app && ${as}${command}`],
    {
      env: opts.env ?? {
        PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        HOME: '/root',
        LANG: 'C.UTF-8',
      },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  if (r.error) throw r.error;
  const file = join(box.verifierLogs, 'reward.txt');
  let rewardKind = 'missing';
  let reward: string | undefined;
  if (existsSync(file) || isLink(file)) {
    const st = lstatSync(file);
    rewardKind = st.isFile() ? 'file' : st.isSymbolicLink() ? 'symlink' : 'other';
    if (st.isFile()) reward = readFileSync(file, 'utf8').trim();
  }
  return { stdout: `${r.stdout}${r.stderr}`, reward, rewardKind };
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

const HONEST = JSON.stringify(GOLD);

/** Fake programs for every name test.sh or a grader could be looked up by: each claims a perfect score. */
function fakeBin(dir: string, rewardPath: string): string {
  mkdirSync(dir, { recursive: true });
  const fake = `#!/bin/sh\necho FAKE "$0" "$@"\necho 1 > ${rewardPath} 2>/dev/null\nexit 0\n`;
  for (const name of [
    'node',
    'quotecheck',
    'env',
    'timeout',
    'mktemp',
    'rm',
    'mv',
    'mkdir',
    'chmod',
    'cat',
    'python3',
  ]) {
    writeFileSync(join(dir, name), fake);
    chmodSync(join(dir, name), 0o755);
  }
  chmodSync(dir, 0o755);
  return dir;
}

describe.skipIf(!canUnshare)('test.sh at the container paths: attacks score 0 and say why', () => {
  test('honest answers are graded: the control every attack is measured against', () => {
    const box = makeBox();
    writeFileSync(join(box.app, 'answers.json'), HONEST);
    const r = runVerifier(box);
    expect(r.reward).toBe('1');
    expect(r.stdout).toMatch(/accuracy 1\.000 \(3\/3 correct\)/);
    expect(r.stdout).toContain('answered 1.000, overclaim 0.000, missed 0.000');
    expect(rewardJsonOf(box)).toEqual({ reward: 1, answered: 1, overclaim: 0, missed: 0 });
    // Graded as the agent's own user too (a harness that runs the verifier as the image's USER): b, gold no_match, is
    // answered verbatim (an overclaim: one of the two no_match claims).
    const mine = makeBox();
    writeFileSync(join(mine.app, 'answers.json'), '{"a": "verbatim", "b": "verbatim", "c": "no_match"}');
    chmodSync(mine.verifierLogs, 0o1777);
    expect(runVerifier(mine, { uid: AGENT_UID }).reward).toBe('0.666667');
    expect(rewardJsonOf(mine)).toEqual({ reward: 0.666667, answered: 1, overclaim: 0.5, missed: 0 });
  });

  test("the gold as shipped (0600, root's): a verifier run as the agent's user cannot read it, and both reward files say 0", () => {
    const box = makeBox('harbor', { shipped: true });
    expect(lstatSync(join(box.tests, 'gold.json')).mode & 0o777).toBe(0o600);
    writeFileSync(join(box.app, 'answers.json'), HONEST);
    chmodSync(box.verifierLogs, 0o1777);
    const r = runVerifier(box, { uid: AGENT_UID });
    expect(r.reward).toBe('0');
    expect(rewardJsonOf(box)).toEqual(ZERO);
    expect(r.stdout).toContain('grade: cannot read gold file /tests/gold.json: permission denied');
    expect(r.stdout).toContain('reward 0: the grader failed (exit status 1)');
  });

  test('a grader that writes 1 to both reward files and then fails: test.sh writes both back to 0', () => {
    const box = makeBox();
    writeFileSync(join(box.app, 'answers.json'), HONEST);
    writeFileSync(
      join(box.tests, 'grade.mjs'),
      "import { writeFileSync } from 'node:fs';\nwriteFileSync('/logs/verifier/reward.txt', '1\\n');\nwriteFileSync('/logs/verifier/reward.json', '{\"reward\": 1}');\nprocess.exit(3);\n",
    );
    const r = runVerifier(box);
    expect(r.stdout).toContain('reward 0: the grader failed (exit status 3)');
    expect(r.reward).toBe('0');
    expect(rewardJsonOf(box)).toEqual(ZERO);
  });

  test.each(['harbor', 'skillsbench'] as const)('a symlink to the gold at its future path (%s layout)', (layout) => {
    const box = makeBox(layout);
    const gold = `${LAYOUTS[layout].verifier.path}/gold.json`;
    symlinkSync(gold, join(box.app, 'answers.json'));
    const r = runVerifier(box);
    expect(r.reward).toBe('0');
    expect(r.stdout).toContain(
      `answers file /app/answers.json is a symbolic link (to ${gold}), not a regular file: not graded`,
    );
  });

  test('a hard link to the gold (a process that outlived the agent made it once the tests were uploaded)', () => {
    const box = makeBox();
    linkSync(join(box.tests, 'gold.json'), join(box.app, 'answers.json'));
    const r = runVerifier(box);
    expect(r.reward).toBe('0');
    expect(r.stdout).toContain('answers file /app/answers.json is the gold file itself (a link to it): not graded');
  });

  test('a planted reward.json (Harbor reads it before reward.txt) and a stale reward.txt are removed', () => {
    const box = makeBox();
    writeFileSync(join(box.verifierLogs, 'reward.json'), '{"reward": 1}');
    writeFileSync(join(box.verifierLogs, 'reward.txt'), '1\n');
    const r = runVerifier(box);
    expect(r.reward).toBe('0');
    expect(rewardJsonOf(box)).toEqual(ZERO);
    expect(r.stdout).toContain('reward 0: cannot read answers file /app/answers.json: no such file');
  });

  test("a read-only reward.txt holding 1 in a folder made read-only, verifier as root and as the folder's owner", () => {
    for (const uid of [undefined, AGENT_UID]) {
      const box = makeBox();
      writeFileSync(join(box.verifierLogs, 'reward.txt'), '1\n');
      chmodSync(join(box.verifierLogs, 'reward.txt'), 0o444);
      spawnSync('chown', ['-R', `${AGENT_UID}:${AGENT_UID}`, box.verifierLogs]);
      chmodSync(box.verifierLogs, 0o555);
      const r = runVerifier(box, { uid });
      expect(r.reward, `as ${uid ?? 'root'}: ${r.stdout}`).toBe('0');
      expect(r.rewardKind).toBe('file');
    }
  });

  test('reward.txt as a symlink to a read-only file holding 1: replaced, never written through', () => {
    const box = makeBox();
    const one = join(box.root, 'one.txt');
    writeFileSync(one, '1\n');
    chmodSync(one, 0o444);
    symlinkSync(one, join(box.verifierLogs, 'reward.txt'));
    const r = runVerifier(box);
    expect(r.rewardKind).toBe('file');
    expect(r.reward).toBe('0');
    expect(readFileSync(one, 'utf8')).toBe('1\n');
  });

  test('reward.json as a symlink to a read-only file holding a reward of 1, or as a folder: replaced, never written through', () => {
    const box = makeBox();
    const one = join(box.root, 'one.json');
    writeFileSync(one, '{"reward": 1}');
    chmodSync(one, 0o444);
    symlinkSync(one, join(box.verifierLogs, 'reward.json'));
    writeFileSync(join(box.app, 'answers.json'), '{"a": "no_match", "b": "no_match", "c": "no_match"}');
    const r = runVerifier(box);
    expect(r.reward).toBe('0.666667');
    expect(rewardJsonOf(box)).toEqual({ reward: 0.666667, answered: 1, overclaim: 0, missed: 1 });
    expect(readFileSync(one, 'utf8')).toBe('{"reward": 1}');
    const folder = makeBox();
    mkdirSync(join(folder.verifierLogs, 'reward.json', 'x'), { recursive: true });
    expect(runVerifier(folder).reward).toBe('0');
    expect(rewardJsonOf(folder)).toEqual(ZERO);
  });

  test('reward.txt as a FIFO or a folder of read-only folders: the verifier neither hangs nor fails, reward 0', () => {
    const fifo = makeBox();
    spawnSync('mkfifo', [join(fifo.verifierLogs, 'reward.txt')]);
    expect(runVerifier(fifo).reward).toBe('0');
    const folder = makeBox();
    mkdirSync(join(folder.verifierLogs, 'reward.txt', 'deep'), { recursive: true });
    writeFileSync(join(folder.verifierLogs, 'reward.txt', 'deep', 'x'), '1');
    spawnSync('chown', ['-R', `${AGENT_UID}:${AGENT_UID}`, folder.verifierLogs]);
    chmodSync(join(folder.verifierLogs, 'reward.txt', 'deep'), 0o555);
    chmodSync(folder.verifierLogs, 0o1777);
    const r = runVerifier(folder, { uid: AGENT_UID });
    expect(r.rewardKind, r.stdout).toBe('file');
    expect(r.reward).toBe('0');
  });

  test('/logs/verifier replaced by a symlink: the verifier makes its own folder and writes nothing through the link', () => {
    const box = makeBox();
    const elsewhere = join(box.root, 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'reward.txt'), '1\n');
    cpSync(box.verifierLogs, join(box.root, 'unused'), { recursive: true });
    spawnSync('rm', ['-rf', box.verifierLogs]);
    symlinkSync(elsewhere, box.verifierLogs);
    writeFileSync(join(box.app, 'answers.json'), '{"a": "verbatim", "b": "no_match"}');
    const r = runVerifier(box);
    expect(lstatSync(box.verifierLogs).isDirectory()).toBe(true);
    expect(r.reward).toBe('0.666667');
    expect(readFileSync(join(elsewhere, 'reward.txt'), 'utf8')).toBe('1\n');
  });

  test('answers that block or never end: a FIFO, a link to /dev/zero, a character device, a file over the cap', () => {
    const fifo = makeBox();
    spawnSync('mkfifo', [join(fifo.app, 'answers.json')]);
    const started = Date.now();
    const f = runVerifier(fifo);
    expect(f.reward).toBe('0');
    expect(f.stdout).toContain('answers file /app/answers.json is a named pipe (FIFO), not a regular file: not graded');
    expect(Date.now() - started).toBeLessThan(30_000);
    const zero = makeBox();
    symlinkSync('/dev/zero', join(zero.app, 'answers.json'));
    expect(runVerifier(zero).stdout).toContain('is a symbolic link (to /dev/zero), not a regular file');
    const device = makeBox();
    spawnSync('mknod', [join(device.app, 'answers.json'), 'c', '1', '5']); // what /dev/zero is
    const d = runVerifier(device);
    expect(d.reward).toBe('0');
    expect(d.stdout).toContain('answers file /app/answers.json is a character device, not a regular file: not graded');
    const big = makeBox();
    writeFileSync(join(big.app, 'answers.json'), `${HONEST}${' '.repeat(MAX_LABELS_BYTES)}`);
    const b = runVerifier(big);
    expect(b.reward).toBe('0');
    expect(b.stdout).toMatch(/is [\d,]+ bytes, over the 16,777,216-byte limit: not graded/);
  });

  test('a fake grader on PATH, as root: test.sh runs its own grader by absolute path under env -i', () => {
    const box = makeBox();
    writeFileSync(join(box.app, 'answers.json'), '{}');
    // A root agent's programs in /usr/local/sbin, first on the default PATH (here a folder mounted over it).
    const fakes = fakeBin(join(box.root, 'sbin'), '/logs/verifier/reward.txt');
    const r = runVerifier(box, {
      mounts: [[fakes, '/usr/local/sbin']],
      env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', NODE_OPTIONS: '--title=fake' },
    });
    expect(r.stdout).not.toContain('FAKE');
    expect(r.reward).toBe('0');
    expect(r.stdout).toMatch(/accuracy 0\.000 \(0\/3 correct\)/);
  });

  test("under a login shell as the agent's user: ~/.local/bin on PATH and NODE_OPTIONS from ~/.profile reach nothing", () => {
    const box = makeBox();
    writeFileSync(join(box.app, 'answers.json'), '{}');
    const home = join(box.root, 'home');
    fakeBin(join(home, '.local', 'bin'), '/logs/verifier/reward.txt');
    writeFileSync(
      join(home, 'evil.cjs'),
      "require('fs').writeFileSync('/logs/verifier/reward.txt', '1\\n'); console.log('FAKE preload'); process.exit(0);\n",
    );
    // What Debian's own ~/.profile does (~/.local/bin first on PATH), plus what an agent would add.
    writeFileSync(
      join(home, '.profile'),
      [
        'if [ -d "$HOME/.local/bin" ]; then PATH="$HOME/.local/bin:$PATH"; fi',
        `export NODE_OPTIONS="--require $HOME/evil.cjs"`,
        'export PATH',
        '',
      ].join('\n'),
    );
    spawnSync('chown', ['-R', `${AGENT_UID}:${AGENT_UID}`, home]);
    chmodSync(box.verifierLogs, 0o1777);
    const r = runVerifier(box, {
      uid: AGENT_UID,
      env: { HOME: home, PATH: '/usr/local/bin:/usr/bin:/bin' },
      command: "/bin/bash -lc 'bash /tests/test.sh'",
    });
    expect(r.stdout).not.toContain('FAKE');
    expect(r.reward).toBe('0');
    expect(r.stdout).toMatch(/accuracy 0\.000 \(0\/3 correct\)/);
  });
});

describe.skipIf(!canUnshare)('a separate verifier: the image tests/Dockerfile makes, run as Harbor runs it', () => {
  test("only /app/answers.json crosses: graded, /tests root's alone, both reward files written", () => {
    const box = makeBox('harbor', { shipped: true });
    const steps = dockerInstructions(readFileSync(join(box.tests, 'Dockerfile'), 'utf8'));
    expect(steps[0]).toBe('FROM node:20-bookworm-slim');
    expect(steps).toContain('COPY test.sh grade.mjs gold.json /tests/');
    expect(steps.at(-1)).toBe('WORKDIR /app');
    // The image's RUN steps on the folder COPY filled, then Harbor's command, as root, in /app (WORKDIR), where the
    // artifact is restored at its own path.
    const build = steps.filter((st) => st.startsWith('RUN ')).map((st) => st.slice(4));
    writeFileSync(join(box.app, 'answers.json'), '{"a": "no_match", "b": "no_match", "c": "no_match"}');
    const harbor = 'bash -c "(/tests/test.sh) > /logs/verifier/test-stdout.txt 2>&1"';
    const modes = "stat -c '%a %U %n' /tests /tests/test.sh /tests/grade.mjs /tests/gold.json > /logs/agent/modes";
    const r = runVerifier(box, { command: `${build.join(' && ')} && ${modes} && cd /app && ${harbor}` });
    expect(
      readFileSync(join(box.logs, 'agent', 'modes'), 'utf8')
        .trim()
        .split('\n'),
    ).toEqual(['700 root /tests', '700 root /tests/test.sh', '600 root /tests/grade.mjs', '600 root /tests/gold.json']);
    expect(readFileSync(join(box.verifierLogs, 'test-stdout.txt'), 'utf8'), r.stdout).toMatch(
      /accuracy 0\.667 \(2\/3 correct\)/,
    );
    expect(r.reward).toBe('0.666667');
    expect(rewardJsonOf(box)).toEqual({ reward: 0.666667, answered: 1, overclaim: 0, missed: 1 });
  });
});

describe("the verifier's file rules (verifier.ts)", () => {
  test('readLabels: a regular file only, never the gold by another name', () => {
    const dir = tempDir();
    const gold = join(dir, 'gold.json');
    writeFileSync(gold, HONEST);
    const { identity } = readLabels(gold, 'gold');
    linkSync(gold, join(dir, 'hard.json'));
    expect(() => readLabels(join(dir, 'hard.json'), 'answers', { notSameAs: identity })).toThrowError(
      /is the gold file itself/,
    );
    symlinkSync(gold, join(dir, 'soft.json'));
    expect(() => readLabels(join(dir, 'soft.json'), 'answers')).toThrowError(/is a symbolic link \(to .*gold\.json\)/);
    mkdirSync(join(dir, 'folder.json'));
    expect(() => readLabels(join(dir, 'folder.json'), 'answers')).toThrowError(/is a folder, not a regular file/);
    writeFileSync(join(dir, 'big.json'), '{}'.padEnd(101));
    expect(() => readLabels(join(dir, 'big.json'), 'answers', { maxBytes: 100 })).toThrowError(
      /is 101 bytes, over the 100-byte limit/,
    );
    expect(readLabels(join(dir, 'big.json'), 'answers', { maxBytes: 101 }).labels.size).toBe(0);
    // Deeper than a label file is: refused before parsing (millions of nested arrays would take gigabytes of heap).
    writeFileSync(join(dir, 'deep.json'), '['.repeat(4_000_000));
    expect(() => readLabels(join(dir, 'deep.json'), 'answers')).toThrowError(
      /is nested deeper than a label file is \(at line 1, column 3\)/,
    );
    writeFileSync(join(dir, 'list.json'), JSON.stringify([{ id: 'a', label: 'verbatim' }]));
    expect([...readLabels(join(dir, 'list.json'), 'answers').labels]).toEqual([['a', 'verbatim']]);
    writeFileSync(join(dir, 'latin1.json'), Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]));
    expect(() => readLabels(join(dir, 'latin1.json'), 'answers')).toThrowError(/is not valid UTF-8/);
  });

  test('a label that is not a string is never one: an object (even with its own toString), a list, null, a number, none', () => {
    const dir = tempDir();
    const gold = join(dir, 'gold.json');
    writeFileSync(gold, JSON.stringify({ a: 'verbatim', b: 'no_match' }));
    const cases: [string, unknown][] = [
      ['an object with a toString field', { a: { toString: 1 }, b: { valueOf: 'no_match' } }],
      ['one-label lists', { a: ['verbatim'], b: ['no_match'] }],
      ['null and a number', { a: null, b: 0 }],
      ['a list without labels', [{ id: 'a' }, { id: 'b', label: ['no_match'] }]],
    ];
    for (const [what, answers] of cases) {
      writeFileSync(join(dir, 'answers.json'), JSON.stringify(answers));
      const r = spawnSync(
        process.execPath,
        [GRADER, '--answers', join(dir, 'answers.json'), '--gold', gold, '--logs', join(dir, what)],
        { encoding: 'utf8' },
      );
      expect([what, r.status, r.stderr]).toEqual([what, 0, '']);
      expect([what, readFileSync(join(dir, what, 'reward.txt'), 'utf8').trim()]).toEqual([what, '0']);
      expect(JSON.parse(readFileSync(join(dir, what, 'reward.json'), 'utf8')).answered).toBe(0);
    }
  });

  test('replaceFile replaces a link, a FIFO or a folder at the path, and removeEntry never follows a link', () => {
    const dir = tempDir();
    const target = join(dir, 'target.txt');
    writeFileSync(target, 'keep\n');
    symlinkSync(target, join(dir, 'r.txt'));
    replaceFile(join(dir, 'r.txt'), '0\n');
    expect(readFileSync(target, 'utf8')).toBe('keep\n');
    expect(lstatSync(join(dir, 'r.txt')).isFile()).toBe(true);
    mkdirSync(join(dir, 'd.txt', 'x'), { recursive: true });
    replaceFile(join(dir, 'd.txt'), '0\n');
    expect(readFileSync(join(dir, 'd.txt'), 'utf8')).toBe('0\n');
    symlinkSync(dir, join(dir, 'loop'));
    removeEntry(join(dir, 'loop'));
    expect(readFileSync(target, 'utf8')).toBe('keep\n');
    // No temp file is left behind.
    expect(readdirSync(dir).filter((n) => n.startsWith('.')).length).toBe(0);
  });

  test("verify: the reward is 0 from the start; a broken gold is the task's error, with the 0 left standing", () => {
    const dir = tempDir();
    const logs = join(dir, 'logs');
    writeFileSync(join(dir, 'gold.json'), '{ not json');
    writeFileSync(join(dir, 'answers.json'), HONEST);
    mkdirSync(logs);
    writeFileSync(join(logs, 'reward.txt'), '1\n');
    expect(() =>
      verify({ answers: join(dir, 'answers.json'), gold: join(dir, 'gold.json'), logsDir: logs }),
    ).toThrowError(/gold file .* is not valid JSON/);
    expect(readFileSync(join(logs, 'reward.txt'), 'utf8')).toBe('0\n');
    writeFileSync(join(dir, 'gold.json'), HONEST);
    expect(verify({ answers: join(dir, 'answers.json'), gold: join(dir, 'gold.json'), logsDir: logs }).reward).toBe(1);
    expect(readFileSync(join(logs, 'reward.txt'), 'utf8')).toBe('1\n');
    expect(readFileSync(join(logs, 'reward.json'), 'utf8')).toBe(
      '{"reward":1,"answered":1,"overclaim":0,"missed":0}\n',
    );
    // Answers refused: both files say 0, and nothing else is left in the folder (no temp file).
    writeFileSync(join(dir, 'answers.json'), '[[[]]]');
    expect(verify({ answers: join(dir, 'answers.json'), gold: join(dir, 'gold.json'), logsDir: logs }).refused).toMatch(
      /nested deeper/,
    );
    expect(readFileSync(join(logs, 'reward.txt'), 'utf8')).toBe('0\n');
    expect(readFileSync(join(logs, 'reward.json'), 'utf8')).toBe(
      '{"reward":0,"answered":0,"overclaim":0,"missed":0}\n',
    );
    expect(readdirSync(logs).sort()).toEqual(['reward.json', 'reward.txt']);
  });

  test('failureShape: reward, the share answered, overclaims among gold no_match, misses among gold verbatim', () => {
    const gold = new Map([
      ['v1', 'verbatim'],
      ['v2', 'verbatim'],
      ['v3', 'verbatim'],
      ['v4', 'verbatim'],
      ['n1', 'no_match'],
      ['n2', 'no_match'],
    ]);
    // v1 right, v2 missed, v3 unanswered, v4 not a label; n1 an overclaim, n2 right.
    const answers = new Map([
      ['v1', 'verbatim'],
      ['v2', 'no_match'],
      ['v4', 'maybe'],
      ['n1', 'verbatim'],
      ['n2', 'no_match'],
      ['extra', 'verbatim'],
    ]);
    const g = grade(answers, gold);
    expect(failureShape(g)).toEqual({ reward: 2 / 6, answered: 4 / 6, overclaim: 1 / 2, missed: 1 / 4 });
    expect(rewardJson(failureShape(g))).toBe('{"reward":0.333333,"answered":0.666667,"overclaim":0.5,"missed":0.25}\n');
    // No gold claims of a label: its share is 0, not NaN; no gold at all: all 0.
    expect(failureShape(grade(new Map([['v1', 'no_match']]), new Map([['v1', 'verbatim']])))).toEqual({
      reward: 0,
      answered: 1,
      overclaim: 0,
      missed: 1,
    });
    expect(failureShape(grade(new Map(), new Map([['n1', 'no_match']])))).toEqual({
      reward: 0,
      answered: 0,
      overclaim: 0,
      missed: 0,
    });
    expect(failureShape(grade(new Map(), new Map()))).toEqual({ reward: 0, answered: 0, overclaim: 0, missed: 0 });
  });
});
