// The files a task and the audit's attacks are made of, kept as real files with placeholders (src/task/templates/, a
// task's scripts and Dockerfiles; src/audit/payloads/, the attacks' programs): shipped in the build beside the grader
// (scripts/bundle.ts copies them to dist/bundle/quotecheck/templates/), read from there and filled in.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { shippedDir } from './ship.js';

/** Each folder of templates: where it is under src/, and its name under the build's templates/ folder. */
export const TEMPLATE_FOLDERS = { task: 'task/templates', attacks: 'audit/payloads' } as const;

type TemplateFolder = keyof typeof TEMPLATE_FOLDERS;

/** What fills a template in: text for each `@NAME@`, a flag for each `@IF NAME@` ... `@END NAME@` section. */
export type TemplateValues = Readonly<Record<string, string | boolean>>;

/** A placeholder: `@NAME@`, the name in capitals, digits and underscores. */
const PLACEHOLDER = /@([A-Z][A-Z0-9_]*)@/g;

/** A section's first or last line, alone on its line: `@IF NAME@`, `@END NAME@`. */
const SECTION = /^@(IF|END) ([A-Z][A-Z0-9_]*)@$/;

const read = new Map<string, string>();

/** A template's text, as the build ships it (read once). */
function templateText(folder: TemplateFolder, name: string): string {
  const path = join(shippedDir(), 'templates', folder, name);
  let text = read.get(path);
  if (text === undefined) {
    text = readFileSync(path, 'utf8');
    read.set(path, text);
  }
  return text;
}

/**
 * The lines of `text` its sections keep: a section's lines when its flag is true, none when false (and never its
 * `@IF`/`@END` lines), sections nested as they open and close. Every flag it names is added to `named`.
 */
function keptLines(where: string, text: string, values: TemplateValues, named: Set<string>): string[] {
  const open: { name: string; on: boolean }[] = [];
  const kept: string[] = [];
  for (const line of text.split('\n')) {
    const section = SECTION.exec(line);
    if (!section) {
      if (open.every((s) => s.on)) kept.push(line);
      continue;
    }
    const [, kind, name] = section as unknown as [string, 'IF' | 'END', string];
    named.add(name);
    if (kind === 'IF') {
      const flag = values[name];
      if (typeof flag !== 'boolean') throw new Error(`${where}: section ${name} needs a true or false value`);
      open.push({ name, on: flag });
    } else if (open.pop()?.name !== name) throw new Error(`${where}: @END ${name}@ closes no open @IF ${name}@`);
  }
  if (open.length) throw new Error(`${where}: @IF ${open.at(-1)!.name}@ is never closed`);
  return kept;
}

/**
 * A template filled in: its sections kept or left out by their flags, every `@NAME@` replaced by its text. A
 * placeholder or section without a value, a value of the wrong kind, or a value the template never names is an error:
 * a template and its caller out of step, never a script with a hole in it or a line silently lost.
 */
export function fillTemplate(folder: TemplateFolder, name: string, values: TemplateValues): string {
  const where = `template ${TEMPLATE_FOLDERS[folder]}/${name}`;
  const named = new Set<string>();
  const text = keptLines(where, templateText(folder, name), values, named).join('\n');
  const filled = text.replace(PLACEHOLDER, (_, key: string) => {
    named.add(key);
    const value = values[key];
    if (typeof value !== 'string') throw new Error(`${where}: @${key}@ needs a text value`);
    return value;
  });
  // The placeholders of sections left out are named too: a value for them is expected, not stray.
  for (const m of templateText(folder, name).matchAll(PLACEHOLDER)) named.add(m[1]!);
  const stray = Object.keys(values).filter((key) => !named.has(key));
  if (stray.length) throw new Error(`${where} names no ${stray.join(', ')}`);
  return filled;
}
