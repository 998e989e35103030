// The command line: argument parsing (commander) and dispatch to one module per command.
import { availableParallelism } from 'node:os';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { CLI_DEFAULTS, MCP_DEFAULTS, REPLAY_ENV, VERSION } from '../config/defaults.js';
import { REPORT_ORDERS } from '../config/settings.js';
import type { Attack } from '../audit/attacks.js';
import { processIo, withIo, type CliIo } from './io.js';
import { errorLine } from './progress.js';
import { bytesOf } from '../config/fetch-options.js';
import { addTableOptions, megabytes, nonNegativeInt, positiveInt, positiveSeconds } from './commands/flags.js';
import { VERIFIER_MODES } from '../task/verifier-mode.js';

/** What a command's action leaves for main: its exit code; and what main gives it: the command line, when known. */
interface Outcome {
  code: number;
  /** node's argv (the program and script first), as main was given it. */
  argv?: readonly string[];
  /** What a command's help needs loaded (its modules, imported as the program is built), awaited before parsing. */
  loading?: Promise<unknown>[];
}

/** One command's registration: adds it to the program, its action leaving the exit code in `outcome`. */
export type AddCommand = (program: Command, outcome: Outcome, io: CliIo) => void;

/** How help shows an option's default: every option says it, in one format, `(default: X)`, or `(required)`. */
export function defaultShown(option: Option): string | undefined {
  if (option.long === '--help' || option.long === '--version') return undefined;
  if (option.mandatory) return 'required';
  if (option.defaultValueDescription) return `default: ${option.defaultValueDescription}`;
  const value: unknown = option.defaultValue;
  if (value === undefined) return 'default: none';
  if (typeof value === 'boolean') return `default: ${value ? 'on' : 'off'}`;
  return `default: ${String(value)}`;
}

/** Help for the commands this file documents: choices and default after each description, one format. */
const HELP_CONFIG = {
  optionDescription(option: Option): string {
    const extra = [
      option.argChoices ? `one of ${option.argChoices.join(', ')}` : undefined,
      defaultShown(option),
    ].filter(Boolean);
    return extra.length ? `${option.description} (${extra.join('; ')})` : option.description;
  },
};

/** An option whose default is described rather than a value commander passes (the code's own default applies). */
function described(flags: string, description: string, shown: string): Option {
  return new Option(flags, description).default(undefined, shown);
}

/** `run`: label every claim of a claims file (src/cli/actions/run.ts). */
export function addRunCommand(program: Command, outcome: Outcome): void {
  const run = program
    .command('run')
    .description(
      'label every claim of a claims file; the answers file is written by every run that gets past input validation',
    )
    .configureHelp(HELP_CONFIG)
    .option(
      '--claims <path>',
      'claims file: a JSON array of {id, quote, url} (docs/how-it-decides.md, Contracts)',
      'claims.json',
    )
    .option('--out <path>', 'answers file to write', 'answers.json')
    .option(
      '--report <path>',
      'also write the evidence report, one JSON line per claim, appended as each claim is decided',
    )
    .addOption(
      new Option(
        '--report-order <order>',
        "the report's line order: as claims are decided, or the claims file's (rewritten once at the end)",
      )
        .choices([...REPORT_ORDERS])
        .default('decision'),
    )
    .option('--baseline', 'fetch nothing, answer no_match for every claim (the baseline every agent must beat)', false)
    .addOption(
      new Option('--format <format>', 'answers as {id: label} (map) or [{id, label}] (list)')
        .choices(['map', 'list'])
        .default('map'),
    );
  addTableOptions(run, 'run')
    .option('--deadline <seconds>', 'stop after this long; undecided claims are answered no_match', positiveSeconds)
    .addOption(
      described('--max-claims-mb <megabytes>', 'largest claims file read', String(CLI_DEFAULTS.maxClaimsMb)).argParser(
        megabytes,
      ),
    )
    .addOption(
      described('--as-of <date>', 'judge every claim as of this ISO date or date-time', "each claim's verify_date"),
    )
    .option('--record <file.warc.gz>', 'keep every HTTP exchange of the run in a WARC 1.1 file')
    .addOption(
      described('--replay <file.warc.gz>', 'answer every fetch from a WARC file, with no network', `$${REPLAY_ENV}`),
    )
    .option('--quiet', 'no progress output', false)
    .action(async (o) => {
      // Each command loads its own modules: `grade` should not pay for the HTTP client and parsers.
      const { runCommand } = await import('./actions/run.js');
      outcome.code = await runCommand({
        ...o,
        maxClaimsBytes: o.maxClaimsMb === undefined ? undefined : bytesOf(o.maxClaimsMb),
      });
    });
}

