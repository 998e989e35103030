// One trial on a real engine, as Harbor's docker environment runs it: the task's images built from its Dockerfiles,
// the agent's container (its [agent] user, its network and limits), then the verifier in the task's mode: separate (a
// fresh container of tests/'s image, only the declared artifacts crossing, as the engine's copy carries them) or shared
// (tests/ uploaded into the agent's container, whatever the agent left still running). Nothing of the host is mounted:
// every file crosses by the engine's copy, so nothing an agent makes is ever a host path.
import { writeFileSync } from 'node:fs';
import { basename, dirname, join, posix } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { contextImage, type ImageResult } from './engine-images.js';
import { downloadDir, handIn, takeOut, unpackFile, type UnpackCaps } from './engine-files.js';
import {
  containerProcesses,
  execIn,
  lastLines,
  removeContainer,
  startContainer,
  uploadDir,
  uploadFile,
  type CliResult,
  type Container,
  type ContainerOptions,
} from './engine.js';
import type { PhaseEnvironment } from '../task/task-dir.js';
import { LAYOUTS } from '../task/layout.js';
import { BUNDLE_FILES, shippedDir } from '../task/ship.js';
import { HARNESS_DIR, trialArtifacts, type Trial } from './trial.js';
import { AGENT_DIR, HARNESS_READ_DELAY_SEC, harborVerifierCommand, type TrialPlay } from './namespace-trial.js';
import { shellQuote } from '../sh-quote.js';
import type { EngineName } from '../results/evaluation-report.js';
import { CONTAINER_PATHS } from '../task/paths.js';

/** The network the agent's container gets: the task's (`task`), or this machine's (sources on its loopback). */
export type AgentNetwork = 'task' | 'host';

/** What an engine trial did: the phases' exit codes and what went wrong, in TaskRun.problems' words. */
interface EngineTrialResult {
  agentExit: number | null;
  verifierExit: number | null;
  problems: string[];
}

/** The largest artifact handed to the verifier, as tar (an answers file is kilobytes; the grader refuses more). */
const MAX_ARTIFACT_TAR_BYTES = 256 * 1024 * 1024;

/** What is unpacked on the host of a container's log folder: the agent's evidence report, the verifier's reward. */
const LOG_CAPS: UnpackCaps = { fileBytes: 64 * 1024 * 1024, totalBytes: 256 * 1024 * 1024 };

/** How long a harness step (making folders, chmod) may take. */
const STEP_SEC = 120;

/** How long a process on its way out is given before it counts as left running: tries of `top`, a pause between. */
const LEFT_TRIES = 8;
const LEFT_PAUSE_MS = 125;

/** The most of a phase's output kept in agent-output.txt or verifier-output.txt. */
const PHASE_OUTPUT_BYTES = 8 * 1024 * 1024;

const q = shellQuote;

/** A task's network mode as the engine's network: `no-network` none, anything else the engine's own. */
const networkOf = (env: PhaseEnvironment): ContainerOptions['network'] =>
  env.networkMode === 'no-network' ? 'none' : 'default';

/** A container's options from task.toml's settings for it. */
function containerOptions(
  image: string,
  env: PhaseEnvironment,
  network: ContainerOptions['network'],
): ContainerOptions {
  return {
    image,
    network,
    ...(env.cpus !== undefined ? { cpus: env.cpus } : {}),
    ...(env.memoryMb !== undefined ? { memoryMb: env.memoryMb } : {}),
    env: env.env,
  };
}

/** Harbor's ensure_dirs (mkdir -p and chmod 777, as root): the log folders, an artifact's folder. */
const ensureDirs = (dirs: readonly string[]): string =>
  `mkdir -p ${dirs.map(q).join(' ')} && chmod 777 ${dirs.map(q).join(' ')}`;

/** Harbor's empty_dirs: the folder made again empty (a link or a file in its place removed), open to all. */
const emptyDir = (dir: string): string =>
  `if [ -L ${q(dir)} ] || { [ -e ${q(dir)} ] && [ ! -d ${q(dir)} ]; }; then rm -rf ${q(dir)}; fi && mkdir -p ` +
  `${q(dir)} && find ${q(dir)} -mindepth 1 -maxdepth 1 -exec rm -rf -- {} + && chmod 777 ${q(dir)}`;

/** A harness step as root; its failure said as a problem. */
async function asRoot(c: Container, command: string, what: string, problems: string[]): Promise<boolean> {
  const r = await execIn(c, command, { user: 'root', timeoutSec: STEP_SEC });
  if (r.code !== 0) problems.push(`evaluate could not ${what}: ${r.timedOut ? 'timed out' : lastLines(r.output)}`);
  return r.code === 0;
}

