// A trial with --isolation paths, for a machine where evaluate is not root: the agent with evaluate's own privileges in
// the trial's /app, the container paths given by QUOTECHECK_*_DIR variables, then the verifier on the task's folder
// (a separate one on a copy of the artifacts). What it cannot stop is said in report.json (src/results/isolations.ts).
import type { TaskDir } from '../task/task-dir.js';
import { LAYOUTS } from '../task/layout.js';
import { shellQuote } from '../sh-quote.js';
import { dirname, join, resolve } from 'node:path';
import { shippedCli } from '../task/ship.js';
import { CONTAINER_PATHS } from '../task/paths.js';
import { IMAGE_PATH, type PhaseStatus } from './namespace-root.js';
import { trialArtifacts, type Trial } from './trial.js';
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { AGENT_DIR_ENV, harborVerifierCommand } from './namespace-trial.js';
import { homedir } from 'node:os';
import type { VerifierMode } from '../task/verifier-mode.js';
import { collectArtifacts } from './namespace-container.js';
/** The agent's command with --isolation paths: the task's own folders, the container paths by variable. */
function pathsAgentCommand(agent: string, task: TaskDir): string {
  if (agent === 'oracle') return `bash ${shellQuote(join(task.dir, LAYOUTS[task.layout].oracle.folder, 'solve.sh'))}`;
  if (agent === 'baseline')
    return (
      `${shellQuote(process.execPath)} ${shellQuote(shippedCli())} run --baseline --claims ` +
      `"$${CONTAINER_PATHS.app.env}/claims.json" --out "$${CONTAINER_PATHS.app.env}/answers.json"`
    );
  return agent;
}

interface PhaseResult {
  code: number | null;
  timedOut: boolean;
  /** Container isolation only: what the container's init reported. */
  status?: PhaseStatus;
}

/** Runs one command with --isolation paths: bash in the trial's /app, the whole process group killed at the limit. */
function runPathsPhase(
  t: Trial,
  command: string,
  env: NodeJS.ProcessEnv,
  timeoutSec: number,
  log: string,
): Promise<PhaseResult> {
  return new Promise((resolvePhase) => {
    const child = spawn('bash', ['-c', command], {
      cwd: t.app,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    child.stdout!.on('data', (d: Buffer) => chunks.push(d));
    child.stderr!.on('data', (d: Buffer) => chunks.push(d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      // A process that left the group may hold the pipes open: stop waiting for them.
      for (const s of child.stdio) s?.destroy();
    }, timeoutSec * 1000);
    const done = (code: number | null) => {
      clearTimeout(timer);
      writeFileSync(join(t.root, log), Buffer.concat(chunks));
      resolvePhase({ code, timedOut });
    };
    child.on('close', (code) => done(code));
    child.on('error', () => done(null));
  });
}

/** The agent's environment with --isolation paths: evaluate's own, with the container paths and the variant's tool. */
function pathsAgentEnv(t: Trial, harnessBin: boolean, agentDir: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (agentDir) env[AGENT_DIR_ENV] = resolve(agentDir);
  for (const c of Object.values(CONTAINER_PATHS)) if ('env' in c) delete env[c.env];
  if (harnessBin) env.PATH = `${join(t.harnessDir, 'bin')}:${env.PATH ?? ''}`;
  if (t.replay) env.QUOTECHECK_REPLAY = t.replay;
  env[CONTAINER_PATHS.app.env] = t.app;
  env[CONTAINER_PATHS.verifierLogs.env] = t.verifierLogs;
  env[CONTAINER_PATHS.agentLogs.env] = t.agentLogs;
  if (t.agent === 'oracle') env[CONTAINER_PATHS.solution.env] = join(t.task.dir, LAYOUTS[t.task.layout].oracle.folder);
  return env;
}

/**
 * The verifier's environment with --isolation paths: a fixed minimum, nothing of evaluate's (test.sh runs its grader
 * under env -i).
 */
function pathsVerifierEnv(app: string, logs: string): NodeJS.ProcessEnv {
  return {
    PATH: IMAGE_PATH,
    HOME: homedir(),
    LANG: 'C.UTF-8',
    [CONTAINER_PATHS.app.env]: app,
    [CONTAINER_PATHS.verifierLogs.env]: logs,
  };
}

/** What went wrong in a paths phase, in the words of TaskRun.problems. */
function pathsProblems(name: 'agent' | 'verifier', r: PhaseResult, timeoutSec: number): string[] {
  if (r.timedOut) return [`${name} stopped at its ${timeoutSec} s timeout`];
  return name === 'agent' && r.code !== 0 ? [`agent exited ${r.code}`] : [];
}

/**
 * A trial with --isolation paths: the agent with evaluate's own privileges, then the verifier on the task's folder
 * (separate: on a copy of the artifacts).
 */
export async function runPathsTrial(
  t: Trial,
  mode: VerifierMode,
  harnessBin: boolean,
  agentDir: string | undefined,
): Promise<{ agentExit: number | null; verifierExit: number | null; problems: string[] }> {
  const agent = await runPathsPhase(
    t,
    pathsAgentCommand(t.agent, t.task),
    pathsAgentEnv(t, harnessBin, agentDir),
    t.task.agentTimeoutSec,
    'agent-output.txt',
  );
  const problems = pathsProblems('agent', agent, t.task.agentTimeoutSec);
  rmSync(t.verifierLogs, { recursive: true, force: true });
  mkdirSync(t.verifierLogs, { recursive: true });
  let app = t.app;
  if (mode === 'separate') {
    // Only the artifacts in /app can be found here (the trial's /app stands for it); they are copied as in a container.
    const under = (p: string): boolean => p.startsWith(`${CONTAINER_PATHS.app.path}/`);
    const artifacts = trialArtifacts(t).filter(under);
    problems.push(...collectArtifacts(dirname(t.app), artifacts, t.artifactsDir));
    app = join(t.artifactsDir, CONTAINER_PATHS.app.path);
    mkdirSync(app, { recursive: true });
  }
  const tests = join(t.task.dir, LAYOUTS[t.task.layout].verifier.folder);
  const verifier = await runPathsPhase(
    t,
    harborVerifierCommand(shellQuote(tests), `"$${CONTAINER_PATHS.verifierLogs.env}"`),
    pathsVerifierEnv(app, t.verifierLogs),
    t.task.verifierTimeoutSec,
    'verifier-output.txt',
  );
  problems.push(...pathsProblems('verifier', verifier, t.task.verifierTimeoutSec));
  return { agentExit: agent.code, verifierExit: verifier.code, problems };
}