/** `label`: gold labels with their proof, the first step of a benchmark (src/cli/actions/label.ts). */
function addLabelCommand(program: Command, outcome: Outcome): void {
  const label = program
    .command('label')
    .description(
      'make gold labels by the mechanical rule, with their proof: each claim labelled on its source as read now, ' +
        'with verify_date and evidence.sha256; claims whose source cannot be read are left out. Over a labelled ' +
        "file, says which labels today's sources would change (exit 1 when some would)",
    )
    .configureHelp(HELP_CONFIG)
    .requiredOption(
      '--claims <path>',
      'claims: a JSON array of {id, quote, url}, {"claims": [...]}, or JSON Lines; every other field is kept',
    )
    .addOption(
      described(
        '--out <path>',
        'the labelled claims, JSON Lines (what export and grade --gold read)',
        'none: a labelled --claims is only checked',
      ),
    )
    .option('--force', 'replace --out, --left-out, --record and --report when they exist', false)
    .option(
      '--resume',
      'go on where a stopped run of these claims left off: label only the claims not yet in --out (or left out), ' +
        'appending to --out, --left-out, --record and --report',
      false,
    )
    .option(
      '--keep-unreadable',
      'label claims whose source could not be read no_match, as the bare rule would, instead of leaving them out',
      false,
    )
    .option(
      '--left-out <path>',
      'also write the claims left out, JSON Lines, each with left_out: {cause, kind, reason}',
    )
    .option(
      '--record <file.warc.gz>',
      'keep every HTTP exchange in a WARC 1.1 file; each evidence names the record of its bytes (warc_record_id)',
    )
    .option(
      '--replay <file.warc.gz>',
      "check a labelled --claims against a recorded run's sources, with no network (writes no labels)",
    )
    .option('--report <path>', 'also write the evidence report, one JSON line per claim');
  addTableOptions(label, 'label')
    .option('--quiet', 'no progress output', false)
    .action(async (o) => {
      const { labelCommand } = await import('./actions/label.js');
      // The command line as given: a stopped run prints it back with --resume.
      outcome.code = await labelCommand({ ...o, argv: outcome.argv?.slice(2) });
    });
}

/** `verify`: one quote against one URL (src/cli/actions/verify.ts). */
export function addVerifyCommand(program: Command, outcome: Outcome): void {
  const verify = program
    .command('verify')
    .description('check one quote against one URL; exit 0 verbatim, 1 no_match, 2 bad input')
    .configureHelp(HELP_CONFIG)
    .requiredOption('--url <url>', 'the source URL')
    .requiredOption('--quote <text>', 'the quote ("-" reads it from stdin)')
    .option(
      '--json',
      'print one JSON object: the evidence report fields (docs/how-it-decides.md, Contracts) plus the quote',
      false,
    );
  addTableOptions(verify, 'verify')
    .addOption(
      described(
        '--as-of <date>',
        'judge the quote as of this ISO date or date-time, as run judges a claim with this verify_date',
        'today',
      ),
    )
    .option(
      '--evidence <sha256>',
      "the sha256 of the source as labelled (a claim's evidence.sha256): a capture hashing to it decides alone",
    )
    .addOption(described('--replay <file.warc.gz>', 'answer from a WARC file, with no network', `$${REPLAY_ENV}`))
    .action(async (o) => {
      const { verifyCommand } = await import('./actions/verify.js');
      outcome.code = await verifyCommand(o);
    });
}

