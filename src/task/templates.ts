// The text of a Harbor task's files (docs/security.md#what-each-side-gets): instruction, task.toml, the agent's
// Dockerfile (public images, no quotecheck), the oracle's solve.sh (the quotecheck shipped beside it), the verifier's
// test.sh (its own grader, a clean environment) and, for a verifier of its own, the Dockerfile of its image, and the
// variants that give the agent quotecheck on purpose (its skill, its MCP server).
import { stringify as stringifyToml } from 'smol-toml';
import { cpSync, existsSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shellQuote } from '../sh-quote.js';
import { BUNDLE_FILES, ORACLE_LOADER, ORACLE_PACK, SHIPPED_FOLDER, installTool } from './ship.js';
import { authorEntry, COPY_SKILLS_LINE, ENV_SKILLS_FOLDER, TASK_SKILLS_DIR, type Layout } from './layout.js';
import { UserError } from '../errors.js';
import { REPLAY_ENV } from '../config/defaults.js';
import type { TaskPackage } from './package-info.js';
import { DEFAULT_BASE_IMAGE, aptPackageArgs, type ImageOptions } from './task-image.js';
import { ZERO_SHAPE, rewardJson } from '../grader/grade.mjs';
import type { VerifierMode } from './verifier-mode.js';

/**
 * Container paths. Each script honours an environment variable for its folders, so a
 * runner without root (no private mount namespace) can point them elsewhere; in the
 * container they are unset and the paths are the standard ones.
 */
export const CONTAINER_PATHS = {
  app: { path: '/app', env: 'QUOTECHECK_APP_DIR' },
  solution: { path: '/solution', env: 'QUOTECHECK_SOLUTION_DIR' },
  /** No variable: the verifier finds its gold beside test.sh, and nothing in the environment can move it. */
  tests: { path: '/tests' },
  verifierLogs: { path: '/logs/verifier', env: 'QUOTECHECK_VERIFIER_LOGS' },
  agentLogs: { path: '/logs/agent', env: 'QUOTECHECK_AGENT_LOGS' },
} as const;

const p = CONTAINER_PATHS;

/** The WARC file a frozen (offline) task ships in /app: its own sources, recorded. */
export const TASK_ARCHIVE = 'sources.warc.gz';

export interface SolveOptions {
  /** Extra `quotecheck run` arguments, e.g. the Wayback stub's `--wayback-url` for a local dataset. */
  runArgs?: readonly string[];
  /** The task ships its sources as /app/sources.warc.gz: the oracle replays them, offline. */
  replay?: boolean;
}

/** The verifier's grader beside test.sh: `node grade.mjs --answers A --gold G --logs DIR`. */
const GRADER_FILE = basename(BUNDLE_FILES.grader);

/** The frozen edition's WARC reader, in the environment folder, and where the image puts it on PATH. */
export const WARC_READER_FILE = basename(BUNDLE_FILES.warcExtract);
export const WARC_READER_COMMAND = 'warc-extract';

/**
 * The oracle: the quotecheck packed in the solution folder beside this script (quotecheck.tgz: a build of `run` alone
 * that needs only Node.js; no quotecheck is installed in the agent's image), unpacked into a temporary folder of its
 * own in the background while Node.js starts its loader (quotecheck.mjs, src/cli/entries/oracle-loader.ts), which waits
 * for the unpacking and runs it on /app/claims.json; its progress and summary go to the agent log.
 */
