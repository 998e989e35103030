// One task's folder on disk (docs/security.md#what-each-side-gets), in either layout: its definition, the agent's
// environment, the oracle with the quotecheck it ships, the verifier with its own grader and the gold (and, for a
// separate verifier, the Dockerfile of its image). `quotecheck export`, the golden builder and the tests all write
// tasks through it, so every task follows the same rules.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Label } from '../contract.js';
import { LAYOUTS, frontMatter, type Layout } from './layout.js';
import { UserError } from '../errors.js';
import { installGrader, installOracle, installTool, installWarcReader } from './ship.js';
import type { ImageOptions } from './task-image.js';
import type { VerifierMode } from './verifier-mode.js';
import { taskToml, type TaskNetworks, type TaskTomlOptions } from './task-toml.js';
import { installSkill, variantTags, variantTomlOptions, type TaskVariant } from './variant.js';
import {
  environmentDockerfile,
  solveScript,
  testScript,
  verifierDockerfile,
  type SolveOptions,
} from './task-scripts.js';

interface TaskFolderSpec {
  /** The task's name: its folder's (and, with `config.package`, the `<task>` of its `<org>/<task>`). */
  name: string;
  layout: Layout;
  /** The claims as the agent gets them in /app/claims.json: no labels. */
  claims: readonly Record<string, unknown>[];
  /** The gold label of every claim, for the verifier only. */
  gold: Readonly<Record<string, Label>>;
  /** instruction.md (Harbor), or task.md's body (SkillsBench 1.1). */
  instruction: string;
  /**
   * Package information (Harbor's [task] table; task.md's `task`), metadata and timeouts of task.toml or the front
   * matter; the variant's own settings and tags are added. Without a package neither file has a [task] table.
   */
  config: Pick<TaskTomlOptions, 'package' | 'difficulty' | 'tags'> & {
    agentTimeoutSec: number;
    verifierTimeoutSec: number;
  };
  /** What the task gives the agent besides the instruction. */
  variant: TaskVariant;
  /** With `variant.skill`: the skill folder to ship. */
  skillDir?: string;
  /** A frozen edition: the environment gets the WARC reader (the archive itself is written afterwards, per task). */
  frozen?: boolean;
  solve?: SolveOptions;
  /**
   * Where the verifier runs (templates.ts VerifierMode): by default `separate` in Harbor's layout (task.toml declares
   * it, and tests/Dockerfile builds its image) and `shared` in SkillsBench 1.1's, whose harnesses have only that.
   */
  verifierMode?: VerifierMode;
  /** What both images are built from beyond the task's files: a pinned base image, Debian package versions. */
  image?: ImageOptions;
  /** The networks task.toml asks for (templates.ts TASK_NETWORKS by default). */
  networks?: Partial<TaskNetworks>;
}

class TaskWriteError extends UserError {
  override readonly name = 'TaskWriteError';
}

/**
 * Why a layout cannot have a verifier mode, or undefined: SkillsBench 1.1's harnesses run the verifier in the agent's
 * container.
 */
export function verifierModeProblem(layout: Layout, mode: VerifierMode | undefined): string | undefined {
  if (layout !== 'skillsbench' || mode !== 'separate') return undefined;
  return (
    "--verifier separate: SkillsBench 1.1's layout (--layout skillsbench) has no separate verifier: its harnesses " +
    '(EvalScope, ' +
    "AgentCompass) run verifier/test.sh in the agent's container, and task.md has no setting for another; use " +
    '--verifier shared, ' +
    "or Harbor's layout (--layout harbor), whose task.toml can give the verifier an image of its own"
  );
}

/** The verifier mode a task of `layout` gets: the one asked for, or the layout's default. */
const verifierModeOf = (layout: Layout, mode?: VerifierMode): VerifierMode =>
  mode ?? (layout === 'harbor' ? 'separate' : 'shared');

/**
 * The gold's mode: its owner's alone. A harness that uploads the verifier folder keeping files' modes (Harbor's does,
 * as root) leaves the agent's user unable to read it, even when it uploads before the agent has ended.
 */
export const GOLD_MODE = 0o600;

function write(path: string, content: string, mode?: number): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  if (mode !== undefined) chmodSync(path, mode);
}

/**
 * The task's definition: task.toml and instruction.md (Harbor), or task.md, front matter then instruction (SkillsBench
 * 1.1).
 */
function writeDefinition(dir: string, spec: TaskFolderSpec): void {
  const tags = [...(spec.config.tags ?? []), ...variantTags(spec.variant)];
  const settings = {
    ...spec.config,
    tags,
    ...variantTomlOptions(spec.variant),
    verifierMode: verifierModeOf(spec.layout, spec.verifierMode),
    ...(spec.networks ? { networks: spec.networks } : {}),
  };
  if (spec.layout === 'harbor') {
    write(join(dir, 'instruction.md'), spec.instruction);
    write(join(dir, 'task.toml'), taskToml(settings));
    return;
  }
  write(join(dir, 'task.md'), `${frontMatter(settings)}\n${spec.instruction}`);
}

/**
 * Writes the task into `dir`: the definition; environment/ (the agent's Dockerfile and claims, and only what the
 * variant gives: the skill with quotecheck inside it, quotecheck for the MCP server, the WARC reader of a frozen
 * edition); the oracle folder (solve.sh and the packed quotecheck it runs); the verifier folder (test.sh, its grader,
 * gold.json readable by its owner only, and with a separate verifier the Dockerfile of its image). The shipped files
 * are byte-identical in every task.
 */
export function writeTaskFolder(dir: string, spec: TaskFolderSpec): void {
  const problem = verifierModeProblem(spec.layout, spec.verifierMode);
  if (problem) throw new TaskWriteError(problem);
  const { oracle, verifier } = LAYOUTS[spec.layout];
  const env = join(dir, 'environment');
  writeDefinition(dir, spec);
  write(
    join(env, 'Dockerfile'),
    environmentDockerfile({ archive: spec.frozen, layout: spec.layout, ...spec.variant, ...spec.image }),
  );
  write(join(env, 'claims.json'), `${JSON.stringify(spec.claims, null, 2)}\n`);
  if (spec.variant.skill) {
    if (!spec.skillDir) throw new Error(`task ${spec.name}: a skill variant needs a skill folder`);
    installSkill(env, spec.skillDir);
  }
  if (spec.variant.mcp) installTool(env);
  if (spec.frozen) installWarcReader(env);
  write(join(dir, oracle.folder, 'solve.sh'), solveScript(spec.solve), 0o755);
  installOracle(join(dir, oracle.folder));
  write(join(dir, verifier.folder, 'test.sh'), testScript(), 0o755);
  installGrader(join(dir, verifier.folder));
  write(join(dir, verifier.folder, 'gold.json'), `${JSON.stringify(spec.gold, null, 2)}\n`, GOLD_MODE);
  if (verifierModeOf(spec.layout, spec.verifierMode) === 'separate')
    write(join(dir, verifier.folder, 'Dockerfile'), verifierDockerfile(spec.image));
}
