// A task's task.toml, Harbor's TaskConfig (schema 1.4), written by smol-toml: its tables, the networks and resources
// each phase asks for, the opening comment saying why, and the prebuilt images a dataset may name.
import { stringify as stringifyToml } from 'smol-toml';
import { UserError } from '../errors.js';
import { authorEntry } from './layout.js';
import type { TaskPackage } from './package-info.js';
import { AGENT_USER, CONTAINER_PATHS } from './paths.js';
import type { VerifierMode } from './verifier-mode.js';

/** A task.toml that cannot take what is asked of it. */
class TaskTomlError extends UserError {
  override readonly name = 'TaskTomlError';
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

/** One `[[environment.mcp_servers]]` entry of Harbor's task.toml (stdio transport: a command the agent starts). */
export interface McpServerEntry {
  name: string;
  transport: 'stdio';
  command: string;
  args: string[];
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
    if (at < 0) throw new TaskTomlError(`task.toml has no [${table}] table for its docker_image`);
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
