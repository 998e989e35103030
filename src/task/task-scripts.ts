// The scripts and Dockerfiles of a Harbor task (docs/security.md#what-each-side-gets), filled in from their templates
// (src/task/templates/): the oracle's solve.sh (the quotecheck shipped beside it), the verifier's test.sh (its own
// grader, a clean environment), the agent's Dockerfile (public images, no quotecheck but what a variant gives on
// purpose) and, for a verifier of its own, the Dockerfile of its image.
import { basename } from 'node:path';
import { REPLAY_ENV } from '../config/defaults.js';
import { rewardJson, ZERO_SHAPE } from '../grader/grade.mjs';
import { shellQuote } from '../sh-quote.js';
import { COPY_SKILLS_LINE, type Layout } from './layout.js';
import {
  AGENT_UID,
  AGENT_USER,
  CONTAINER_PATHS,
  TASK_ARCHIVE,
  TOOL_DIR,
  WARC_READER_COMMAND,
  WARC_READER_FILE,
} from './paths.js';
import { BUNDLE_FILES, ORACLE_LOADER, ORACLE_PACK, SHIPPED_FOLDER } from './ship.js';
import { aptPackageArgs, DEFAULT_BASE_IMAGE, type ImageOptions } from './task-image.js';
import { fillTemplate } from './template-files.js';
import { givesTool, QUOTECHECK_MCP_SERVER, type TaskVariant } from './variant.js';

export interface SolveOptions {
  /** Extra `quotecheck run` arguments, e.g. the Wayback stub's `--wayback-url` for a local dataset. */
  runArgs?: readonly string[];
  /** The task ships its sources as /app/sources.warc.gz: the oracle replays them, offline. */
  replay?: boolean;
}

/** The verifier's grader beside test.sh: `node grade.mjs --answers A --gold G --logs DIR`. */
const GRADER_FILE = basename(BUNDLE_FILES.grader);

/** The container paths the templates name, and the variables that move them. */
const PATHS = {
  APP_PATH: CONTAINER_PATHS.app.path,
  APP_ENV: CONTAINER_PATHS.app.env,
  AGENT_LOGS_PATH: CONTAINER_PATHS.agentLogs.path,
  AGENT_LOGS_ENV: CONTAINER_PATHS.agentLogs.env,
  VERIFIER_LOGS_PATH: CONTAINER_PATHS.verifierLogs.path,
  VERIFIER_LOGS_ENV: CONTAINER_PATHS.verifierLogs.env,
} as const;

/**
 * The oracle (templates/solve.sh): the quotecheck packed in the solution folder beside this script (quotecheck.tgz: a
 * build of `run` alone that needs only Node.js; no quotecheck is installed in the agent's image), unpacked into a
 * temporary folder of its own in the background while Node.js starts its loader (quotecheck.mjs,
 * src/cli/entries/oracle-loader.ts), which waits for the unpacking and runs it on /app/claims.json; its progress and
 * summary go to the agent log.
 */
export function solveScript(opts: SolveOptions = {}): string {
  return fillTemplate('task', 'solve.sh', {
    APP_PATH: PATHS.APP_PATH,
    APP_ENV: PATHS.APP_ENV,
    AGENT_LOGS_PATH: PATHS.AGENT_LOGS_PATH,
    AGENT_LOGS_ENV: PATHS.AGENT_LOGS_ENV,
    ORACLE_PACK,
    ORACLE_LOADER,
    REPLAY: opts.replay === true,
    REPLAY_ENV,
    TASK_ARCHIVE,
    RUN_ARGS: (opts.runArgs ?? []).map((a) => ` ${shellQuote(a)}`).join(''),
  });
}

/**
 * How long the grader may take inside test.sh before it is stopped and the reward stays 0 (the verifier's own limit is
 * longer).
 */
const GRADER_TIMEOUT_SEC = 60;

/**
 * reward.json when nothing was graded (test.sh writes it with reward.txt's 0): the grader's own zero, byte for byte.
 */
const ZERO_REWARD_JSON = rewardJson(ZERO_SHAPE).trimEnd();

/**
 * The verifier (templates/test.sh). It grades /app/answers.json against the gold.json beside it, wherever the harness
 * put its folder (/tests for Harbor, in the agent's container or in the verifier's own image; /verifier for EvalScope
 * and AgentCompass), and trusts nothing the agent could have touched:
 * - it runs itself again under `env -i` first, so no PATH, BASH_ENV, NODE_OPTIONS or exported function the agent left
 *   reaches the grader, and calls every program by an absolute system path;
 * - the grader is grade.mjs beside it (Node's own modules only), run by Node.js at an absolute path;
 * - the reward is 0 from the start (stale reward.txt and reward.json removed, never written through a link; both
 *   written as 0), the grader replaces both with the grade, and a grader that fails or hangs leaves both at 0;
 * - the answers are graded only when they are a regular file, not the gold, under the size cap (grader/grade.mjs).
 * QUOTECHECK_APP_DIR and QUOTECHECK_VERIFIER_LOGS move /app and /logs/verifier for runs without root (evaluate
 * --isolation paths).
 */