/** The task's images: the agent's, and a separate verifier's; their build logs kept in the trial's folder. */
async function images(
  t: Trial,
  separate: boolean,
  engine: EngineName,
): Promise<{ env: ImageResult; tests?: ImageResult }> {
  const { task } = t;
  const [env, tests] = await Promise.all([
    contextImage(
      engine,
      join(task.dir, 'environment'),
      'environment',
      task.environment.buildTimeoutSec,
      task.environment.dockerImage,
    ),
    separate
      ? contextImage(
          engine,
          join(task.dir, LAYOUTS[task.layout].verifier.folder),
          'tests',
          task.verifierEnvironment.buildTimeoutSec,
          task.verifierEnvironment.dockerImage,
        )
      : undefined,
  ]);
  const log = (name: string, r: ImageResult): void => {
    const said = r.ok && !r.built ? `${engine}: image ${r.image}, built before from the same context\n` : '';
    writeFileSync(join(t.root, name), Buffer.concat([Buffer.from(said), r.log]));
  };
  log('build-environment.txt', env);
  if (tests) log('build-tests.txt', tests);
  return { env, ...(tests ? { tests } : {}) };
}

/** The agent's command, and the variables it runs with beyond the image's: the oracle's, a replay's. */
function agentCommand(t: Trial): { command: string; env: Record<string, string> } {
  const { oracle } = LAYOUTS[t.task.layout];
  const env: Record<string, string> = t.replay
    ? { QUOTECHECK_REPLAY: `${HARNESS_DIR}/replay/${basename(t.replay)}` }
    : {};
  if (t.agent === 'oracle')
    return {
      command: `bash ${oracle.path}/solve.sh`,
      env: { DEBIAN_FRONTEND: 'noninteractive', ...t.task.solutionEnv, ...env },
    };
  if (t.agent === 'baseline')
    return {
      command:
        `node ${HARNESS_DIR}/baseline/${basename(BUNDLE_FILES.quotecheck)} run --baseline --claims ` +
        `${CONTAINER_PATHS.app.path}/claims.json --out ${CONTAINER_PATHS.app.path}/answers.json`,
      env,
    };
  return { command: t.agent, env };
}

/**
 * What the harness puts in the agent's container before the agent: the oracle's folder (Harbor's upload to
 * /solution), the baseline's quotecheck, the agent's own folder, the replay archive.
 */
async function uploadForAgent(c: Container, t: Trial, play: TrialPlay, problems: string[]): Promise<boolean> {
  const { oracle } = LAYOUTS[t.task.layout];
  const uploads: [string, string, 'dir' | 'file'][] = [];
  if (t.agent === 'oracle') uploads.push([join(t.task.dir, oracle.folder), oracle.path, 'dir']);
  if (t.agent === 'baseline') uploads.push([shippedDir(), `${HARNESS_DIR}/baseline`, 'dir']);
  if (play.agentDir) uploads.push([play.agentDir, AGENT_DIR, 'dir']);
  if (t.replay) uploads.push([t.replay, `${HARNESS_DIR}/replay/${basename(t.replay)}`, 'file']);
  // Harbor's log folders (ensure_dirs), and the folders the uploads go to, in one step as root.
  const logs = [CONTAINER_PATHS.agentLogs.path, CONTAINER_PATHS.verifierLogs.path, '/logs/artifacts'];
  const parents = [...new Set(uploads.map(([, to, kind]) => (kind === 'dir' ? to : posix.dirname(to))))];
  const make = `${ensureDirs(logs)}${parents.length ? ` && mkdir -p ${parents.map(q).join(' ')}` : ''}`;
  if (!(await asRoot(c, make, "make the agent's folders", problems))) return false;
  for (const [from, to, kind] of uploads) {
    const r = await (kind === 'dir' ? uploadDir(c, from, to, STEP_SEC) : uploadFile(c, from, to, STEP_SEC));
    if (r.code !== 0) {
      problems.push(`evaluate could not copy ${from} to ${to}: ${lastLines(r.output)}`);
      return false;
    }
  }
  return true;
}

/** A phase's output kept in the trial's folder, and its problems: a timeout, an exit status. */
function phaseEnd(t: Trial, r: CliResult, name: 'agent' | 'verifier', timeoutSec: number, problems: string[]): void {
  writeFileSync(join(t.root, `${name}-output.txt`), r.output);
  if (r.timedOut) problems.push(`${name} stopped at its ${timeoutSec} s timeout`);
  else if (name === 'agent' && r.code !== 0) problems.push(`agent exited ${r.code}`);
  else if (name === 'verifier' && r.code !== 0)
    problems.push(`the verifier's command failed (exit ${r.code}: its output could not be kept, or test.sh failed)`);
}

/** "1 process", "2 processes". */
const processes = (n: number): string => `${n} ${n === 1 ? 'process' : 'processes'}`;

