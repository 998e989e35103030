// One trial in containers, as Harbor runs it: the agent's container (the task's image, its user, its PATH), then the
// verifier in the task's mode: shared (in the agent's container, tests/ uploaded, what the agent left still running) or
// separate (its own container from tests/Dockerfile, only the artifacts crossing, no network).
import { chmodSync, chownSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { chmodBeneath, copyInto } from './beneath.js';
import { collectArtifacts, restoreArtifacts, runContainer, type ContainerResult } from './namespace-container.js';
import { agentUser, copiesInto, everyFile, imageEnv, readDockerfile, workdir, type Dockerfile } from './dockerfile.js';
import {
  IMAGE_PATH,
  type Bind,
  type ContainerCommand,
  type ContainerSpec,
  type ContainerUser,
} from './namespace-root.js';
import { LAYOUTS } from '../task/layout.js';
import { BUNDLE_FILES, shippedDir } from '../task/ship.js';
import { HARNESS_DIR, trialArtifacts, type Trial } from './trial.js';
import type { VerifierMode } from '../task/verifier-mode.js';
import { TASK_SKILLS_DIR, CONTAINER_PATHS, TOOL_DIR } from '../task/paths.js';

/** Where the agent's container has the baseline's quotecheck (evaluate's own build), for `--agent baseline` only. */
const BASELINE_DIR = `${HARNESS_DIR}/baseline`;

/**
 * Where an agent's own files (evaluate's --agent-dir) are in its container, read-only: Harbor installs agents there.
 */
export const AGENT_DIR = '/installed-agent';
/** The variable that names the agent's folder where it is elsewhere (evaluate's --isolation paths). */
export const AGENT_DIR_ENV = 'QUOTECHECK_AGENT_DIR';

/** Where the replay archive is in the agent phase. */
const replayPath = (t: Trial): string => `${HARNESS_DIR}/replay/${basename(t.replay!)}`;

/**
 * The time a harness takes between the verifier's end and reading the reward, which a process the agent left
 * running in shared mode has to act in: evaluate waits this long before it stops the container and reads.
 */
export const HARNESS_READ_DELAY_SEC = 0.5;

/** Time for a container's set-up and tear-down, beyond its commands' own limits. */
const SETUP_SEC = 30;

/** Harbor's verifier command: test.sh run directly (it made it executable), its output kept beside the reward. */
export const harborVerifierCommand = (testsPath: string, logs: string): string =>
  `(${testsPath}/test.sh) > ${logs}/test-stdout.txt 2>&1`;

/** How evaluate plays a trial: the verifier mode, and whose the agent phase is. */
export interface TrialPlay {
  verifierMode: VerifierMode;
  /** The task's agent user, or root (a harness that ignores [agent] user). */
  asRoot: boolean;
  /** The image's agent user (taskUser), when the task names one. */
  user?: ContainerUser;
  /** Host variables the agent gets, by name (its API keys). */
  agentEnv: readonly string[];
  /** A host folder of the agent's own (its program), at AGENT_DIR. */
  agentDir?: string;
  /**
   * Namespace containers: whether the agent shares this machine's network (false: a network namespace of its own, as a
   * task with `no-network` asks), and the host folders hidden from it (the dataset, evaluate's output).
   */
  network?: boolean;
  hide?: readonly string[];
}

/** The agent's command in its container. */
function containerAgentCommand(t: Trial): string {
  const { oracle } = LAYOUTS[t.task.layout];
  if (t.agent === 'oracle') return `bash ${oracle.path}/solve.sh`;
  if (t.agent === 'baseline')
    return (
      `node ${BASELINE_DIR}/${basename(BUNDLE_FILES.quotecheck)} run --baseline --claims ` +
      `${CONTAINER_PATHS.app.path}/claims.json --out ${CONTAINER_PATHS.app.path}/answers.json`
    );
  return t.agent;
}

/** The task's agent user as its image makes it, or undefined when the task leaves the agent to the image's root. */
export function taskUser(t: Trial): ContainerUser | undefined {
  return t.task.agentUser === undefined ? undefined : agentUser(t.image, t.task.agentUser);
}

/**
 * The agent's environment: the image's (Docker's PATH, HOME, the Dockerfile's ENV lines), evaluate's bin/ first when it
 * gives commands.
 */
function agentEnvironment(t: Trial, user: ContainerUser | 'root', harnessBin: boolean): Record<string, string> {
  const env: Record<string, string> = {
    PATH: `${harnessBin ? `${HARNESS_DIR}/bin:` : ''}${IMAGE_PATH}`,
    HOME: user === 'root' ? '/root' : user.home,
    ...imageEnv(t.image),
  };
  if (t.replay) env.QUOTECHECK_REPLAY = replayPath(t);
  return env;
}

/**
 * The agent container's binds: the trial's /app and logs, the oracle's folder for the oracle only, the variant's tool
 * and skills, evaluate's own folder.
 */
function agentBinds(t: Trial, harnessBin: boolean, agentDir: string | undefined): Bind[] {
  const { oracle } = LAYOUTS[t.task.layout];
  const binds: Bind[] = [
    { from: t.app, to: CONTAINER_PATHS.app.path, writable: true },
    { from: t.agentLogs, to: CONTAINER_PATHS.agentLogs.path, writable: true },
    { from: t.verifierLogs, to: CONTAINER_PATHS.verifierLogs.path, writable: true },
  ];
  if (t.agent === 'oracle' && existsSync(join(t.task.dir, oracle.folder)))
    binds.push({ from: join(t.task.dir, oracle.folder), to: oracle.path, writable: false });
  if (t.tool) binds.push({ from: t.tool, to: TOOL_DIR, writable: false });
  if (t.skills) binds.push({ from: t.skills, to: TASK_SKILLS_DIR, writable: false });
  if (harnessBin || t.replay) binds.push({ from: t.harnessDir, to: HARNESS_DIR, writable: false });
  if (t.replay) binds.push({ from: t.replay, to: replayPath(t), writable: false });
  if (t.agent === 'baseline') binds.push({ from: shippedDir(), to: BASELINE_DIR, writable: false });
  if (agentDir) binds.push({ from: agentDir, to: AGENT_DIR, writable: false });
  return binds;
}

/** The verifier as root with the image's environment, by Harbor's command. */
function verifierCommand(t: Trial, cwd: string): ContainerCommand {
  return {
    command: harborVerifierCommand(LAYOUTS[t.task.layout].verifier.path, CONTAINER_PATHS.verifierLogs.path),
    user: 'root',
    env: { PATH: IMAGE_PATH, HOME: '/root' },
    cwd,
    timeoutSec: t.task.verifierTimeoutSec,
  };
}

/**
 * The agent's container: its command as its user, then the pause (artifacts out, or tests/ in), then in shared mode the
 * verifier.
 */
function agentContainer(
  t: Trial,
  play: TrialPlay,
  user: ContainerUser | undefined,
  harnessBin: boolean,
): ContainerSpec {
  const runAs = play.asRoot || !user ? 'root' : user;
  return {
    rootMount: t.rootMount,
    layerMount: t.layerMount,
    binds: agentBinds(t, harnessBin, play.agentDir),
    users: user ? [user] : [],
    node: process.execPath,
    network: play.network ?? true,
    ...(play.hide ? { hide: play.hide } : {}),
    main: {
      command: containerAgentCommand(t),
      user: runAs,
      env: agentEnvironment(t, runAs, harnessBin),
      passEnv: play.agentEnv,
      cwd: CONTAINER_PATHS.app.path,
      timeoutSec: t.task.agentTimeoutSec,
    },
    pause: 'after',
    ...(play.verifierMode === 'shared'
      ? { after: { ...verifierCommand(t, CONTAINER_PATHS.app.path), graceSec: HARNESS_READ_DELAY_SEC } }
      : {}),
  };
}

/**
 * The separate verifier's container: built from tests/ (`image`, its Dockerfile; filled at its pause), no network, a
 * fresh /logs/verifier.
 */
function verifierContainer(t: Trial, image: Dockerfile): ContainerSpec {
  return {
    rootMount: t.rootMount,
    layerMount: t.layerMount,
    binds: [{ from: t.verifierLogs, to: CONTAINER_PATHS.verifierLogs.path, writable: true }],
    users: [],
    node: process.execPath,
    network: false,
    main: verifierCommand(t, workdir(image, '/')),
    pause: 'before',
  };
}

/**
 * Harbor's upload of the verifier's folder into the agent's container (shared mode): every file, kept as the
 * dataset has it (mode included), owned by root; test.sh made executable, as Harbor does before it runs it.
 */
function uploadTests(t: Trial, root: string): void {
  const { verifier } = LAYOUTS[t.task.layout];
  // Through no link the agent made on the way (beneath.ts): a /tests it turned into a link to a host folder is a link
  // in its own root, replaced, and nothing of the host is written.
  copyInto(join(t.task.dir, verifier.folder), root, verifier.path);
  chmodBeneath(root, `${verifier.path}/test.sh`);
}

/**
 * The verifier's image, as tests/Dockerfile lays out its /tests (every file of tests/ but the Dockerfile when it
 * copies nothing there), owned by root; test.sh executable.
 */
function layOutTests(t: Trial, root: string, image: Dockerfile): string[] {
  const { verifier } = LAYOUTS[t.task.layout];
  const dir = join(t.task.dir, verifier.folder);
  const copies = copiesInto(image, verifier.path);
  const notes = copies.length
    ? []
    : [`no tests/Dockerfile COPY into ${verifier.path}: the verifier got every file of ${verifier.folder}/`];
  for (const [from, to] of copies.length ? copies : everyFile(dir, new Set(['Dockerfile']))) {
    const source = join(dir, from);
    if (existsSync(source)) copyInto(source, root, join(verifier.path, to));
  }
  try {
    chmodBeneath(root, `${verifier.path}/test.sh`);
  } catch {
    // no test.sh laid out: the verifier's command says so when it runs
  }
  return notes;
}

/**
 * What the trial's containers did: the agent's, the verifier's (the same container in shared mode), and notes on the
 * copies.
 */
interface ContainerTrial {
  agent: ContainerResult;
  verifier: ContainerResult;
  notes: string[];
}

/**
 * The trial's folders, owned as the image has them: /app and /logs/agent the agent user's, /logs/verifier open to all
 * (Harbor chmods it 777).
 */
function ownFolders(t: Trial, user: ContainerUser | undefined): void {
  if (user) for (const d of [t.app, t.agentLogs]) chownSync(d, user.uid, user.gid);
  chmodSync(t.verifierLogs, 0o777);
}

/** Harbor's emptying of /logs/verifier before a separate verifier: a fresh folder, open to all. */
function emptyVerifierLogs(t: Trial): void {
  rmSync(t.verifierLogs, { recursive: true, force: true });
  mkdirSync(t.verifierLogs, { recursive: true });
  chmodSync(t.verifierLogs, 0o777);
}

/** Runs a trial's containers: the agent's, then the verifier in `play.verifierMode`. */
export async function runContainerTrial(t: Trial, play: TrialPlay, harnessBin: boolean): Promise<ContainerTrial> {
  const { user } = play;
  ownFolders(t, user);
  const notes: string[] = [];
  const artifacts = trialArtifacts(t);
  const shared = play.verifierMode === 'shared';
  const agent = await runContainer(agentContainer(t, play, user, harnessBin), {
    limitSec: t.task.agentTimeoutSec + (shared ? t.task.verifierTimeoutSec + HARNESS_READ_DELAY_SEC : 0) + SETUP_SEC,
    log: join(t.root, 'agent-output.txt'),
    passEnv: play.agentEnv,
    onPause: (root) => {
      if (shared) uploadTests(t, root);
      else notes.push(...collectArtifacts(root, artifacts, t.artifactsDir));
    },
  });
  if (shared) return { agent, verifier: agent, notes };
  emptyVerifierLogs(t);
  // tests/Dockerfile, read once for the container's working folder and for what it copies into /tests.
  const image = readDockerfile(join(t.task.dir, LAYOUTS[t.task.layout].verifier.folder, 'Dockerfile'));
  const verifier = await runContainer(verifierContainer(t, image), {
    limitSec: t.task.verifierTimeoutSec + SETUP_SEC,
    log: join(t.root, 'verifier-output.txt'),
    onPause: (root) => {
      notes.push(...layOutTests(t, root, image));
      restoreArtifacts(t.artifactsDir, artifacts, root);
    },
  });
  return { agent, verifier, notes };
}
/** "1 process", "2 processes". */
const processes = (n: number): string => `${n} ${n === 1 ? 'process' : 'processes'}`;

/** What went wrong in a trial's containers, in the words of TaskRun.problems. */
export function containerProblems(
  t: Trial,
  agent: ContainerResult,
  verifier: ContainerResult,
  shared: boolean,
): string[] {
  const out: string[] = [];
  const { status } = agent;
  if (agent.timedOut && status.main === undefined) out.push(`agent stopped at its ${t.task.agentTimeoutSec} s timeout`);
  if (!status.ready)
    out.push(`evaluate could not make the agent's container (exit ${agent.code}; see agent-output.txt)`);
  if (status.mainTimedOut) out.push(`agent stopped at its ${t.task.agentTimeoutSec} s timeout`);
  else if (status.main !== undefined && status.main !== 0) out.push(`agent exited ${status.main}`);
  if (agent.pauseProblem) out.push(`evaluate could not copy between the containers: ${agent.pauseProblem}`);
  const vStatus = shared ? status.after : verifier.status.main;
  if (!shared && !verifier.status.ready)
    out.push(`evaluate could not make the verifier's container (exit ${verifier.code}; see verifier-output.txt)`);
  if (!shared && verifier.pauseProblem)
    out.push(`evaluate could not lay out the verifier's container: ${verifier.pauseProblem}`);
  if ((shared ? status.afterTimedOut : verifier.status.mainTimedOut) || (!shared && verifier.timedOut))
    out.push(`verifier stopped at its ${t.task.verifierTimeoutSec} s timeout`);
  else if (vStatus !== undefined && vStatus !== 0)
    out.push(`the verifier's command failed (exit ${vStatus}: its output could not be kept, or test.sh failed)`);
  const left = (shared ? status.left : agent.status.left) ?? 0;
  if (left > 0)
    out.push(
      shared
        ? `the agent left ${processes(left)} running through the verifier (shared mode: they could act on its files)`
        : `the agent left ${processes(left)} running; ${left === 1 ? 'it was' : 'they were'} stopped before the ` +
            `verifier`,
    );
  const vLeft = shared ? 0 : (verifier.status.left ?? 0);
  if (vLeft > 0)
    out.push(`the verifier left ${processes(vLeft)} running; ${vLeft === 1 ? 'it was' : 'they were'} stopped`);
  return out;
}
