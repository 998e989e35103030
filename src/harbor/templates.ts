// The files of a Harbor task (design.md §6): instruction, task.toml, Dockerfile, oracle solve.sh and verifier test.sh,
// and the variants that ship quotecheck's skill (a skills folder) and its MCP server (a task.toml entry) to the agent.
import { cpSync, existsSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shellQuote } from '../shell-quote.js';
import { COPY_SKILLS_LINE, ENV_SKILLS_FOLDER, TASK_SKILLS_DIR, type Layout } from './layout.js';

/**
 * Container paths. Each script honours an environment variable for its folders, so a
 * runner without root (no private mount namespace) can point them elsewhere; in the
 * container they are unset and the paths are the standard ones.
 */
export const CONTAINER_PATHS = {
  app: { path: '/app', env: 'QUOTECHECK_APP_DIR' },
  solution: { path: '/solution', env: 'QUOTECHECK_SOLUTION_DIR' },
  tests: { path: '/tests', env: 'QUOTECHECK_TESTS_DIR' },
  verifierLogs: { path: '/logs/verifier', env: 'QUOTECHECK_VERIFIER_LOGS' },
  agentLogs: { path: '/logs/agent', env: 'QUOTECHECK_AGENT_LOGS' },
} as const;

const p = CONTAINER_PATHS;

/** The WARC file a frozen (offline) task ships in /app: its own sources, recorded. */
export const TASK_ARCHIVE = 'sources.warc.gz';

export interface SolveOptions {
  /** Extra `quotecheck run` arguments, e.g. a Wayback Machine stand-in for a local dataset. */
  runArgs?: readonly string[];
  /** The task ships its sources as /app/sources.warc.gz: the oracle replays them, offline. */
  replay?: boolean;
}

export { shellQuote };

/** The oracle: quotecheck on /app/claims.json; its progress and summary go to the agent log. */
export function solveScript(opts: SolveOptions = {}): string {
  const extra = (opts.runArgs ?? []).map((a) => ` ${shellQuote(a)}`).join('');
  const replay = opts.replay
    ? `# A frozen edition: every source is answered from the task's own WARC archive, with no network.
export QUOTECHECK_REPLAY="\${QUOTECHECK_REPLAY:-$APP/${TASK_ARCHIVE}}"
`
    : '';
  return `#!/usr/bin/env bash
# Oracle: quotecheck fetches every source and writes the answers (design.md §2).
# The answers file is written even when sources fail or the run is stopped.
set -euo pipefail
APP="\${${p.app.env}:-${p.app.path}}"
LOGS="\${${p.agentLogs.env}:-${p.agentLogs.path}}"
mkdir -p "$LOGS"
${replay}quotecheck run --claims "$APP/claims.json" --out "$APP/answers.json" --report "$LOGS/report.jsonl"${extra} 2>&1 | tee -a "$LOGS/quotecheck.log"
`;
}

/**
 * The verifier: grades /app/answers.json against the gold.json beside it; the reward file is never left empty.
 * It finds its gold file from its own place, so the same script works wherever a harness copies the verifier
 * folder: /tests (Harbor), /verifier (EvalScope, AgentCompass).
 */
export function testScript(): string {
  return `#!/usr/bin/env bash
# Verifier: reward = correct answers / gold claims, written to /logs/verifier/reward.txt.
# The gold labels are in gold.json beside this script, wherever the harness put it (/tests, /verifier).
# A missing or unreadable answers file scores 0; the reward file is never left empty.
APP="\${${p.app.env}:-${p.app.path}}"
HERE="\${${p.tests.env}:-$(cd "$(dirname "\${BASH_SOURCE[0]}")" && pwd)}"
LOGS="\${${p.verifierLogs.env}:-${p.verifierLogs.path}}"
mkdir -p "$LOGS"
if ! quotecheck grade --answers "$APP/answers.json" --gold "$HERE/gold.json" --reward "$LOGS/reward.txt"; then
  echo 0 > "$LOGS/reward.txt"
fi
[ -s "$LOGS/reward.txt" ] || echo 0 > "$LOGS/reward.txt"
exit 0
`;
}

/*
 * Harbor's task configuration, as its TaskConfig model reads task.toml: src/harbor/models/task/config.py of
 * laude-institute/harbor, followed as of commit 73fd120e731217b38f31667932ea26a28cdd4fff (the fork LegoX/harbor,
 * the copy the project's search index holds). Top level: schema_version (str; `version` is renamed to it), task,
 * metadata, verifier, agent, environment, solution, source. [verifier] timeout_sec: float. [agent] timeout_sec:
 * float. [environment] build_timeout_sec: float, cpus/memory_mb/storage_mb: int, skills_dir: str (a path in the
 * environment whose contents are copied to the agent's skills folder), mcp_servers: a list of {name, transport
 * ("sse" | "streamable-http" | "stdio"), url (for sse/http), command (required for stdio), args: list[str]}.
 */

