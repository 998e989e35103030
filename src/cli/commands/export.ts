// `quotecheck export`'s options and help: what the tasks hold, publishing, images and networks; its action is
// src/cli/actions/export.ts.
import { type Command, Option } from 'commander';
import { CLI_DEFAULTS } from '../../config/defaults.js';
import { positiveInt } from './flags.js';
import { VERIFIER_MODES } from '../../task/verifier-mode.js';
import { described, HELP_CONFIG, type Outcome } from './command.js';

/** `export`: a Harbor dataset from labelled claims (src/cli/actions/export.ts). */
export function addExportCommand(program: Command, outcome: Outcome): void {
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
    const { exportCommand } = await import('../actions/export.js');
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