export function testScript(): string {
  return fillTemplate('task', 'test.sh', {
    APP_PATH: PATHS.APP_PATH,
    APP_ENV: PATHS.APP_ENV,
    VERIFIER_LOGS_PATH: PATHS.VERIFIER_LOGS_PATH,
    VERIFIER_LOGS_ENV: PATHS.VERIFIER_LOGS_ENV,
    ZERO_REWARD_JSON: shellQuote(ZERO_REWARD_JSON),
    GRADER_TIMEOUT_SEC: String(GRADER_TIMEOUT_SEC),
    GRADER_FILE,
  });
}

/**
 * The agent's base image: Node.js 20 on Debian 12, from Docker's official images (public: every harness builds from it,
 * and it is cached after the first task), by tag unless export --base-image pins it by digest. Node.js is there for
 * what a harness brings at its time (the oracle's quotecheck, the verifier's grader), and agents written for Node
 * (Claude Code, Codex) install on it as they are.
 */
const baseImageOf = (opts: ImageOptions): string => opts.baseImage ?? DEFAULT_BASE_IMAGE;

/**
 * A separate verifier's image (templates/tests.Dockerfile): tests/Dockerfile, whose build context is the tests/ folder
 * (Harbor builds it so, and uploads nothing into it: test.sh must already be in the image). The public base image the
 * agent's has, for Node.js; the verifier's files root's alone, as root runs them. Every line says why.
 */
export function verifierDockerfile(opts: ImageOptions = {}): string {
  return fillTemplate('task', 'tests.Dockerfile', {
    BASE_IMAGE: baseImageOf(opts),
    GRADER_FILE,
    TESTS_PATH: CONTAINER_PATHS.tests.path,
    APP_PATH: CONTAINER_PATHS.app.path,
  });
}

interface DockerfileOptions extends TaskVariant, ImageOptions {
  /** The task ships its sources as /app/sources.warc.gz (and the WARC reader to read them). */
  archive?: boolean;
  /** Whose layout the task is in (default `harbor`): it decides how the skills are copied in. */
  layout?: Layout;
}

/**
 * A task's environment (templates/environment.Dockerfile, docs/security.md#what-each-side-gets): public base images
 * only, so any harness builds it; a fact-checker's tools (poppler's pdftotext, the way the labels were made; curl and
 * CA certificates; Node.js) and nothing of quotecheck, unless the variant gives it on purpose. The same file for every
 * task of a dataset: only the claims (and a frozen task's archive) differ, copied last, so the image is built once and
 * every task reuses its layers. SkillsBench 1.1 harnesses strip the one-line `COPY skills /skills` for runs without
 * skills: no other line may name a skills path, or a no-skill build would keep a trace of them (and the tool, which
 * travels inside the skill), so only Harbor's layout gets the line's comment.
 */
export function environmentDockerfile(opts: DockerfileOptions = {}): string {
  return fillTemplate('task', 'environment.Dockerfile', {
    BASE_IMAGE: baseImageOf(opts),
    APT_PINNED: Object.keys(opts.aptVersions ?? {}).length > 0,
    APT_PACKAGES: aptPackageArgs(opts.aptVersions),
    AGENT_UID: String(AGENT_UID),
    AGENT_USER,
    APP_PATH: PATHS.APP_PATH,
    AGENT_LOGS_PATH: PATHS.AGENT_LOGS_PATH,
    VERIFIER_LOGS_PATH: PATHS.VERIFIER_LOGS_PATH,
    MCP: opts.mcp === true,
    SHIPPED_FOLDER,
    TOOL_DIR,
    TOOL_CLI: basename(BUNDLE_FILES.quotecheck),
    MCP_COMMAND: QUOTECHECK_MCP_SERVER.command,
    MCP_SUBCOMMAND: QUOTECHECK_MCP_SERVER.args[0]!,
    ARCHIVE: opts.archive === true,
    WARC_READER_FILE,
    WARC_READER_COMMAND,
    FROZEN_TOOL: opts.archive === true && givesTool(opts),
    REPLAY_ENV,
    TASK_ARCHIVE,
    SKILL: opts.skill === true,
    SKILL_COMMENT: (opts.layout ?? 'harbor') === 'harbor',
    COPY_SKILLS_LINE,
  });
}