/** A task's variant: what it gives the agent besides the instruction. The instruction is the same in every variant, so
 *  that runs with and without the skill or the tool compare like for like (as SkillsBench does). */
export interface TaskVariant {
  /** Ship a skill folder in the environment and point Harbor's `[environment] skills_dir` at it. */
  skill?: boolean;
  /** Declare quotecheck's MCP server (`quotecheck mcp`, stdio) in `[[environment.mcp_servers]]`. */
  mcp?: boolean;
  /** Further `quotecheck mcp` arguments: the golden tasks' sources are on loopback, which the server refuses by
   *  default (`--allow-private`), and the drift task's archive is a stand-in (`--wayback-url`). */
  mcpArgs?: readonly string[];
}

export { ENV_SKILLS_FOLDER, TASK_SKILLS_DIR } from './layout.js';

/** One `[[environment.mcp_servers]]` entry of Harbor's task.toml (stdio transport: a command the agent starts). */
export interface McpServerEntry {
  name: string;
  transport: 'stdio';
  command: string;
  args: string[];
}

/** quotecheck's MCP server, started by the agent's harness inside the container (`quotecheck` is on the image's PATH). */
export const QUOTECHECK_MCP_SERVER: Readonly<McpServerEntry> = Object.freeze({ name: 'quotecheck', transport: 'stdio', command: 'quotecheck', args: ['mcp'] });

export class TemplateError extends Error {
  override readonly name = 'TemplateError';
}