export function solveScript(opts: SolveOptions = {}): string {
  const extra = (opts.runArgs ?? []).map((a) => ` ${shellQuote(a)}`).join('');
  const replay = opts.replay
    ? `# A frozen edition: every source is answered from the task's own WARC archive, with no network.
export QUOTECHECK_REPLAY="\${QUOTECHECK_REPLAY:-$APP/${TASK_ARCHIVE}}"
`
    : '';
  return `#!/usr/bin/env bash
# Oracle: quotecheck fetches every source and writes the answers.
# The answers file is written even when sources fail or the run is stopped.
# quotecheck is packed beside this script (${ORACLE_PACK}: its \`run\` alone, needing only Node.js), wherever the
# harness put it. It is unpacked into a temporary folder of its own (removed when this script ends) while Node.js
# starts ${ORACLE_LOADER}, which waits for it and runs it: the unpacking costs no start-up time.
set -euo pipefail
HERE="$(cd "$(dirname "\${BASH_SOURCE[0]}")" && pwd)"
APP="\${${p.app.env}:-${p.app.path}}"
LOGS="\${${p.agentLogs.env}:-${p.agentLogs.path}}"
QUOTECHECK="$(mktemp -d)"
trap 'rm -rf -- "$QUOTECHECK"' EXIT
{
  status=0
  tar -xzf "$HERE/${ORACLE_PACK}" -C "$QUOTECHECK" || status=$?
  echo "$status" > "$QUOTECHECK/.status" && mv -- "$QUOTECHECK/.status" "$QUOTECHECK/.unpacked"
} > /dev/null &
${replay}run() { QUOTECHECK_UNPACKED="$QUOTECHECK" node "$HERE/${ORACLE_LOADER}" run --claims "$APP/claims.json" --out "$APP/answers.json" "$@"${extra}; }
# The evidence report and the log go to the agent's log folder; when a harness made it unwritable for this user, the
# answers are written all the same: they are what counts.
if mkdir -p "$LOGS" 2>/dev/null && [ -w "$LOGS" ]; then
  run --report "$LOGS/report.jsonl" 2>&1 | tee -a "$LOGS/quotecheck.log"
else
  echo "solve.sh: $LOGS cannot be written: no evidence report" >&2
  run
fi
`;
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
 * The verifier. It grades /app/answers.json against the gold.json beside it, wherever the harness put its folder
 * (/tests for Harbor, in the agent's container or in the verifier's own image; /verifier for EvalScope and
 * AgentCompass), and trusts nothing the agent could have touched:
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
  return `#!/usr/bin/env bash
# Verifier: reward = correct answers / gold claims, written to /logs/verifier/reward.txt, and with how the answers
# failed to /logs/verifier/reward.json; the reason for a 0 is printed. The gold labels are in gold.json beside this
# script, wherever the harness put it (/tests, /verifier); the grader is grade.mjs beside it. Nothing from the agent's
# environment is used: see the second half.
if [ "\${1-}" != --clean ]; then
  # Run again with an empty environment (no PATH, BASH_ENV, NODE_OPTIONS, functions), the folders as arguments.
  /usr/bin/env -i /bin/bash --noprofile --norc -- "\${BASH_SOURCE[0]}" --clean "\${${p.app.env}:-${p.app.path}}" "\${${p.verifierLogs.env}:-${p.verifierLogs.path}}"
  exit 0
fi
PATH=/usr/sbin:/usr/bin:/sbin:/bin
APP="$2"
LOGS="$3"
HERE="$(cd -P -- "$(dirname -- "\${BASH_SOURCE[0]}")" && pwd -P)"

# Reward 0 in both files, each by temp file and rename: whatever is at reward.txt or reward.json (a stale 1, a link, a
# FIFO, a read-only file or folder) is removed or moved aside first, and nothing is written through a link.
reward_zero() {
  if [ -L "$LOGS" ] || { [ -e "$LOGS" ] && [ ! -d "$LOGS" ]; }; then rm -f -- "$LOGS"; fi
  mkdir -p -- "$LOGS" || return 1
  if [ -O "$LOGS" ]; then chmod u+rwx -- "$LOGS"; fi
  for name in reward.txt reward.json; do
    if [ -e "$LOGS/$name" ] || [ -L "$LOGS/$name" ]; then
      rm -rf -- "$LOGS/$name" 2>/dev/null || mv -f -T -- "$LOGS/$name" "$LOGS/.stale-$name-$$"
    fi
  done
  write_zero reward.txt 0 && write_zero reward.json ${shellQuote(ZERO_REWARD_JSON)}
}
write_zero() {
  local tmp
  tmp="$(mktemp -- "$LOGS/.reward.XXXXXX")" && printf '%s\\n' "$2" > "$tmp" && chmod 644 -- "$tmp" && mv -f -T -- "$tmp" "$LOGS/$1"
}
reward_zero

# Node.js by absolute path: the image's (node's official images keep it in /usr/local/bin) or the system's.
NODE=""
for candidate in /usr/local/bin/node /usr/bin/node; do
  if [ -x "$candidate" ]; then NODE="$candidate"; break; fi
done
if [ -z "$NODE" ]; then
  echo "reward 0: the verifier found no Node.js at /usr/local/bin/node or /usr/bin/node"
  exit 0
fi
# The grader writes both reward files itself (0 until it knows better); if it fails or runs out of time, 0 is written again.
/usr/bin/timeout -k 5 ${GRADER_TIMEOUT_SEC} "$NODE" -- "$HERE/${GRADER_FILE}" --answers "$APP/answers.json" --gold "$HERE/gold.json" --logs "$LOGS"
status=$?
if [ "$status" -ne 0 ]; then
  echo "reward 0: the grader failed (exit status $status)"
  reward_zero
fi
exit 0
`;
}