/**
 * The tools `mcp` serves and their inputs, for its --help (the schemas themselves are in src/mcp/tools.ts; a test holds
 * the two alike).
 */
const MCP_TOOLS_HELP = `
Tools (inputs; ? marks an optional one):
  verify_quote   url, quote, html_view?, as_of?, evidence?, wayback?
                 the verify --json record: label, diagnosis and evidence, judged as run judges a claim
  read_source    url, view?, offset?, length?
                 the extracted text a page at a time (what the label is computed on)
  search_source  url, query, max_results?
                 the passages closest to a phrase, best first
  check_claims   claims_path, answers_path?
                 the whole pipeline on a claims file under --root; writes the answers there
`;

/** `mcp`: the tools served to an agent over stdio (src/cli/actions/mcp.ts). */
export function addMcpCommand(program: Command, outcome: Outcome): void {
  const mcp = program
    .command('mcp')
    .description(
      'serve verify_quote, read_source, search_source and check_claims to an agent over MCP (stdio); ends when ' +
        'stdin closes',
    )
    .configureHelp(HELP_CONFIG);
  addTableOptions(mcp, 'mcp')
    .addOption(
      described(
        '--root <dir>',
        'the folder check_claims reads claims from and writes answers to: paths are resolved there, nothing ' +
          'outside it is opened',
        'the working directory',
      ),
    )
    .addOption(
      described(
        '--call-timeout <seconds>',
        'the longest one tool call may take; a call stopped there answers an error naming the limit',
        String(MCP_DEFAULTS.callTimeoutSeconds),
      ).argParser(positiveSeconds),
    )
    .addOption(
      described(
        '--replay <file.warc.gz>',
        'answer every fetch, Wayback lookups and captures too, from a WARC file, with no network',
        `$${REPLAY_ENV}`,
      ),
    )
    .addHelpText('after', MCP_TOOLS_HELP)
    .action(async (o) => {
      const { mcpCommand } = await import('./actions/mcp.js');
      outcome.code = await mcpCommand(o);
    });
}

/** `grade`: an answers file against gold labels (src/cli/actions/grade.ts). */
function addGradeCommand(program: Command, outcome: Outcome): void {
  program
    .command('grade')
    .description('grade an answers file against gold labels; reward = correct / gold claims; names the wrong ids')
    .configureHelp(HELP_CONFIG)
    .requiredOption('--answers <path>', 'answers file ({id: label} or [{id, label}])')
    .requiredOption(
      '--gold <path>',
      'gold labels: {id: label}, [{id, label}], or the labelled claims label writes (JSON Lines with a label each)',
    )
    .option('--reward <path>', 'write the reward (a decimal) to this file; missing folders are created')
    .action(async (o) => {
      const { gradeCommand } = await import('./actions/grade.js');
      outcome.code = await gradeCommand(o);
    });
}

/** `evaluate`: every task of a Harbor dataset, run locally (src/cli/actions/evaluate.ts). */
function addEvaluateCommand(program: Command, outcome: Outcome, env: NodeJS.ProcessEnv): void {
  const command = program
    .command('evaluate')
    .description(
      "run every task of a dataset (Harbor or SkillsBench 1.1 layout) locally: agent, then the task's verifier; " +
        'report.json and report.html',
    )
    .configureHelp(HELP_CONFIG)
    .requiredOption('--tasks <dir>', 'dataset folder (task folders with task.toml or task.md), or one task folder')
    // Repeatable: each --agent adds one; several run one after another and are compared (commander's default would be
    // kept alongside, so it is described and applied in evaluate.ts).
    .addOption(
      described(
        '--agent <agent>',
        "oracle (the task's solve.sh), baseline (all no_match), or a shell command run in /app; repeat to compare " +
          'agents side by side',
        'oracle',
      ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]),
    )
    // Repeatable like --agent: the i-th --name names the i-th --agent (checked in src/cli/actions/evaluate.ts).
    .addOption(
      described(
        '--name <name>',
        'the name of the matching --agent (1st --name, 1st --agent) in reports, comparisons and its folder under ' +
          '--out: letters, digits, . _ -',
        'oracle, baseline, agent-N',
      ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]),
    )
    .addOption(
      new Option('--jobs <n>', 'tasks run at once')
        .argParser(positiveInt)
        .default(availableParallelism(), 'one per core'),
    )
    .option('--out <dir>', 'where trials and reports go', 'evaluate-out');
  addTrialOptions(command)
    .addOption(
      new Option(
        '--replay <file.warc.gz>',
        "every task's quotecheck answers from this WARC archive, with no network",
      ).default(env.QUOTECHECK_REPLAY ?? '', '$QUOTECHECK_REPLAY, else none'),
    )
    .option('--quiet', 'no progress output', false)
    .action(async (o) => {
      const { evaluateCommand } = await import('./actions/evaluate.js');
      outcome.code = await evaluateCommand(o);
    });
}

