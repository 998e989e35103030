// Where things are in a task's containers, defined once: the container paths (and the variables that move them for a
// run without root), the files a task puts there, and the agent's user who owns them.
import { basename } from 'node:path';
import { BUNDLE_FILES } from './ship.js';

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

/** The WARC file a frozen (offline) task ships in /app: its own sources, recorded. */
export const TASK_ARCHIVE = 'sources.warc.gz';

/** The frozen edition's WARC reader, in the environment folder, and where the image puts it on PATH. */
export const WARC_READER_FILE = basename(BUNDLE_FILES.warcExtract);
export const WARC_READER_COMMAND = 'warc-extract';

/**
 * The agent's user: it owns /app and /logs/agent. A uid of its own, not the base image's `node` (1000). The image's
 * default user stays root, as harnesses expect (they install an agent's own tools and set up the log folders as
 * root before the agent runs); task.toml's `[agent] user` is what runs the agent as this user.
 */
export const AGENT_USER = 'agent';
export const AGENT_UID = 1001;

/** Where the MCP variant installs the shipped quotecheck in the image, and the command on PATH that runs it. */
export const TOOL_DIR = '/opt/quotecheck';

/** Where a task's skills live in the container (Harbor's skills_dir); each skill is a folder with a SKILL.md in it. */
export const TASK_SKILLS_DIR = '/skills';