/*
 * Harbor's task configuration, as its TaskConfig model reads task.toml: src/harbor/models/task/config.py of Harbor,
 * followed as of the copy the project's search index holds in AlienKevin/sprint (commit
 * 49e3cd773739875a1ff87e4533d652d5659ffc14), with datacurve-ai/pier's src/pier/models/task/config.py (a mirror, which
 * keeps the same [task] rules). Top level: schema_version (str, default "1.4"; a legacy `version` is renamed to it),
 * task (PackageInfo: name "<org>/<name>" by the registry's ORG_NAME_PATTERN with no '..', version, description,
 * authors: a list of {name, email?}, keywords: list[str]), metadata (free), verifier, agent, environment, solution,
 * source, steps, artifacts (a list of paths in the agent's container: what a separate verifier gets of it).
 * [verifier] timeout_sec: float, user, environment_mode ("shared" | "separate"; separate when unset and
 * [verifier.environment] is given, else shared), environment (an [environment] table for the verifier's own image,
 * built from tests/Dockerfile). [agent] timeout_sec: float, user. [environment]
 * network_mode ("public" | "no-network" | "allowlist", default public; the legacy allow_internet is deprecated),
 * build_timeout_sec: float, cpus/memory_mb/storage_mb: int, skills_dir: str (a path in the environment whose contents
 * are copied to the agent's skills folder), mcp_servers: a list of {name, transport ("sse" | "streamable-http" |
 * "stdio"), url (for sse/http), command (required for stdio), args: list[str]}.
 */

/** A task's variant: what it gives the agent besides the instruction. A plain task gives nothing and never names
 *  quotecheck; the skill and the MCP server each put the shipped quotecheck in the agent's image on purpose, and the
 *  task's tags and instruction say so: such runs measure tool use, not fact-checking. */
export interface TaskVariant {
  /** Ship a skill folder in the environment and point Harbor's `[environment] skills_dir` at it. */
  skill?: boolean;
  /** Declare quotecheck's MCP server (`quotecheck mcp`, stdio) in `[[environment.mcp_servers]]`. */
  mcp?: boolean;
  /** Further `quotecheck mcp` arguments: the golden tasks' sources are on loopback, which the server refuses by
   *  default (`--allow-private`), and the drift task's archive is the Wayback stub (`--wayback-url`). */
  mcpArgs?: readonly string[];
}

/** One `[[environment.mcp_servers]]` entry of Harbor's task.toml (stdio transport: a command the agent starts). */
export interface McpServerEntry {
  name: string;
  transport: 'stdio';
  command: string;
  args: string[];
}

/**
 * quotecheck's MCP server, started by the agent's harness inside the container (`quotecheck` is on the image's PATH).
 * Its files are under /app whatever folder the harness starts it in: check_claims reads claims.json and writes
 * answers.json there (the server reads and writes only under its --root).
 */
const QUOTECHECK_MCP_SERVER: Readonly<McpServerEntry> = Object.freeze({
  name: 'quotecheck',
  transport: 'stdio',
  command: 'quotecheck',
  args: ['mcp', '--root', CONTAINER_PATHS.app.path],
});

class TemplateError extends UserError {
  override readonly name = 'TemplateError';
}

/**
 * The skill quotecheck ships (skills/quote-verification/ at the package root), found from this module's place in src/
 * or dist/src/.
 */
export function bundledSkillDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'skills', 'quote-verification');
    if (existsSync(join(candidate, 'SKILL.md'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir)
      throw new TemplateError(
        `quotecheck's skill (skills/quote-verification/SKILL.md) is not installed above ` +
          `${fileURLToPath(import.meta.url)}`,
      );
    dir = parent;
  }
}

/** Checks a skill folder (a folder holding SKILL.md) and returns its absolute path; a clear error otherwise. */
export function checkSkillDir(skillDir: string): string {
  const abs = resolve(skillDir);
  let isDir = false;
  try {
    isDir = statSync(abs).isDirectory();
  } catch {
    throw new TemplateError(`skill folder ${skillDir}: no such folder`);
  }
  if (!isDir) throw new TemplateError(`skill folder ${skillDir}: not a folder (give the folder that holds SKILL.md)`);
  if (!existsSync(join(abs, 'SKILL.md'))) throw new TemplateError(`skill folder ${skillDir}: has no SKILL.md`);
  return abs;
}

/**
 * Copies a skill folder (all of it: SKILL.md and whatever it refers to) into a task's environment/skills/<name>/,
 * the build context the Dockerfile copies to TASK_SKILLS_DIR, with the shipped quotecheck inside it as
 * `<name>/quotecheck/`: the tool travels with the skill, so a harness that strips the skills for a run without them
 * strips the tool too. Returns the skill's name (its folder's name).
 */
export function installSkill(environmentDir: string, skillDir: string): string {
  const src = checkSkillDir(skillDir);
  const name = basename(src);
  if (existsSync(join(src, SHIPPED_FOLDER)))
    throw new TemplateError(
      `skill folder ${skillDir}: already has a ${SHIPPED_FOLDER} entry, where the task puts the shipped ` +
        `quotecheck; rename it`,
    );
  const to = join(environmentDir, ENV_SKILLS_FOLDER, name);
  cpSync(src, to, { recursive: true });
  installTool(to);
  return name;
}

