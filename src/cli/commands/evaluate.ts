// `quotecheck evaluate`'s options and help (how each trial is played), and the hidden `bench`, its old name
// (docs/cli.md#the-old-name-bench); its action is src/cli/actions/evaluate.ts.
import { availableParallelism } from 'node:os';
import { type Command, Option } from 'commander';
import { errorLine } from '../progress.js';
import { positiveInt } from './flags.js';
import { described, HELP_CONFIG, type Outcome } from './command.js';

/** `evaluate`: every task of a Harbor dataset, run locally (src/cli/actions/evaluate.ts). */
export function addEvaluateCommand(program: Command, outcome: Outcome, env: NodeJS.ProcessEnv): void {
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
      const { evaluateCommand } = await import('../actions/evaluate.js');
      outcome.code = await evaluateCommand(o);
    });
}

/**
 * The options of where trials run, evaluate's and audit's: `--isolation` (its help and choices the command's own) and
 * `--agent-network`.
 */
export function addEngineOptions(command: Command, isolationHelp: string, choices: readonly string[]): Command {
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

/** evaluate's options for how each trial is played: its containers, verifier mode, agent user, files and variables. */
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
export function addRenamedBenchCommand(program: Command, outcome: Outcome): void {
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