/** evaluate's options for how each trial is played: its containers, verifier mode, agent user, files and variables. */
/**
 * The options of where trials run, evaluate's and audit's: `--isolation` (its help and choices the command's own) and
 * `--agent-network`.
 */
function addEngineOptions(command: Command, isolationHelp: string, choices: readonly string[]): Command {
  return command
    .addOption(new Option('--isolation <mode>', isolationHelp).choices(choices).default('auto'))
    .addOption(
      new Option(
        '--agent-network <mode>',
        "on an engine, the agent container's network: task (its network_mode), host (this machine's, for sources " +
          "on its loopback), auto (host for a task whose sources are on this machine's loopback, else task)",
      )
        .choices(['auto', 'task', 'host'])
        .default('auto'),
    );
}

function addTrialOptions(command: Command): Command {
  return addEngineOptions(
    command,
    "docker, podman: each trial on a real engine (the task's images built, Harbor's way); namespace: evaluate's " +
      'own containers (root; an emulation: no image built); paths: QUOTECHECK_*_DIR variables; auto: Docker when ' +
      'its daemon answers, else Podman, else namespace, else paths',
    ['auto', 'docker', 'podman', 'namespace', 'paths'],
  )
    .addOption(
      new Option(
        '--verifier <mode>',
        "task: as each task.toml says (Harbor's environment_mode); separate: the verifier in its own container, " +
          "only the artifacts crossing; shared: in the agent's container after it",
      )
        .choices(['task', 'separate', 'shared'])
        .default('task'),
    )
    .addOption(
      new Option(
        '--agent-user <who>',
        "task: the agent phase as the task's [agent] user; root: as root, as a harness that ignores [agent] user",
      )
        .choices(['task', 'root'])
        .default('task'),
    )
    .option(
      '--agent-dir <dir>',
      "a folder of the agent's own (its program, its files), read-only at /installed-agent in its container",
    )
    .addOption(
      described(
        '--agent-env <name>',
        "a variable of evaluate's environment the agent gets (an API key), by name; repeat for more; the rest of " +
          "its environment is the image's",
        'none',
      ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]),
    );
}

/**
 * `bench`, the old name of `evaluate`, hidden: a script that still calls it is told the new name, not "unknown
 * command" (`npm run bench` is the performance benchmark, docs/performance.md).
 */
function addRenamedBenchCommand(program: Command, outcome: Outcome): void {
  program
    .command('bench', { hidden: true })
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .action(() => {
      errorLine(
        '`quotecheck bench` is now `quotecheck evaluate` (same options); `npm run bench` is the performance benchmark',
      );
      outcome.code = 2;
    });
}

/** `compare`: finished evaluate runs side by side (src/cli/actions/compare.ts). */
function addCompareCommand(program: Command, outcome: Outcome): void {
  program
    .command('compare')
    .description(
      "finished evaluate runs side by side: mean reward and accuracy split by the oracle's diagnosis of each claim",
    )
    .configureHelp(HELP_CONFIG)
    .argument('<run-dir...>', 'evaluate --out folders (one agent each, or a comparison of several)')
    .addOption(
      described(
        '--oracle <dir>',
        "the oracle's run folder, whose evidence reports give each claim's diagnosis",
        'the run whose agent is oracle',
      ),
    )
    .option('--out <dir>', 'also write report.json and report.html into this folder')
    .action(async (runs: string[], o) => {
      const { compareCommand } = await import('./actions/compare.js');
      outcome.code = await compareCommand({ ...o, runs });
    });
}