export interface TaskTomlOptions {
  /** Harbor's [task] table: the `<org>/<task>` name its registry publishes under (export --org), and the rest. */
  package?: TaskPackage;
  /** [metadata] difficulty; none written when not given. */
  difficulty?: string;
  tags?: string[];
  agentTimeoutSec?: number;
  verifierTimeoutSec?: number;
  /** Harbor's `[environment] skills_dir`: the container folder whose skills the agent gets. */
  skillsDir?: string;
  /** Harbor's `[[environment.mcp_servers]]`: servers the agent's harness connects to. */
  mcpServers?: readonly McpServerEntry[];
  /** Where the verifier runs (default `separate`: its own image, built from tests/; VERIFIER_MODES). */
  verifierMode?: VerifierMode;
  /** The networks the task asks for (default: TASK_NETWORKS). */
  networks?: Partial<TaskNetworks>;
}

/** Which network a phase asks for: Harbor's `public` or `no-network`. */
export type Network = 'public' | 'no-network';

/**
 * The networks a task asks for. The agent's container starts with the public network ([environment] network_mode):
 * a harness installs an agent (Claude Code, Codex, ...) into it at setup, from the internet. `agent` is the agent's
 * run alone ([agent] network_mode, a phase policy Harbor applies around agent.run() only, on providers that switch
 * networks at run time): `no-network` keeps a frozen edition's agent off the live web it must not read. `verifier` is
 * a separate verifier's container ([verifier.environment] network_mode).
 */
export interface TaskNetworks {
  agent: Network;
  verifier: Network;
}

/**
 * The default networks: public for the agent's run (a live edition's agent must fetch its sources; a frozen edition
 * asks for no-network, export --agent-network), and public for a separate verifier. The verifier reads two local files
 * and opens no connection, in a container only the answers reach, after the agent's container has stopped: no-network
 * would gain it nothing, and would cost every provider without one (gke, apple_container, singularity, ...), whose
 * refusal comes only when the verifier's sandbox is made, after the agent has run
 * (docs/datasets.md#where-a-dataset-runs-harbors-providers).
 */
const TASK_NETWORKS: Readonly<TaskNetworks> = Object.freeze({ agent: 'public', verifier: 'public' });

/** The one file a separate verifier gets from the agent's container: the answers, put back at this same path. */
const ANSWERS_ARTIFACT = `${CONTAINER_PATHS.app.path}/answers.json`;

/** The schema version of Harbor's TaskConfig this task.toml follows (its model's default; see the comment above it). */
const TASK_SCHEMA_VERSION = '1.4';

/**
 * The agent's container's baseline network, in plain and frozen editions alike: `public` (TaskNetworks: a harness
 * installs the agent from the internet, and an installed agent calls its model from inside; a frozen edition turns
 * the network off for the agent's run alone).
 */
const TASK_NETWORK_MODE = 'public';

/** One MiB count of whole gibibytes: every provider that sizes in GB (Daytona, Runloop, islo) gets what is asked. */
const gb = (n: number): bigint => BigInt(n * 1024);

/** The agent's container: one CPU, 2 GB of memory, 4 GB of disk. */
const AGENT_RESOURCES = { cpus: 1n, memory_mb: gb(2), storage_mb: gb(4) } as const;

/** A separate verifier's container: it runs one Node.js process for a second. */
const VERIFIER_RESOURCES = { cpus: 1n, memory_mb: gb(1), storage_mb: gb(2) } as const;

/** Harbor's [task] table: the package's fields, empty lists and an absent email left out. */
function taskTable(pkg: TaskPackage): Record<string, unknown> {
  return {
    name: pkg.name,
    description: pkg.description,
    ...(pkg.authors.length ? { authors: pkg.authors.map(authorEntry) } : {}),
    ...(pkg.keywords.length ? { keywords: [...pkg.keywords] } : {}),
  };
}

/**
 * Harbor's task.toml (TaskConfig schema 1.4): with a separate verifier (the default) the top-level `artifacts` and
 * [verifier] environment_mode and [verifier.environment]; [task] when the dataset has an org, metadata, timeouts for
 * agent and verifier (and the agent's network when it is not the environment's), the network mode and resources
 * (and skills, MCP servers) for the environment. Written by smol-toml's own stringify: a JavaScript number is a TOML
 * float (Harbor's timeouts are floats), a bigint a TOML integer (its resources are integers). TOML keeps no comments a
 * writer could place beside a key, so the reasons for the two users are the file's opening comment.
 */
