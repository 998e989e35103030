// The two task layouts harnesses read: Harbor's (SkillsBench 1.0) and SkillsBench 1.1's task.md, with the folders and
// container paths of each.
import { Document, type Scalar, type YAMLSeq } from 'yaml';
import type { Author, TaskPackage } from './package-info.js';
import { AGENT_USER, CONTAINER_PATHS, TASK_SKILLS_DIR } from './paths.js';

/** An author as Harbor's Author model writes one: the name, and the email when there is one. */
export const authorEntry = (a: Author): Record<string, string> => ({
  name: a.name,
  ...(a.email !== undefined ? { email: a.email } : {}),
});

/**
 * `harbor`: instruction.md + task.toml, solution/solve.sh, tests/test.sh (Harbor, SkillsBench 1.0).
 * `skillsbench`: task.md (YAML front matter + instruction), oracle/solve.sh, verifier/test.sh (SkillsBench 1.1, as
 * EvalScope's SkillsBench adapter and AgentCompass read it).
 */
export type Layout = 'harbor' | 'skillsbench';

interface LayoutSpec {
  /** The task's folder holding solve.sh, and where a harness puts it in the container. */
  oracle: { folder: string; path: string };
  /** The task's folder holding test.sh and the gold labels, and where a harness puts it in the container. */
  verifier: { folder: string; path: string };
  /** The file that says what the task is. */
  definition: 'task.toml' | 'task.md';
}

export const LAYOUTS: Readonly<Record<Layout, LayoutSpec>> = {
  harbor: {
    oracle: { folder: 'solution', path: CONTAINER_PATHS.solution.path },
    verifier: { folder: 'tests', path: CONTAINER_PATHS.tests.path },
    definition: 'task.toml',
  },
  skillsbench: {
    oracle: { folder: 'oracle', path: '/oracle' },
    verifier: { folder: 'verifier', path: '/verifier' },
    definition: 'task.md',
  },
};

/** The same folder in the task's environment/ (the Docker build context), which the Dockerfile copies. */
export const ENV_SKILLS_FOLDER = 'skills';

/**
 * The Dockerfile line that copies the skills in: the one-line form SkillsBench 1.1 harnesses recognise and strip for
 * runs without skills.
 */
export const COPY_SKILLS_LINE = `COPY ${ENV_SKILLS_FOLDER} ${TASK_SKILLS_DIR}`;

interface FrontMatter {
  /**
   * The `task` mapping (name `<org>/<task>`, description, authors, keywords), as Harbor's [task] table; none without
   * it.
   */
  package?: TaskPackage;
  /** metadata.difficulty; none written when not given. */
  difficulty?: string;
  tags: readonly string[];
  agentTimeoutSec: number;
  verifierTimeoutSec: number;
  /** The container folder whose skills the agent gets (with the skill). */
  skillsDir?: string;
  /**
   * MCP servers the agent's harness starts (with the tool): Harbor's `environment.mcp_servers`, which schema 1.3 keeps.
   */
  mcpServers?: readonly { name: string; transport: string; command: string; args: readonly string[] }[];
}

/**
 * task.md's front matter (SkillsBench 1.1, schema 1.3), written by the yaml library: `task` (name, description,
 * authors, keywords: Harbor's [task] table) when the dataset has an org, then plain nested `key: value` lines, two
 * spaces a level, strings double-quoted, lists in flow style (`[a, b]`, the authors `[{name: "A", email: "a@x.org"}]`),
 * timeouts with a decimal point, and `mcp_servers` (a list of mappings, which has no one-line form) last, so that the
 * simplest front-matter readers (split at the first `---` pair, nest by indentation) parse it as a YAML parser does.
 * The environment's network mode is `public` (Harbor's name for full access): the sources are on the web. The agent
 * runs as `agent`, not root (it cannot replace the programs the verifier runs; templates.ts AGENT_USER, made by the
 * image); the verifier as root (it removes whatever the agent left in its way).
 */
export function frontMatter(fm: FrontMatter): string {
  const pkg = fm.package;
  const doc = new Document({
    schema_version: '1.3',
    ...(pkg
      ? {
          task: {
            name: pkg.name,
            description: pkg.description,
            ...(pkg.authors.length ? { authors: pkg.authors.map(authorEntry) } : {}),
            ...(pkg.keywords.length ? { keywords: [...pkg.keywords] } : {}),
          },
        }
      : {}),
    metadata: {
      ...(fm.difficulty !== undefined ? { difficulty: fm.difficulty } : {}),
      category: 'quote-verification',
      tags: fm.tags,
    },
    agent: { timeout_sec: fm.agentTimeoutSec, user: AGENT_USER },
    verifier: { timeout_sec: fm.verifierTimeoutSec, user: 'root' },
    environment: {
      network_mode: 'public',
      workdir: CONTAINER_PATHS.app.path,
      cpus: 1,
      memory_mb: 2048,
      storage_mb: 4096,
      ...(fm.skillsDir !== undefined ? { skills_dir: fm.skillsDir } : {}),
      ...(fm.mcpServers?.length
        ? {
            mcp_servers: fm.mcpServers.map((m) => ({
              name: m.name,
              transport: m.transport,
              command: m.command,
              args: [...m.args],
            })),
          }
        : {}),
    },
  });
  const flow = (path: readonly (string | number)[]): void => {
    (doc.getIn(path, true) as YAMLSeq).flow = true;
  };
  flow(['metadata', 'tags']);
  // One line each, as the tags: a reader that nests by indentation takes them as one value, never as stray keys.
  if (pkg?.authors.length) flow(['task', 'authors']);
  if (pkg?.keywords.length) flow(['task', 'keywords']);
  fm.mcpServers?.forEach((_, i) => {
    flow(['environment', 'mcp_servers', i, 'args']);
  });
  for (const phase of ['agent', 'verifier']) (doc.getIn([phase, 'timeout_sec'], true) as Scalar).minFractionDigits = 1;
  const yaml = doc.toString({
    defaultStringType: 'QUOTE_DOUBLE',
    defaultKeyType: 'PLAIN',
    flowCollectionPadding: false,
    lineWidth: 0,
  });
  return `---\n${yaml}---\n`;
}
