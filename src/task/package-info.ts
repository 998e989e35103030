// A task's package information, Harbor's [task] table (its PackageInfo): the `<org>/<task>` name its registry publishes
// under, by the registry's own rule; the description; the authors; the keywords.
import parseSpdx from 'spdx-expression-parse';
import { UserError } from '../errors.js';

/** One author, as Harbor's Author model has them: a name, and an email when given. */
export interface Author {
  name: string;
  email?: string;
}

/** Harbor's [task] table: what its registry needs to publish a task (`harbor publish`), and shows. */
export interface TaskPackage {
  /** `<org>/<task>`, by HARBOR_NAME_RULE. */
  name: string;
  description: string;
  authors: readonly Author[];
  keywords: readonly string[];
}

class PackageError extends UserError {
  override readonly name = 'PackageError';
}

/**
 * One part of a package name (the org, or the task): a letter or digit, then letters, digits, '.', '_' or '-'. Harbor's
 * PackageInfo holds the whole name to `<part>/<part>` so (its constants' ORG_NAME_PATTERN) and refuses '..' anywhere in
 * it; a task.toml whose name breaks the rule fails to load, and a local run silently skips such a task.
 */
const PART = /^[a-zA-Z0-9][a-zA-Z0-9._-]*$/;

const HARBOR_NAME_RULE = "letters, digits, '.', '_' or '-', starting with a letter or digit, and no '..'";

/** Whether `part` may be one side of a Harbor package name. */
const isPart = (part: string): boolean => PART.test(part) && !part.includes('..');

/** Checks --org by Harbor's rule, before anything is read: a PackageError naming the rule otherwise. */
export function checkOrg(org: string): string {
  if (!isPart(org)) {
    throw new PackageError(
      `--org ${JSON.stringify(org)}: must be ${HARBOR_NAME_RULE}: Harbor's registry names a task <org>/<task> by ` +
        `that rule (its ORG_NAME_PATTERN)`,
    );
  }
  return org;
}

/**
 * `<org>/<task>`, checked by Harbor's rule (a task name with '..' in it breaks it): a PackageError naming the task
 * otherwise.
 */
export function packageName(org: string, task: string): string {
  checkOrg(org);
  if (!isPart(task)) {
    throw new PackageError(
      `task name ${JSON.stringify(task)}: with --org, must be ${HARBOR_NAME_RULE}: it is the <task> of ${org}/<task>`,
    );
  }
  return `${org}/${task}`;
}

/**
 * An --author value: `Name <email>` or `Name` (Harbor's Author: a name, an optional email). A PackageError for an
 * empty name, or an email that is not one (a single `@` between non-empty parts, no spaces or angle brackets).
 */
export function parseAuthor(text: string): Author {
  const m = /^\s*([^<>]*?)\s*(?:<([^<>]*)>)?\s*$/.exec(text);
  const name = m?.[1] ?? '';
  const email = m?.[2]?.trim();
  if (!m || name === '')
    throw new PackageError(`--author ${JSON.stringify(text)}: give "Name <email>" or "Name" (the email is optional)`);
  if (email !== undefined && !/^[^\s@<>]+@[^\s@<>]+$/.test(email))
    throw new PackageError(
      `--author ${JSON.stringify(text)}: ${JSON.stringify(email)} is not an email address (name@host)`,
    );
  return email === undefined ? { name } : { name, email };
}

/** --keyword values as given, each non-empty and once (the first place it appears). */
export function checkKeywords(keywords: readonly string[]): string[] {
  const out: string[] = [];
  for (const k of keywords) {
    const word = k.trim();
    if (word === '') throw new PackageError('--keyword: an empty keyword');
    if (!out.includes(word)) out.push(word);
  }
  return out;
}

/**
 * --license: an SPDX license expression (`CC-BY-4.0`, `CC-BY-4.0 OR MIT`, `LicenseRef-<terms>`), as the SPDX
 * specification's grammar and license list have it (spdx-expression-parse); anything else is a PackageError.
 */
export function checkLicense(expression: string): string {
  const text = expression.trim();
  try {
    parseSpdx(text);
  } catch (err) {
    throw new PackageError(
      `--license ${JSON.stringify(expression)}: not an SPDX license expression (${(err as Error).message}); give an ` +
        'identifier from https://spdx.org/licenses/ such as CC-BY-4.0, an expression such as "CC-BY-4.0 OR MIT", or ' +
        'LicenseRef-<name> for terms of your own',
    );
  }
  return text;
}