export function taskToml(opts: TaskTomlOptions = {}): string {
  const separate = (opts.verifierMode ?? 'separate') === 'separate';
  const networks = { ...TASK_NETWORKS, ...opts.networks };
  const config = {
    schema_version: TASK_SCHEMA_VERSION,
    // A top-level key: written before the first table, or TOML would read it as a key of that table.
    ...(separate ? { artifacts: [ANSWERS_ARTIFACT] } : {}),
    ...(opts.package ? { task: taskTable(opts.package) } : {}),
    metadata: {
      ...(opts.difficulty !== undefined ? { difficulty: opts.difficulty } : {}),
      category: 'quote-verification',
      tags: opts.tags ?? ['quote-verification'],
    },
    verifier: {
      timeout_sec: opts.verifierTimeoutSec ?? 120,
      user: 'root',
      ...(separate ? { environment_mode: 'separate', environment: verifierEnvironment(networks.verifier) } : {}),
    },
    agent: {
      timeout_sec: opts.agentTimeoutSec ?? 600,
      user: AGENT_USER,
      ...(networks.agent !== TASK_NETWORK_MODE ? { network_mode: networks.agent } : {}),
    },
    environment: {
      network_mode: TASK_NETWORK_MODE,
      build_timeout_sec: 600,
      ...AGENT_RESOURCES,
      ...(opts.skillsDir !== undefined ? { skills_dir: opts.skillsDir } : {}),
      ...(opts.mcpServers?.length ? { mcp_servers: opts.mcpServers.map((m) => ({ ...m, args: [...m.args] })) } : {}),
    },
  };
  const toml = stringifyToml(config, { numbersAsFloat: true });
  // smol-toml writes a table's plain keys before its tables, so artifacts comes before [task]; checked all the same.
  if (separate && toml.indexOf('artifacts =') > toml.indexOf('\n['))
    throw new Error('task.toml: artifacts must come before the first table');
  return `${separate ? taskTomlHeaderSeparate(networks.verifier) : ''}${TASK_TOML_HEADER}${toml}`;
}

/** A separate verifier's environment ([verifier.environment], [environment]'s fields): its network, a small machine. */
const verifierEnvironment = (network: Network): Record<string, unknown> => ({
  network_mode: network,
  build_timeout_sec: 600,
  ...VERIFIER_RESOURCES,
});

/**
 * task.toml with prebuilt images: `docker_image` added to [environment] (the agent's image) and to
 * [verifier.environment] (the verifier's), each given. Harbor's providers then pull the image rather than build the
 * Dockerfile beside it (unless told to build: `harbor run --force-build`); the providers that build nothing need them
 * (docs/datasets.md#prebuilt-images). A table the file lacks is an error: the verifier image of a shared verifier.
 */
export function withDockerImages(toml: string, images: { agent?: string; verifier?: string }): string {
  let text = toml;
  for (const [table, image] of [
    ['environment', images.agent],
    ['verifier.environment', images.verifier],
  ] as const) {
    if (image === undefined) continue;
    const header = `\n[${table}]\n`;
    const at = text.indexOf(header);
    if (at < 0) throw new TemplateError(`task.toml has no [${table}] table for its docker_image`);
    const line = stringifyToml({ docker_image: image });
    text = `${text.slice(0, at + header.length)}${line}${text.slice(at + header.length)}`;
  }
  return text;
}

/** task.toml's opening comment, with a separate verifier: where it runs, what reaches it, and its network. */
const taskTomlHeaderSeparate = (network: Network): string =>
  `# The verifier runs in an image of its own ([verifier] environment_mode = "separate"), built from tests/ (tests/Dockerfile
# holds test.sh, the grader and the gold), once the agent's container has stopped. The only file it gets from that
# container is /app/answers.json (artifacts), put back at the same path; nothing the agent left running or planted
# elsewhere reaches it. ${
    network === 'public'
      ? `Its network is public: its grader reads two local files and opens no connection, so no-network
# would gain it nothing, and a provider without one (gke, apple_container, singularity) would refuse the verifier only
# after the agent had run.`
      : `It has no network (export --verifier-network no-network): a provider without one (gke,
# apple_container, singularity) refuses the verifier only after the agent has run.`
  }
`;

/** task.toml's opening comment: why each phase runs as whom. */
const TASK_TOML_HEADER = `# The verifier runs as root: it removes whatever the agent left in its way, and reads nothing the agent's user could
# have written for it. The agent does not: it cannot replace the programs the verifier runs (the image makes this
# user; its default is root).

`;

/**
 * A separate verifier's image: tests/Dockerfile, whose build context is the tests/ folder (Harbor builds it so, and
 * uploads nothing into it: test.sh must already be in the image). The public base image the agent's has, for Node.js;
 * the verifier's files root's alone, as root runs them. Every line says why.
 */
export function verifierDockerfile(opts: ImageOptions = {}): string {
  return `# The verifier's own image (task.toml: [verifier] environment_mode = "separate"). Harbor builds it from this folder
# (tests/) and, once the agent's container has stopped, runs /tests/test.sh in it as root; the only file of the agent's
# container it gets is /app/answers.json (task.toml's artifacts), put back at that same path.
# The agent's public base image (Node.js 20 on Debian 12): the grader needs Node.js and nothing else, and the layers are shared.
FROM ${baseImageOf(opts)}
# The verifier: test.sh, its grader (Node's own modules only) and the gold labels, at /tests where Harbor runs test.sh.
COPY test.sh ${GRADER_FILE} gold.json ${CONTAINER_PATHS.tests.path}/
# Root's alone, as root runs them: the folder and test.sh 0700 (test.sh run by its path), the grader and the gold 0600.
RUN chown -R root:root ${CONTAINER_PATHS.tests.path} \\
 && chmod 0700 ${CONTAINER_PATHS.tests.path} ${CONTAINER_PATHS.tests.path}/test.sh \\
 && chmod 0600 ${CONTAINER_PATHS.tests.path}/${GRADER_FILE} ${CONTAINER_PATHS.tests.path}/gold.json
