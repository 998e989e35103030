// What every command's registration shares: the outcome it leaves for main, and its help's one format (choices
// and default after each option's description).
import { type Command, Option } from 'commander';
import type { CliIo } from '../io.js';

/** What a command's action leaves for main: its exit code; and what main gives it: the command line, when known. */
export interface Outcome {
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
export const HELP_CONFIG = {
  optionDescription(option: Option): string {
    const extra = [
      option.argChoices ? `one of ${option.argChoices.join(', ')}` : undefined,
      defaultShown(option),
    ].filter(Boolean);
    return extra.length ? `${option.description} (${extra.join('; ')})` : option.description;
  },
};

/** An option whose default is described rather than a value commander passes (the code's own default applies). */
export function described(flags: string, description: string, shown: string): Option {
  return new Option(flags, description).default(undefined, shown);
}
