// The command line's value parsers, and the table's options (src/config/fetch-options.ts) added to a command: each
// command's fetch options come from there, so their flags, help and defaults are written once.
import { type Command, InvalidArgumentError, Option } from 'commander';
import {
  FETCH_OPTIONS,
  optionsOf,
  type OptionCommand,
  type OptionKind,
  type OptionSpec,
} from '../../config/fetch-options.js';

/** A parser of a flag's number: `Number(value)` when it passes `ok`, else commander's usage error `must be <what>`. */
function numberParser(ok: (n: number) => boolean, what: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!ok(n)) throw new InvalidArgumentError(`must be ${what}`);
    return n;
  };
}

export const positiveInt = numberParser((n) => Number.isInteger(n) && n >= 1, 'a whole number of at least 1');
export const nonNegativeInt = numberParser((n) => Number.isInteger(n) && n >= 0, 'a whole number of at least 0');
export const positiveSeconds = numberParser((n) => Number.isFinite(n) && n > 0, 'a number of seconds above 0');
export const megabytes = numberParser((n) => Number.isFinite(n) && n > 0, 'a number of megabytes above 0');

const PARSERS: Partial<Record<OptionKind, (value: string) => number>> = {
  count: nonNegativeInt,
  positive: positiveInt,
  seconds: positiveSeconds,
  megabytes,
};

/** The commander option of one table entry. */
function tableOption(name: keyof typeof FETCH_OPTIONS): Option {
  const spec: OptionSpec = FETCH_OPTIONS[name];
  const option = new Option(spec.flags, spec.help);
  const parse = PARSERS[spec.kind];
  if (parse) option.argParser(parse);
  if (spec.choices) option.choices([...spec.choices]);
  if (spec.default !== undefined) option.default(spec.default);
  else option.default(undefined, spec.shown);
  if (spec.conflicts) option.conflicts(spec.conflicts);
  return option;
}

/** Adds to `command` every option of the table it takes (src/config/fetch-options.ts), in the table's order. */
export function addTableOptions(command: Command, name: OptionCommand): Command {
  for (const [option] of optionsOf(name)) command.addOption(tableOption(option));
  return command;
}