# Where the answers are put back and where test.sh looks for them (/app/answers.json), as in the agent's container.
WORKDIR ${CONTAINER_PATHS.app.path}
`;
}

/** task.toml options for a variant: the skills folder and the MCP server it declares. */
export function variantTomlOptions(variant: TaskVariant): Pick<TaskTomlOptions, 'skillsDir' | 'mcpServers'> {
  return {
    ...(variant.skill ? { skillsDir: TASK_SKILLS_DIR } : {}),
    ...(variant.mcp
      ? {
          mcpServers: [{ ...QUOTECHECK_MCP_SERVER, args: [...QUOTECHECK_MCP_SERVER.args, ...(variant.mcpArgs ?? [])] }],
        }
      : {}),
  };
}

/**
 * The tag every variant that gives the agent quotecheck carries, so results of tool-use runs are never mistaken for
 * fact-checking.
 */
const TOOL_PROVIDED_TAG = 'quotecheck-provided';

/** Whether a variant puts quotecheck in the agent's image (the skill carries it; the MCP server runs it). */
const givesTool = (variant: TaskVariant): boolean => variant.skill === true || variant.mcp === true;

/** The tags a variant adds to task.toml's metadata, so a dataset's variants can be told apart in Harbor's results. */
export function variantTags(variant: TaskVariant): string[] {
  return [
    ...(variant.skill ? ['with-skill'] : []),
    ...(variant.mcp ? ['with-mcp'] : []),
    ...(givesTool(variant) ? [TOOL_PROVIDED_TAG] : []),
  ];
}

export interface DockerfileOptions extends TaskVariant, ImageOptions {
  /** The task ships its sources as /app/sources.warc.gz (and the WARC reader to read them). */
  archive?: boolean;
  /** Whose layout the task is in (default `harbor`): it decides how the skills are copied in. */
  layout?: Layout;
}

/**
 * The agent's base image: Node.js 20 on Debian 12, from Docker's official images (public: every harness builds from it,
 * and it is cached after the first task), by tag unless export --base-image pins it by digest. Node.js is there for
 * what a harness brings at its time (the oracle's quotecheck, the verifier's grader), and agents written for Node
 * (Claude Code, Codex) install on it as they are.
 */
const baseImageOf = (opts: ImageOptions): string => opts.baseImage ?? DEFAULT_BASE_IMAGE;

/**
 * The agent's user: it owns /app and /logs/agent. A uid of its own, not the base image's `node` (1000). The image's
 * default user stays root, as harnesses expect (they install an agent's own tools and set up the log folders as
 * root before the agent runs); task.toml's `[agent] user` is what runs the agent as this user.
 */
const AGENT_USER = 'agent';
const AGENT_UID = 1001;

/** The Dockerfile lines that put the skill folder in the image, for each layout. */
function skillLines(layout: Layout): string {
  // SkillsBench 1.1 harnesses strip the one-line `COPY skills /skills` for runs without skills: no other line may
  // name a skills path, or a no-skill build would keep a trace of them (and the tool, which travels inside the skill).
  if (layout === 'skillsbench') return `${COPY_SKILLS_LINE}\n`;
  return `# The skill folder Harbor's [environment] skills_dir names (quotecheck inside it); the harness copies it to the agent's skills.