/** `export`: a Harbor dataset from labelled claims (src/cli/actions/export.ts). */
function addExportCommand(program: Command, outcome: Outcome): void {
  const command = program
    .command('export')
    .description(
      "write a dataset (Harbor's layout, or SkillsBench 1.1's task.md) from labelled claims (JSON Lines with a " +
        '"label" per claim)',
    )
    .configureHelp(HELP_CONFIG)
    .requiredOption('--labelled <file>', 'labelled claims: one JSON object per line (a JSON array is accepted too)')
    .requiredOption('--out <dir>', 'new (or empty) folder for the dataset')
    .option(
      '--per-task <n>',
      'about this many claims per task (claims of one source stay together)',
      positiveInt,
      CLI_DEFAULTS.perTask,
    )
    .addOption(described('--name <prefix>', 'task name prefix', "the --labelled file's name"))
    .addOption(
      described(
        '--warc <file.warc.gz>',
        'a frozen edition: each task ships its own sources from the recorded run (label --record) and replays ' +
          "them; repeat for the archives of several batches: each claim's warc_record_id is found in whichever " +
          'holds it',
        'none',
      ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]),
    )
    .addOption(
      described(
        '--with-skill [dir]',
        "ship a skill in every task (Harbor's [environment] skills_dir): quotecheck's own, or the skill folder given",
        'off',
      ),
    )
    .option(
      '--with-mcp',
      "declare quotecheck's MCP server (`quotecheck mcp`, stdio) in every task's [[environment.mcp_servers]]",
      false,
    )
    .option(
      '--allow-private',
      "the sources are on a private network (tests, an intranet): the oracle's run and the MCP server may reach it",
      false,
    )
    .option(
      '--allow-disagreement',
      "with --warc: write the frozen edition even where its oracle, replaying each task's archive, would answer a " +
        'claim otherwise than its label (refused by default, naming the claims)',
      false,
    )
    .addOption(
      new Option(
        '--layout <layout>',
        'harbor: instruction.md, task.toml, solution/, tests/ (Harbor, SkillsBench 1.0); skillsbench: task.md with ' +
          'YAML front matter, oracle/, verifier/ (SkillsBench 1.1: EvalScope, AgentCompass)',
      )
        .choices(['harbor', 'skillsbench'])
        .default('harbor'),
    )
    .addOption(
      new Option(
        '--verifier <mode>',
        "where each task's verifier runs: separate (Harbor: an image of its own built from tests/, no network, " +
          'given only /app/answers.json) ' +
          "or shared (in the agent's container, after the agent); SkillsBench 1.1's layout is always shared",
      )
        .choices(VERIFIER_MODES)
        .default(undefined, 'separate; shared with --layout skillsbench'),
    )
    .option(
      '--task-field <field>',
      'group claims into tasks by this field of the labelled claims (e.g. task), named by its value, instead of by ' +
        '--per-task',
    );
  addImageOptions(addPublishingOptions(command)).action(async (o) => {
    const { exportCommand } = await import('./actions/export.js');
    outcome.code = await exportCommand(o);
  });
}

/** export's options for publishing: the [task] table Harbor's registry reads, and [metadata]. */
function addPublishingOptions(command: Command): Command {
  return command
    .addOption(
      described(
        '--org <org>',
        "the registry org: each task.toml's [task] name is <org>/<task> (letters, digits, '.', '_', '-', " +
          "starting with a letter or digit, no '..'), as Harbor's registry needs to publish it; " +
          'without it no task has a [task] table: the tasks run (harbor run -p, evaluate) but cannot be published',
        'none',
      ),
    )
    .addOption(
      described(
        '--author <"name <email>">',
        '[task] authors: one author, the email optional; repeat for more (needs --org)',
        'none',
      ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]),
    )
    .addOption(
      described('--keyword <word>', '[task] keywords: one keyword; repeat for more (needs --org)', 'none').argParser(
        (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
      ),
    )
    .addOption(
      described(
        '--description <text>',
        '[task] description of every task (needs --org)',
        'Check N quotes against their sources: verbatim or no_match',
      ),
    )
    .addOption(
      new Option('--difficulty <level>', '[metadata] difficulty of every task')
        .choices(['easy', 'medium', 'hard'])
        .default(undefined, 'none written'),
    );
}