/**
 * The processes still running in the container but its keep-alive (its PID 1), taken again for a moment while the
 * count is above zero (a program's helpers may be on their way out as it returns); undefined when the engine cannot
 * say.
 */
async function leftRunning(c: Container): Promise<number | undefined> {
  let n: number | undefined;
  for (let i = 0; i < LEFT_TRIES; i++) {
    const ps = await containerProcesses(c);
    if (ps === undefined) return n;
    n = ps.filter((p) => !c.keepAlive.has(p.pid) && !p.state.startsWith('Z')).length;
    if (n === 0) return 0;
    await sleep(LEFT_PAUSE_MS);
  }
  return n;
}

/** Runs the agent in its container: the uploads, then its command as its user. */
async function runAgent(c: Container, t: Trial, play: TrialPlay, problems: string[]): Promise<number | null> {
  if (!(await uploadForAgent(c, t, play, problems))) return null;
  const { command, env } = agentCommand(t);
  const user = play.asRoot ? 'root' : t.task.agentUser;
  const r = await execIn(c, command, {
    ...(user !== undefined ? { user } : {}),
    ...(t.task.environment.workdir ? { cwd: t.task.environment.workdir } : {}),
    env,
    passEnv: play.agentEnv,
    timeoutSec: t.task.agentTimeoutSec,
    maxOutput: PHASE_OUTPUT_BYTES,
  });
  phaseEnd(t, r, 'agent', t.task.agentTimeoutSec, problems);
  return r.timedOut ? null : r.code;
}

/** Harbor's chmod of test.sh before it runs it (as root). */
const makeExecutable = (t: Trial): string => `chmod +x ${q(`${LAYOUTS[t.task.layout].verifier.path}/test.sh`)}`;

/**
 * Harbor's verifier in a container, run as the task's [verifier] user; test.sh made executable as root first, unless
 * the caller did that in a step of its own (`chmodDone`).
 */
async function runVerifier(c: Container, t: Trial, problems: string[], chmodDone = false): Promise<number | null> {
  const { verifier } = LAYOUTS[t.task.layout];
  if (!chmodDone && !(await asRoot(c, makeExecutable(t), 'make test.sh executable', problems))) return null;
  const r = await execIn(c, harborVerifierCommand(verifier.path, CONTAINER_PATHS.verifierLogs.path), {
    ...(t.task.verifierUser !== undefined ? { user: t.task.verifierUser } : {}),
    env: t.task.verifierEnv,
    timeoutSec: t.task.verifierTimeoutSec,
    maxOutput: PHASE_OUTPUT_BYTES,
  });
  phaseEnd(t, r, 'verifier', t.task.verifierTimeoutSec, problems);
  return r.timedOut ? null : r.code;
}

/** A container's log folder unpacked into the trial's (regular files only); a failed copy said. */
async function keepLogs(c: Container, from: string, to: string, problems: string[]): Promise<void> {
  const { problem } = await downloadDir(c, from, to, LOG_CAPS);
  if (problem) problems.push(problem);
}

/**
 * The declared artifacts out of the agent's container, each a tar file as the engine carries it, and a regular file's
 * bytes unpacked where the trial's folder mirrors the container (app/answers.json) for the report.
 */
async function collect(c: Container, t: Trial, problems: string[]): Promise<string[]> {
  const kept: string[] = [];
  for (const [i, path] of trialArtifacts(t).entries()) {
    const tar = join(t.artifactsDir, `${i}.tar`);
    const out = await takeOut(c, path, tar, MAX_ARTIFACT_TAR_BYTES);
    if (!out.ok) {
      if (!out.missing) problems.push(`artifact ${out.reason}`);
      continue;
    }
    kept.push(path);
    const { skipped } = await unpackFile(tar, join(t.root, dirname(path)), LOG_CAPS);
    for (const s of skipped) problems.push(`artifact ${posix.join(posix.dirname(path), s.path)} is ${s.why}`);
  }
  return kept;
}

/** The artifacts handed into the verifier's container, each at its own path (its folder made by the caller). */
async function handOver(v: Container, t: Trial, kept: readonly string[], problems: string[]): Promise<void> {
  const all = trialArtifacts(t);
  for (const path of kept) {
    const r = await handIn(v, posix.dirname(path), join(t.artifactsDir, `${all.indexOf(path)}.tar`));
    if (r.code !== 0) problems.push(`evaluate could not hand ${path} to the verifier: ${lastLines(r.output)}`);
  }
}