${COPY_SKILLS_LINE}
`;
}

/** Where the MCP variant installs the shipped quotecheck in the image, and the command on PATH that runs it. */
export const TOOL_DIR = '/opt/quotecheck';

/**
 * A task's environment (docs/security.md#what-each-side-gets): public base images only, so any harness builds it; a
 * fact-checker's tools (poppler's pdftotext, the way the labels were made; curl and CA certificates; Node.js) and
 * nothing of quotecheck, unless the variant gives it on purpose. The same file for every task of a dataset: only the
 * claims (and a frozen task's archive) differ, copied last, so the image is built once and every task reuses its
 * layers.
 */
export function environmentDockerfile(opts: DockerfileOptions = {}): string {
  const lines = [
    "# The agent's image: public base images and Debian packages only, so any harness builds it.",
    `FROM ${baseImageOf(opts)}`,
    "# A fact-checker's tools: pdftotext (poppler, with poppler-data for CJK fonts, as the labels were made), curl",
    '# and CA certificates; Node.js comes with the base image.',
    ...(opts.aptVersions && Object.keys(opts.aptVersions).length
      ? ['# The versions export --apt-version pinned: the same pdftotext as the labels, or the build fails.']
      : []),
    'RUN apt-get update \\',
    ` && apt-get install -y --no-install-recommends ${aptPackageArgs(opts.aptVersions)} \\`,
    ' && rm -rf /var/lib/apt/lists/*',
    "# The agent's user (task.toml's [agent] user) owns /app and /logs/agent. /app is open to any user but sticky,",
    "# so that a harness that runs the agent as a user of its own (Novita's `user`) can still write the answers there.",
    "# /logs/verifier is root's, writable by anyone but sticky (as /tmp is), so the agent can neither make it",
    '# read-only nor remove what the verifier writes there.',
    `RUN useradd --create-home --uid ${AGENT_UID} ${AGENT_USER} \\`,
    ' && mkdir -p /app /logs/agent /logs/verifier \\',
    ` && chown ${AGENT_USER}:${AGENT_USER} /app /logs/agent \\`,
    ' && chmod 1777 /app /logs/verifier',
  ];
  if (opts.mcp) {
    lines.push(
      `# quotecheck, given on purpose (this variant measures tool use): the self-contained build, and its MCP ` +
        `server on PATH.`,
      `COPY ${SHIPPED_FOLDER} ${TOOL_DIR}`,
      `RUN ln -s ${TOOL_DIR}/${basename(BUNDLE_FILES.quotecheck)} /usr/local/bin/${QUOTECHECK_MCP_SERVER.command} \\`,
      ` && ${QUOTECHECK_MCP_SERVER.command} ${QUOTECHECK_MCP_SERVER.args[0]} --help > /dev/null`,
    );
  }
  if (opts.archive) {
    lines.push(
      `# A plain WARC reader for the recorded sources (every response body as a file); it labels nothing.`,
      `COPY ${WARC_READER_FILE} /usr/local/lib/${WARC_READER_FILE}`,
      `RUN ln -s /usr/local/lib/${WARC_READER_FILE} /usr/local/bin/${WARC_READER_COMMAND}`,
    );
  }
  if (opts.archive && givesTool(opts)) {
    lines.push(
      `# A frozen edition: the quotecheck given reads the task's archive (its MCP server is also told so by ` +
        `--replay), not the live web.`,
      `ENV ${REPLAY_ENV}=/app/${TASK_ARCHIVE}`,
    );
  }
  if (opts.skill) lines.push(skillLines(opts.layout ?? 'harbor').trimEnd());
  lines.push('WORKDIR /app', 'COPY claims.json /app/claims.json');
  if (opts.archive) lines.push(`COPY ${TASK_ARCHIVE} /app/${TASK_ARCHIVE}`);
  return `${lines.join('\n')}\n`;
}

export interface InstructionOptions {
  /** The claims carry verify dates (and evidence hashes): tell the agent to judge as of them. */
  asOf?: boolean;
  /** Where the Wayback Machine is, when it is not https://web.archive.org (a local one, such as the Wayback stub). */
  waybackUrl?: string;
  /** The task ships its sources as /app/sources.warc.gz. */
  archive?: boolean;
  /** What the task gives the agent: the instruction says so when it is quotecheck. */
  variant?: TaskVariant;
  /** With `variant.skill`: the skill's name, its folder's (default quote-verification, quotecheck's own). */
  skillName?: string;
}

/**
 * The answers example's ids: made up (`claim-id-1`, `claim-id-2`), never one of the task's own `claimIds`, so the
 * example pairs no claim of the task with a label (issue 25: a real id labelled `verbatim` in the example was often its
 * gold).
 */
function exampleIds(claimIds: readonly string[]): [string, string] {
  const taken = new Set(claimIds);
  const ids: string[] = [];
  for (let n = 1; ids.length < 2; n++) if (!taken.has(`claim-id-${n}`)) ids.push(`claim-id-${n}`);
  return [ids[0]!, ids[1]!];
}

/**
 * What the agent is told: the task, the exact label rule, the answer format. A plain task never names quotecheck.
 * `claimIds` are the task's ids: the answers example's placeholder ids are chosen to be none of them.
 */
