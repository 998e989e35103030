// Each isolation in words (docs/security.md#trial-isolation): what it is, for evaluate's last line and its HTML report,
// and what it leaves open, for report.json's isolation_limits.
import type { EngineName, Isolation } from './evaluation-report.js';

/** What the namespace emulation leaves: said in report.json and on stderr, so no reader takes it for a real engine. */
const NAMESPACE_LIMITS: readonly string[] = [
  'emulated, not a certificate: no image was built (environment/Dockerfile and tests/Dockerfile are read, not run), ' +
    "so the agent's system folders are this machine's (copy-on-write), not the task image's",
  'the agent phase shares the host network (sources served on loopback must stay reachable)',
];

/** What a real engine's run leaves, when some of its trials shared this machine's network. */
const hostNetworkLimit = (tasks: number): string =>
  `${tasks} ${tasks === 1 ? "task's agent container" : "tasks' agent containers"} shared this machine's network ` +
  '(their sources are on its loopback: --agent-network host); a root agent there can reach what listens on it';

/** What `--isolation paths` cannot give: said once on stderr by the CLI and in report.json. */
const PATHS_LIMITS: readonly string[] = [
  "the agent phase can read and write the dataset (tests/, gold.json, solution/) and evaluate's --out folder",
  'processes the agent leaves running are not stopped before the verifier',
  "the agent phase runs as evaluate's own user, with its privileges, its PATH, and sees the whole file system",
  "run evaluate as root for containers (namespaces, a root of the image's parts, the task's agent user, the " +
    'verifier in its own container)',
];

/** Whether an isolation is a real engine's. */
export const isEngine = (isolation: Isolation | 'auto'): isolation is EngineName =>
  isolation === 'docker' || isolation === 'podman';

/** What an isolation mode is, in a few words, for evaluate's last line and its HTML report. */
export function isolationSummary(isolation: Isolation): string {
  if (isEngine(isolation))
    return (
      `each trial on ${isolation === 'docker' ? 'Docker' : 'Podman'}: the task's images built from its Dockerfiles, ` +
      "the agent's container as its [agent] user with its network and limits, the verifier in the task's mode"
    );
  return isolation === 'namespace'
    ? "each trial in namespace containers evaluate makes (an emulation: no image built, the host's system folders), " +
        "the task's agent user, the verifier in the task's mode"
    : 'container paths given by QUOTECHECK_*_DIR variables';
}

/** What an isolation mode does not stop, one clause each (report.json's isolation_limits). */
export function isolationLimits(isolation: Isolation, hostNetworkTasks = 0): string[] {
  if (isEngine(isolation)) return hostNetworkTasks > 0 ? [hostNetworkLimit(hostNetworkTasks)] : [];
  return [...(isolation === 'namespace' ? NAMESPACE_LIMITS : PATHS_LIMITS)];
}