/** The separate verifier: a fresh container of tests/'s image, the artifacts handed in, test.sh, its logs kept. */
async function separateVerifier(
  engine: EngineName,
  t: Trial,
  image: string,
  kept: readonly string[],
  problems: string[],
): Promise<number | null> {
  const started = await startContainer(
    engine,
    containerOptions(image, t.task.verifierEnvironment, networkOf(t.task.verifierEnvironment)),
  );
  if ('error' in started) {
    problems.push(`evaluate could not make the verifier's container: ${started.error}`);
    return null;
  }
  const v = started.container;
  try {
    // Harbor's steps as root, in one: /logs/verifier emptied, each artifact's folder made, test.sh made executable.
    const parents = [...new Set(kept.map((p) => posix.dirname(p)))];
    const prepare = [emptyDir(CONTAINER_PATHS.verifierLogs.path), ...(parents.length ? [ensureDirs(parents)] : [])];
    if (!(await asRoot(v, [...prepare, makeExecutable(t)].join(' && '), "prepare the verifier's container", problems)))
      return null;
    await handOver(v, t, kept, problems);
    const code = await runVerifier(v, t, problems, true);
    await keepLogs(v, CONTAINER_PATHS.verifierLogs.path, t.verifierLogs, problems);
    const left = await leftRunning(v);
    if (left)
      problems.push(`the verifier left ${processes(left)} running; ${left === 1 ? 'it was' : 'they were'} stopped`);
    return code;
  } finally {
    await removeContainer(v);
  }
}

/**
 * Harbor's shared verifier: tests/ uploaded into the agent's container after the agent, test.sh run there with
 * whatever the agent left running, the reward read a moment later (the harness's own delay).
 */
async function sharedVerifier(c: Container, t: Trial, problems: string[]) {
  const { verifier } = LAYOUTS[t.task.layout];
  await keepLogs(c, CONTAINER_PATHS.agentLogs.path, t.agentLogs, problems);
  const up = await uploadDir(c, join(t.task.dir, verifier.folder), verifier.path, STEP_SEC);
  if (up.code !== 0)
    problems.push(`evaluate could not upload ${verifier.folder}/ to ${verifier.path}: ${lastLines(up.output)}`);
  const code = up.code === 0 ? await runVerifier(c, t, problems) : null;
  await sleep(HARNESS_READ_DELAY_SEC * 1000);
  await keepLogs(c, CONTAINER_PATHS.verifierLogs.path, t.verifierLogs, problems);
  // The answers as the verifier found them, for the report's rows (evaluate reads them the safe way).
  await collect(c, t, []);
  const left = await leftRunning(c);
  if (left)
    problems.push(
      `the agent left ${processes(left)} running through the verifier (shared mode: they could act on its files)`,
    );
  return code;
}

/** The agent's side of a separate trial: its artifacts and logs taken out, what it left running counted. */
async function agentSideOut(c: Container, t: Trial, problems: string[]) {
  const kept = await collect(c, t, problems);
  await keepLogs(c, CONTAINER_PATHS.agentLogs.path, t.agentLogs, problems);
  const left = await leftRunning(c);
  if (left)
    problems.push(
      `the agent left ${processes(left)} running; ${left === 1 ? 'it was' : 'they were'} stopped before the verifier`,
    );
  return kept;
}

/** Runs a trial on the engine: the images, the agent's container, then the verifier in the play's mode. */
export async function runEngineTrial(
  t: Trial,
  play: TrialPlay,
  engine: EngineName,
  network: AgentNetwork,
): Promise<EngineTrialResult> {
  const problems: string[] = [];
  const separate = play.verifierMode === 'separate';
  const built = await images(t, separate, engine);
  if (!built.env.ok) {
    problems.push(`the agent's image did not build (environment/Dockerfile): ${built.env.reason}`);
    return { agentExit: null, verifierExit: null, problems };
  }
  const agentNet = network === 'host' ? 'host' : networkOf(t.task.environment);
  const started = await startContainer(engine, containerOptions(built.env.image, t.task.environment, agentNet));
  if ('error' in started) {
    problems.push(`evaluate could not make the agent's container: ${started.error}`);
    return { agentExit: null, verifierExit: null, problems };
  }
  const c = started.container;
  let removed = false;
  let agentExit: number | null = null;
  let verifierExit: number | null = null;
  try {
    agentExit = await runAgent(c, t, play, problems);
    if (!separate) verifierExit = await sharedVerifier(c, t, problems);
    else {
      const kept = await agentSideOut(c, t, problems);
      // Harbor stops the agent's environment before a separate verifier starts.
      await removeContainer(c);
      removed = true;
      if (!built.tests?.ok)
        problems.push(`the verifier's image did not build (tests/Dockerfile): ${built.tests?.reason ?? 'not built'}`);
      else verifierExit = await separateVerifier(engine, t, built.tests.image, kept, problems);
    }
  } finally {
    if (!removed) await removeContainer(c);
  }
  return { agentExit, verifierExit, problems };
}