/** A repeatable option's values, in order. */
const repeated = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/**
 * export's options for where the tasks run (docs/datasets.md#where-a-dataset-runs-harbors-providers): what the images
 * start from and are named, the networks, the dataset's licence and audit.
 */
function addImageOptions(command: Command): Command {
  const network = (flags: string, help: string, shown: string): Option =>
    new Option(flags, help).choices(['public', 'no-network']).default(undefined, shown);
  return command
    .addOption(
      described(
        '--base-image <ref>',
        'the image both Dockerfiles start FROM, pinned by its digest (node:20-bookworm-slim@sha256:...)',
        'node:20-bookworm-slim, by tag',
      ),
    )
    .addOption(
      described(
        '--apt-version <pkg=version>',
        "a Debian package's version in the agent's image (poppler-utils, ca-certificates or curl); repeat for more",
        "the archive's current ones",
      ).argParser(repeated),
    )
    .addOption(
      described(
        '--image-repo <repository>',
        '[environment].docker_image of every task: <repository>:<task>-<folder hash>, for the providers that build ' +
          'no Dockerfile; build-images.sh builds and pushes them',
        'none: each provider builds environment/Dockerfile',
      ),
    )
    .addOption(
      described(
        '--verifier-image-repo <repository>',
        '[verifier.environment].docker_image of every task, likewise; it holds the gold labels: keep it where the ' +
          'agent cannot pull it',
        'none: each provider builds tests/Dockerfile',
      ),
    )
    .addOption(
      network(
        '--agent-network <mode>',
        "the agent's run ([agent] network_mode; its setup keeps the network): no-network keeps a frozen edition's " +
          'agent off the live web',
        'no-network with --warc, else public',
      ),
    )
    .addOption(
      network(
        '--verifier-network <mode>',
        "a separate verifier's network ([verifier.environment] network_mode); its grader opens no connection",
        'public',
      ),
    )
    .addOption(
      described('--license <spdx>', "the dataset's licence, an SPDX expression (CC-BY-4.0), in its card", 'none'),
    )
    .addOption(
      described(
        '--audit <audit.json>',
        'the result of quotecheck audit --json on this very dataset, for its card (export, audit, export again)',
        'none',
      ),
    );
}

/** A comma-separated list of some of `choices` (`--modes separate,shared`), checked. */
function choiceList<T extends string>(choices: readonly T[]): (value: string) => T[] {
  return (value) => {
    const items = value
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
    const bad = items.find((v) => !(choices as readonly string[]).includes(v));
    if (bad !== undefined || !items.length)
      throw new InvalidArgumentError(`give one or more of ${choices.join(', ')}, separated by commas`);
    return [...new Set(items)] as T[];
  };
}

/** The cheat suite, for `audit --help`: each attack's id, class and the users it runs as (src/audit/attacks.ts). */
function attacksHelp(ATTACKS: readonly Attack[]): string {
  const w = Math.max(...ATTACKS.map((a) => a.id.length));
  return `
The checks run on every task, as its [agent] user, in each verifier mode: the oracle must score 1, doing nothing
(agent \`true\`) 0, the baseline (all no_match) the task's no_match share. The cheat suite runs each attack below as
the agent user and as root, in each mode; it must score no more than doing nothing. Its attacks depend on a task's
verifier, not on its claims: by default it runs on one task of each distinct verifier (--sample N or all for more).
class task: the task's verifier must stop it in every mode; harness: in shared mode only the harness can (reported,
not failed: publish with the separate verifier), in separate mode it must be stopped. Exit 0 when every check and
attack met its expectation, 1 when one did not (named on stderr), 2 when the audit cannot run (no root, bad input).

Attacks:
${ATTACKS.map(
  (a) =>
    `  ${a.id.padEnd(w)}  ${a.class.padEnd(7)}  ` +
    `${a.users.length === 1 ? 'root only  ' : 'agent, root'}  ${a.description}`,
).join('\n')}
`;
}

