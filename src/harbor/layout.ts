// The two task layouts harnesses read: Harbor's (SkillsBench 1.0) and SkillsBench 1.1's task.md, with the folders and container paths of each.

/**
 * `harbor`: instruction.md + task.toml, solution/solve.sh, tests/test.sh (Harbor, SkillsBench 1.0).
 * `skillsbench`: task.md (YAML front matter + instruction), oracle/solve.sh, verifier/test.sh (SkillsBench 1.1, as
 * EvalScope's SkillsBench adapter and AgentCompass read it).
 */
export type Layout = 'harbor' | 'skillsbench';

export const LAYOUT_NAMES: readonly Layout[] = ['harbor', 'skillsbench'];

export interface LayoutSpec {
  /** The task's folder holding solve.sh, and where a harness puts it in the container. */
  oracle: { folder: string; path: string };
  /** The task's folder holding test.sh and the gold labels, and where a harness puts it in the container. */
  verifier: { folder: string; path: string };
  /** The file that says what the task is. */
  definition: 'task.toml' | 'task.md';
}

export const LAYOUTS: Readonly<Record<Layout, LayoutSpec>> = {
  harbor: { oracle: { folder: 'solution', path: '/solution' }, verifier: { folder: 'tests', path: '/tests' }, definition: 'task.toml' },
  skillsbench: { oracle: { folder: 'oracle', path: '/oracle' }, verifier: { folder: 'verifier', path: '/verifier' }, definition: 'task.md' },
};

/** Where a task's skills live in the container (Harbor's skills_dir); each skill is a folder with a SKILL.md in it. */
export const TASK_SKILLS_DIR = '/skills';
/** The same folder in the task's environment/ (the Docker build context), which the Dockerfile copies. */
export const ENV_SKILLS_FOLDER = 'skills';

/** The Dockerfile line that copies the skills in: the one-line form SkillsBench 1.1 harnesses recognise and strip for runs without skills. */
export const COPY_SKILLS_LINE = `COPY ${ENV_SKILLS_FOLDER} ${TASK_SKILLS_DIR}`;

export interface FrontMatter {
  /** `org/name`, as SkillsBench 1.1's `task.name` is written. */
  name: string;
  description: string;
  tags: readonly string[];
  agentTimeoutSec: number;
  verifierTimeoutSec: number;
  /** The container folder whose skills the agent gets (with the skill). */
  skillsDir?: string;
  /** MCP servers the agent's harness starts (with the tool): Harbor's `environment.mcp_servers`, which schema 1.3 keeps. */
  mcpServers?: readonly { name: string; transport: string; command: string; args: readonly string[] }[];
}

/** A YAML scalar that every reader takes as the same string: JSON's double-quoted form is valid YAML. */
const yamlString = (s: string): string => JSON.stringify(s);

/**
 * task.md's front matter (SkillsBench 1.1, schema 1.3): plain nested `key: value` lines, two spaces a level, so
 * that the simplest front-matter readers (split at the first `---` pair, nest by indentation) parse it as a YAML
 * parser does. The environment's network mode is `public` (Harbor's name for full access): the sources are on the web.
 */
export function frontMatter(fm: FrontMatter): string {
  return [
    '---',
    'schema_version: "1.3"',
    'task:',
    `  name: ${yamlString(fm.name)}`,
    `  description: ${yamlString(fm.description)}`,
    'metadata:',
    '  author_name: "quotecheck export"',
    '  difficulty: "medium"',
    '  category: "quote-verification"',
    `  tags: [${fm.tags.map(yamlString).join(', ')}]`,
    'agent:',
    `  timeout_sec: ${fm.agentTimeoutSec.toFixed(1)}`,
    // Not root: the agent cannot replace the programs the verifier runs (templates.ts AGENT_USER, made by the image).
    '  user: "agent"',
    'verifier:',
    `  timeout_sec: ${fm.verifierTimeoutSec.toFixed(1)}`,
    // As root: it removes whatever the agent left in its way.
    '  user: "root"',
    'environment:',
    '  network_mode: "public"',
    '  workdir: "/app"',
    '  cpus: 1',
    '  memory_mb: 2048',
    '  storage_mb: 4096',
    ...(fm.skillsDir !== undefined ? [`  skills_dir: ${yamlString(fm.skillsDir)}`] : []),
    // A list of tables has no plain `key: value` form; it comes last, after every key a simple reader needs.
    ...(fm.mcpServers?.length ? ['  mcp_servers:', ...fm.mcpServers.flatMap((m) => [
      `    - name: ${yamlString(m.name)}`,
      `      transport: ${yamlString(m.transport)}`,
      `      command: ${yamlString(m.command)}`,
      `      args: [${m.args.map(yamlString).join(', ')}]`,
    ])] : []),
    '---',
    '',
  ].join('\n');
}
