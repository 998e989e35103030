// The dataset's LICENSE file (export --license): the full text of each license its SPDX expression names, from the
// SPDX License List (spdx-license-list); terms of the author's own (LicenseRef-) and exceptions named, not written.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import parseSpdx from 'spdx-expression-parse';

/** The file, beside the tasks and the card. */
export const LICENSE_FILE = 'LICENSE';

/** LICENSE's text, and the parts of the expression it could not give the text of (each with why). */
export interface LicenseFile {
  text: string;
  /** `LicenseRef-...: terms of your own`, an exception, a license the list has no text of. */
  missing: string[];
}

interface ListEntry {
  name: string;
  url: string;
  licenseText: string;
}

const require = createRequire(import.meta.url);

/** The licenses and exceptions of an expression, in the order it names them, each once. */
function partsOf(node: parseSpdx.Info, out: { licenses: string[]; exceptions: string[] }): void {
  if ('conjunction' in node) {
    partsOf(node.left, out);
    partsOf(node.right, out);
    return;
  }
  if (!out.licenses.includes(node.license)) out.licenses.push(node.license);
  if (node.exception && !out.exceptions.includes(node.exception)) out.exceptions.push(node.exception);
}

/** The SPDX License List's entry for `id`, or undefined where it has none (LicenseRef-, DocumentRef-, withdrawn). */
function listEntry(id: string): ListEntry | undefined {
  if (!/^[A-Za-z0-9.+-]+$/.test(id) || id.startsWith('LicenseRef-') || id.startsWith('DocumentRef-')) return undefined;
  try {
    const file = require.resolve(`spdx-license-list/licenses/${id}.json`);
    return JSON.parse(readFileSync(file, 'utf8')) as ListEntry;
  } catch {
    return undefined;
  }
}

/** The conjunctions an expression uses. */
function conjunctions(node: parseSpdx.Info, out = new Set<'and' | 'or'>()): Set<'and' | 'or'> {
  if ('conjunction' in node) {
    out.add(node.conjunction);
    conjunctions(node.left, out);
    conjunctions(node.right, out);
  }
  return out;
}

/** How the expression's licenses combine, for a reader who is not fluent in SPDX. */
function howTheyCombine(node: parseSpdx.Info): string {
  const used = conjunctions(node);
  if (used.size === 0) return '';
  if (used.size === 2)
    return ' The expression says which of the licenses below apply together and which are alternatives.';
  return used.has('or')
    ? ' You may use it under any one of the licenses below, at your choice.'
    : ' Every license below applies.';
}

/**
 * LICENSE for `expression` (checked by package-info.ts checkLicense): a head naming the expression and what it does
 * not cover (the pages a frozen edition redistributes: the card's "Licence and rights"), then each license's full text.
 */
export function licenseFile(expression: string): LicenseFile {
  const tree = parseSpdx(expression);
  const parts = { licenses: [] as string[], exceptions: [] as string[] };
  partsOf(tree, parts);
  const missing: string[] = [];
  const sections: string[] = [];
  for (const id of parts.licenses) {
    const entry = listEntry(id);
    if (!entry) {
      missing.push(
        id.startsWith('LicenseRef-') || id.startsWith('DocumentRef-')
          ? `${id}: terms of your own, which only you can write into ${LICENSE_FILE}`
          : `${id}: the SPDX License List here holds no text of it (https://spdx.org/licenses/${id}.html)`,
      );
      continue;
    }
    sections.push(
      `${'='.repeat(78)}\n${id}: ${entry.name}\n${entry.url}\n${'='.repeat(78)}\n\n${entry.licenseText.trim()}\n`,
    );
  }
  for (const exception of parts.exceptions)
    missing.push(`${exception}: an exception, whose text is at https://spdx.org/licenses/${exception}.html`);
  const head =
    `This dataset's claims, labels and task files are licensed under ${expression} (an SPDX license expression).` +
    `${howTheyCombine(tree)} The pages its sources point to, and the copies of them a frozen edition carries, are ` +
    'their owners\' and not covered: see README.md, "Licence and rights".';
  const notWritten = missing.length ? `\n\nNot written here:\n${missing.map((m) => `- ${m}`).join('\n')}` : '';
  return { text: `${wrap(head)}${notWritten}\n\n${sections.join('\n')}`, missing };
}

/** `text` wrapped at 78 columns, at spaces. */
function wrap(text: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > 78) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line].join('\n');
}