/**
 * audit's help after its options: the cheat suite, loaded when the command line names audit (`audit --help`, `help
 * audit`) and for no other command.
 */
function cheatSuiteHelp(outcome: Outcome): () => string {
  let attacks: readonly Attack[] = [];
  if (outcome.argv?.includes('audit')) {
    const loaded = import('../audit/attacks.js').then((m) => {
      attacks = m.ATTACKS;
    });
    outcome.loading = [...(outcome.loading ?? []), loaded];
  }
  return () => attacksHelp(attacks);
}

/** `audit`: the check a dataset author runs before publishing (src/cli/actions/audit.ts). */
function addAuditCommand(program: Command, outcome: Outcome): void {
  const attacksHelp = cheatSuiteHelp(outcome);
  const command = program
    .command('audit')
    .description(
      "before publishing a dataset (Harbor or SkillsBench 1.1 layout): run each task's oracle, an agent that does " +
        "nothing and the baseline, then a cheat suite of attacks as the agent's user and as root in each verifier " +
        'mode, through evaluate on a real engine (Docker or Podman: the images built); a table, --json for CI, exit ' +
        '1 when anything failed its expectation',
    )
    .configureHelp(HELP_CONFIG)
    .argument('<dataset>', 'dataset folder (task folders with task.toml or task.md), or one task folder')
    .addOption(
      described(
        '--sample <n>',
        'tasks the cheat suite runs on: a number (evenly spread, distinct verifiers first) or all',
        'one task of each distinct verifier',
      ).argParser((value: string) => (value === 'all' ? 'all' : positiveInt(value))),
    )
    .addOption(
      described(
        '--modes <list>',
        'verifier modes to play, comma-separated: separate, shared ' +
          '(a mode a task does not declare is forced, marked *)',
        "each task's own: shared, and separate too when task.toml declares it",
      ).argParser(choiceList(['separate', 'shared'] as const)),
    )
    .addOption(
      described(
        '--users <list>',
        "who the cheat suite's agent phase runs as, comma-separated: agent (the task's [agent] user), root",
        'agent,root',
      ).argParser(choiceList(['agent', 'root'] as const)),
    )
    .addOption(
      described(
        '--attacks <list>',
        'only these attacks, comma-separated ids or id prefixes (listed below)',
        'all',
      ).argParser((value: string) =>
        value
          .split(',')
          .map((v) => v.trim())
          .filter(Boolean),
      ),
    )
    .addOption(
      new Option('--jobs <n>', 'trials run at once')
        .argParser(positiveInt)
        .default(availableParallelism(), 'one per core'),
    )
    .option('--json <file>', 'also write the report as JSON (for CI)')
    .addOption(
      described(
        '--out <dir>',
        'keep the trials here (trials/) and write audit.json',
        'none: trials in a temporary folder, removed',
      ),
    )
    .addOption(
      described(
        '--answers <path>',
        "the answers file the verifier grades, when neither task.toml's artifacts nor the instruction names one",
        '/app/answers.json',
      ),
    );
  addEngineOptions(
    command,
    'docker, podman: the trials on a real engine (auto: Docker when its daemon answers, else Podman); ' +
      "namespace: on evaluate's own containers, an emulation (no image built) whose verdict is no certificate",
    ['auto', 'docker', 'podman', 'namespace'],
  )
    .option('--quiet', 'no progress output', false)
    .addHelpText('after', attacksHelp)
    .action(async (dataset: string, o) => {
      const { auditCommand } = await import('./actions/audit.js');
      outcome.code = await auditCommand({ ...o, dataset });
    });
}

/**
 * `wayback-stub`: the loopback Wayback stub, served from a captures file or folder (src/cli/actions/wayback-stub.ts).
 */