/** The skill quotecheck ships (skills/quote-verification/ at the package root), found from this module's place in src/ or dist/src/. */
export function bundledSkillDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'skills', 'quote-verification');
    if (existsSync(join(candidate, 'SKILL.md'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new TemplateError(`quotecheck's skill (skills/quote-verification/SKILL.md) is not installed above ${fileURLToPath(import.meta.url)}`);
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
 * the build context the Dockerfile copies to TASK_SKILLS_DIR. Returns the skill's name (its folder's name).
 */
export function installSkill(environmentDir: string, skillDir: string): string {
  const src = checkSkillDir(skillDir);
  const name = basename(src);
  cpSync(src, join(environmentDir, ENV_SKILLS_FOLDER, name), { recursive: true });
  return name;
}

export interface TaskTomlOptions {
  author?: string;
  difficulty?: string;
  tags?: string[];
  agentTimeoutSec?: number;
  verifierTimeoutSec?: number;
  /** Harbor's `[environment] skills_dir`: the container folder whose skills the agent gets. */
  skillsDir?: string;
  /** Harbor's `[[environment.mcp_servers]]`: servers the agent's harness connects to. */
  mcpServers?: readonly McpServerEntry[];
}

/** A TOML string (a JSON string is a valid TOML basic string for the characters used here: escapes are the same). */
const tomlString = (s: string): string => JSON.stringify(s);

function mcpServerTable(server: McpServerEntry): string {
  return `
[[environment.mcp_servers]]
name = ${tomlString(server.name)}
transport = ${tomlString(server.transport)}
command = ${tomlString(server.command)}
args = [${server.args.map(tomlString).join(', ')}]
`;
}

/** Harbor's task.toml (schema version 1.0): timeouts for agent and verifier, resources (and skills, MCP servers) for the environment. */
export function taskToml(opts: TaskTomlOptions = {}): string {
  const tags = (opts.tags ?? ['quote-verification']).map((t) => tomlString(t)).join(', ');
  return `version = "1.0"

[metadata]
author_name = ${tomlString(opts.author ?? 'quotecheck export')}
author_email = "quotecheck@quotecheck.invalid"
difficulty = ${tomlString(opts.difficulty ?? 'medium')}
category = "quote-verification"
tags = [${tags}]

[verifier]
timeout_sec = ${(opts.verifierTimeoutSec ?? 120).toFixed(1)}

[agent]
timeout_sec = ${(opts.agentTimeoutSec ?? 600).toFixed(1)}

[environment]
build_timeout_sec = 600.0
cpus = 1
memory_mb = 2048
storage_mb = 4096
${opts.skillsDir !== undefined ? `skills_dir = ${tomlString(opts.skillsDir)}\n` : ''}${(opts.mcpServers ?? []).map(mcpServerTable).join('')}`;
}

/** task.toml options for a variant: the skills folder and the MCP server it declares. */
export function variantTomlOptions(variant: TaskVariant): Pick<TaskTomlOptions, 'skillsDir' | 'mcpServers'> {
  return {
    ...(variant.skill ? { skillsDir: TASK_SKILLS_DIR } : {}),
    ...(variant.mcp ? { mcpServers: [{ ...QUOTECHECK_MCP_SERVER, args: [...QUOTECHECK_MCP_SERVER.args, ...(variant.mcpArgs ?? [])] }] } : {}),
  };
}

/** The tags a variant adds to task.toml's metadata, so a dataset's variants can be told apart in Harbor's results. */
export function variantTags(variant: TaskVariant): string[] {
  return [...(variant.skill ? ['with-skill'] : []), ...(variant.mcp ? ['with-mcp'] : [])];
}

export interface DockerfileOptions extends TaskVariant {
  /** The task ships its sources as /app/sources.warc.gz. */
  archive?: boolean;
  /** Whose layout the task is in (default `harbor`): it decides how the skills are copied in. */
  layout?: Layout;
}

/** The Dockerfile lines that put the skill folder in the image, for each layout. */
function skillLines(layout: Layout): string {
  // SkillsBench 1.1 harnesses strip the one-line `COPY skills /skills` for runs without skills: no other line may
  // name a skills path, or a no-skill build would keep a trace of them.
  if (layout === 'skillsbench') return `${COPY_SKILLS_LINE}\n`;
  return `# The skill folder Harbor's [environment] skills_dir names; the agent's harness copies it to its skills.
${COPY_SKILLS_LINE}
`;
}

/**
 * A task's environment: the quotecheck image (see the top-level Dockerfile, which puts `quotecheck` on PATH) plus
 * the claims (and, frozen, the sources; with the skill, the skills folder). With the MCP server, the build runs
 * `quotecheck mcp --help` so that an image without quotecheck on PATH, or with a quotecheck too old to serve MCP,
 * fails at build time rather than leaving the agent without its tool. WORKDIR /app is where the agent starts.
 */
export function environmentDockerfile(opts: DockerfileOptions = {}): string {
  return `FROM quotecheck:latest
WORKDIR /app
COPY claims.json /app/claims.json
${opts.archive ? `COPY ${TASK_ARCHIVE} /app/${TASK_ARCHIVE}
` : ''}${opts.skill ? skillLines(opts.layout ?? 'harbor') : ''}${opts.mcp ? `# The MCP server the task declares runs as \`${[QUOTECHECK_MCP_SERVER.command, ...QUOTECHECK_MCP_SERVER.args].join(' ')}\`: it must be on PATH.
RUN command -v ${QUOTECHECK_MCP_SERVER.command} && ${QUOTECHECK_MCP_SERVER.command} ${QUOTECHECK_MCP_SERVER.args.join(' ')} --help > /dev/null
` : ''}`;
}

export interface InstructionOptions {
  /** The claims carry verify dates (and evidence hashes): tell the agent to judge as of them. */
  asOf?: boolean;
  /** Where the Wayback Machine is, when it is not https://web.archive.org (a local stand-in). */
  waybackUrl?: string;
  /** The task ships its sources as /app/sources.warc.gz. */
  archive?: boolean;
}

/** What the agent is told: the task, the exact label rule, the answer format. */
export function instruction(claimCount: number, exampleIds: readonly string[], about?: string, opts: InstructionOptions = {}): string {
  const example = exampleIds.slice(0, 2).map((id, i) => `${JSON.stringify(id)}: ${i === 0 ? '"verbatim"' : '"no_match"'}`).join(', ');
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

Write \`/app/answers.json\`: one JSON object mapping every claim id to \`"verbatim"\` or \`"no_match"\`, e.g.

\`\`\`json
{ ${example} }
\`\`\`
${opts.asOf ? asOfSection(opts.waybackUrl) : ''}${opts.archive ? archiveSection() : ''}${about ? `\nAbout these sources: ${about}\n` : ''}`;
}

function asOfSection(waybackUrl = 'https://web.archive.org'): string {
  return `
## As of the verify date

Each claim was labelled on its \`verify_date\`. Judge it as of that date: sources change and disappear.
When a claim has \`evidence.sha256\`, that is the sha256 of the source's bytes (after Content-Encoding is
removed) when it was labelled. If today's source no longer hashes to it, or cannot be fetched, use the
Wayback Machine at \`${waybackUrl}\`: \`/cdx/search/cdx?url=URL&to=YYYYMMDDhhmmss&filter=statuscode:200&output=json&limit=-5\`
lists the captures up to a date, and \`/web/TIMESTAMPid_/URL\` serves a capture's original bytes. A capture whose
sha256 equals the evidence is the text that was labelled; otherwise take the latest capture at or before the date.
Keep to about 15 requests a minute to the archive, and wait as long as a 429's Retry-After asks.
`;
}

function archiveSection(): string {
  return `
## The sources are in /app/${TASK_ARCHIVE}

This is a frozen edition: every source as it was recorded, in a WARC 1.1 archive (the format of the Internet
Archive). Read the sources from it rather than from the live web (\`quotecheck run --replay /app/${TASK_ARCHIVE}\`,
or any WARC reader such as warcio), so that the answers do not depend on when the task is run.
`;
}
