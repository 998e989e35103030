// `quotecheck audit`'s options and help (the cheat suite, loaded when the command line names audit); its action
// is src/cli/actions/audit.ts.
import { availableParallelism } from 'node:os';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { Attack } from '../../audit/attacks.js';
import { positiveInt } from './flags.js';
import { described, HELP_CONFIG, type Outcome } from './command.js';
import { addEngineOptions } from './evaluate.js';

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
    const loaded = import('../../audit/attacks.js').then((m) => {
      attacks = m.ATTACKS;
    });
    outcome.loading = [...(outcome.loading ?? []), loaded];
  }
  return () => attacksHelp(attacks);
}

/** `audit`: the check a dataset author runs before publishing (src/cli/actions/audit.ts). */
export function addAuditCommand(program: Command, outcome: Outcome): void {
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
      const { auditCommand } = await import('../actions/audit.js');
      outcome.code = await auditCommand({ ...o, dataset });
    });
}