function addWaybackStubCommand(program: Command, outcome: Outcome): void {
  program
    .command('wayback-stub')
    .description(
      'serve the loopback Wayback stub (the CDX lookups quotecheck sends, and raw captures) from captures on disk, ' +
        'until Ctrl-C, to try dated claims (drift) offline: point `run --allow-private --wayback-url` at the ' +
        'origin it prints',
    )
    .configureHelp(HELP_CONFIG)
    .requiredOption(
      '--captures <dir|file>',
      'a JSON array (or JSON Lines) of captures {url, timestamp (14 digits), status?, headers?, body? or file? ' +
        '(relative to it)}, or a folder holding captures.json',
    )
    .option('--host <address>', 'the loopback address to listen on (127.x.y.z, ::1, localhost)', '127.0.0.4')
    .option('--port <n>', 'the port to listen on (0: a free one, printed)', nonNegativeInt, 0)
    .action(async (o) => {
      const { waybackStubCommand } = await import('./actions/wayback-stub.js');
      outcome.code = await waybackStubCommand(o);
    });
}

/** Every command, in the order help lists them. */
const EVERY_COMMAND: readonly AddCommand[] = [
  addRunCommand,
  addLabelCommand,
  addVerifyCommand,
  addMcpCommand,
  addGradeCommand,
  (program, outcome, io) => addEvaluateCommand(program, outcome, io.env),
  addRenamedBenchCommand,
  addCompareCommand,
  addExportCommand,
  addAuditCommand,
  addWaybackStubCommand,
];

/**
 * A program of some commands (`commands`), printing through `io` (help, version and usage errors included) and leaving
 * each command's exit code in `outcome`. Every exit is a thrown CommanderError (exitOverride): main turns it into the
 * exit code, nothing calls process.exit. The builds a task ships (scripts/bundle.ts) are programs of fewer commands.
 */
function programOf(io: CliIo, outcome: Outcome, commands: readonly AddCommand[]): Command {
  const program = new Command('quotecheck')
    .description(
      'Checks quotes against their sources: fetch, extract, normalize, match; labels each claim verbatim or no_match.',
    )
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    // One prefix for every message, commander's usage errors included: "quotecheck: error: ...".
    .configureOutput({
      writeOut: (str) => void io.stdout.write(str),
      writeErr: (str) => void io.stderr.write(str),
      outputError: (str, write) => write(`quotecheck: ${str}`),
    })
    // Set before the commands so they inherit it: a usage error, --help or --version throws, and main returns its code.
    .exitOverride();
  for (const add of commands) add(program, outcome, io);
  return program;
}

/** The whole program: every command (programOf). */
export const buildProgram = (io: CliIo = processIo(), outcome: Outcome = { code: 0 }): Command =>
  programOf(io, outcome, EVERY_COMMAND);

/** Parses `argv` with the program `make` builds, printing through `io`, and returns the exit code (runProgram). */
async function runWith(argv: string[], io: CliIo, make: (outcome: Outcome) => Command): Promise<number> {
  const outcome: Outcome = { code: 0, argv };
  return withIo(io, async () => {
    try {
      const program = make(outcome);
      await Promise.all(outcome.loading ?? []);
      await program.parseAsync(argv);
    } catch (err) {
      if (!(err instanceof CommanderError)) throw err;
      // Usage errors exit 2, like every other bad input.
      return err.exitCode === 0 ? 0 : 2;
    }
    return outcome.code;
  });
}

/**
 * Runs the command line `argv` (node's argv: the program and script first) with the program of `commands` and returns
 * its exit code: 0, or the command's own (1 no_match for verify, 2 bad input, 128+n stopped by signal n); usage errors
 * are 2, --help and --version 0. Everything it prints goes through `io` (default: the process's streams), so a caller
 * may run commands in-process; the process itself is never exited.
 */
export const runProgram = (argv: string[], commands: readonly AddCommand[], io: CliIo = processIo()): Promise<number> =>
  runWith(argv, io, (outcome) => programOf(io, outcome, commands));

/** The whole command line (runProgram with every command: buildProgram). */
export const main = (argv: string[], io: CliIo = processIo()): Promise<number> =>
  runWith(argv, io, (outcome) => buildProgram(io, outcome));