export function instruction(
  claimCount: number,
  claimIds: readonly string[],
  about?: string,
  opts: InstructionOptions = {},
): string {
  const [first, second] = exampleIds(claimIds);
  const example = `${JSON.stringify(first)}: "verbatim", ${JSON.stringify(second)}: "no_match"`;
  return `# Check quotes against their sources

\`/app/claims.json\` holds ${claimCount} claims. Each one has an \`id\`, a \`quote\`, the \`url\` of the source
the quote is attributed to, and usually a \`claim\` sentence.

Fetch every source URL (each URL once is enough) and decide for every claim whether its quote occurs
**verbatim** in the source's text:

- the text of a PDF is what \`pdftotext -enc UTF-8 FILE -\` (poppler, default mode) outputs;
- the text of an HTML page is its visible text (body text without script, style, noscript and template;
  block elements and \`<br>\` separated by whitespace, inline elements not), or the article view that
  Mozilla Readability extracts from it;
- decode HTML as a browser does (HTML standard §13.2.3): the BOM, then the charset of the Content-Type
  header, then a \`<meta charset>\` or \`http-equiv\` Content-Type declaration in the head before any body
  content, wherever it sits in the bytes (not inside a comment or a script; a UTF-16 label means UTF-8,
  \`x-user-defined\` means windows-1252), then UTF-8 when the bytes are valid UTF-8, then the legacy encoding
  the bytes look like (as browsers guess), windows-1252 when nothing fits.

Before comparing, normalize both the quote and the source text, in this order:

1. Unicode NFKC;
2. curly quotes to straight: U+2018 U+2019 U+201A U+201B U+2032 U+2035 to \`'\`, U+201C U+201D U+201E
   U+201F U+2033 U+2036 to \`"\`;
3. dashes U+2010 to U+2015, U+2212, U+FE58, U+FE63, U+FF0D to \`-\`;
4. every run of whitespace (JavaScript \`\\s\` plus U+001C to U+001F and U+0085) to one space, trimmed;
5. lower case.

Nothing else: soft hyphens, zero-width characters and ellipses stay as NFKC leaves them.
A claim is \`verbatim\` if and only if the normalized quote is a substring of the normalized source text;
otherwise, and whenever the source cannot be fetched or yields no text, it is \`no_match\`.

Write \`/app/answers.json\`: one JSON object mapping every claim id of \`/app/claims.json\` to \`"verbatim"\` or
\`"no_match"\`. Its shape, with made-up ids:

\`\`\`json
{ ${example} }
\`\`\`
${opts.asOf ? asOfSection(opts.waybackUrl, opts.archive === true) : ''}${opts.archive ? archiveSection() : ''}${toolSection(opts.variant ?? {}, opts.skillName, opts.archive === true)}${about ? `\nAbout these sources: ${about}\n` : ''}`;
}

function asOfSection(waybackUrl = 'https://web.archive.org', frozen = false): string {
  const where = frozen
    ? `use the
Wayback Machine's answers recorded in the archive (below): its lookups (\`/cdx/search/cdx?url=URL&...\`) and the
captures the labels were judged on (\`/web/TIMESTAMPid_/URL\`: a capture's original bytes, filed under URL at its date).`
    : `use the
Wayback Machine at \`${waybackUrl}\`: \`/cdx/search/cdx?url=URL&to=YYYYMMDDhhmmss&filter=statuscode:200&output=json&limit=-5\`
lists the captures up to a date, and \`/web/TIMESTAMPid_/URL\` serves a capture's original bytes.`;
  return `
## As of the verify date

Each claim was labelled on its \`verify_date\`. Judge it as of that date: sources change and disappear.
When a claim has \`evidence.sha256\`, that is the sha256 of the source's bytes (after Content-Encoding is
removed) when it was labelled. If today's source no longer hashes to it, or cannot be fetched, ${where} A capture whose
sha256 equals the evidence is the text that was labelled; otherwise take the latest capture at or before the date.
${frozen ? '' : "Keep to about 15 requests a minute to the archive, and wait as long as a 429's Retry-After asks.\n"}`;
}

function archiveSection(): string {
  return `
## The sources are in /app/${TASK_ARCHIVE}

This is a frozen edition: every source as it was recorded, in a WARC 1.1 file (ISO 28500, the format of the Internet
Archive): one record per HTTP request and response, every redirect hop and retry included, each record its own gzip
member, each response's body as it came over the wire (still content-encoded). Read the sources from it, not from the
live web, so that the answers do not depend on when the task is run:

- \`${WARC_READER_COMMAND} /app/${TASK_ARCHIVE} DIR\` writes every recorded response body, de-chunked and
  content-decoded, to \`DIR/bodies/\`, and an index of them to \`DIR/index.json\` (url, status, content type, file);
- any WARC reader opens it too (Python's \`warcio\`: \`warcio index\` lists the records), and \`zcat\` shows its
  headers as text.
`;
}

/**
 * What a variant that gives quotecheck tells the agent; nothing for a plain task. In a frozen edition the tool reads
 * the task's archive (the MCP server's --replay, the image's QUOTECHECK_REPLAY), as the instruction says the sources
 * are.
 */
function toolSection(variant: TaskVariant, skillName = 'quote-verification', archive = false): string {
  if (!givesTool(variant)) return '';
  const ways = [
    ...(variant.mcp
      ? [
          `its MCP server \`${QUOTECHECK_MCP_SERVER.name}\` (tools \`verify_quote\`, \`read_source\`, ` +
            `\`search_source\`, \`check_claims\`) and the \`${QUOTECHECK_MCP_SERVER.command}\` command`,
        ]
      : []),
    ...(variant.skill
      ? [
          `the skill \`${skillName}\` among your skills (in \`${TASK_SKILLS_DIR}\`), which carries the tool in its ` +
            `own folder and says how to use it`,
        ]
      : []),
  ];
  const replays = archive ? ` Here it reads every source from \`/app/${TASK_ARCHIVE}\`, never the live web.` : '';
  return `
## A tool is provided

This task gives you quotecheck, a tool that does this checking: ${ways.join('; and ')}. You may use it.${replays}
`;
}
