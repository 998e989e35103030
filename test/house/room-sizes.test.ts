// The house's rooms stay rooms (issue 45): no folder of src/ holds more than 15 files of its own, and no file is over
// 600 lines, but those listed here with why. A folder or a file past its size is a sign it holds more than one job.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const MAX_FILES = 15;
const MAX_LINES = 600;

/** Folders allowed more files, each with why. */
const BIG_FOLDERS: Readonly<Record<string, string>> = {
  'src/extract/lightdom':
    "the HTML parser: the standard's tree construction, one file a part of it (its insertion modes, the stack, the " +
    'active formatting elements), which reads best beside the standard',
};

/** Files allowed more lines, each with why. */
const LONG_FILES: Readonly<Record<string, string>> = {
  'src/extract/lightdom/start-tags.ts': "the HTML parser's start-tag rules, in the standard's order, one case each",
  'src/extract/decode.ts': "the charset decoder: the Encoding Standard's sniffing and labels, kept in one place",
  'src/grader/grade.mjs': 'the shipped grader: one self-contained file a task ships as it is, Node.js modules only',
};

/** Files of src/ (their paths from the project), and how many each folder holds of its own. */
function survey(): { files: string[]; counts: Map<string, number> } {
  const counts = new Map<string, number>();
  const files: string[] = [];
  for (const e of readdirSync(join(ROOT, 'src'), { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const folder = relative(ROOT, e.parentPath);
    counts.set(folder, (counts.get(folder) ?? 0) + 1);
    files.push(join(folder, e.name));
  }
  return { files, counts };
}

/** The folders over MAX_FILES and the code files over MAX_LINES, but the listed ones. */
function oversized(): { folders: string[]; files: string[] } {
  const { files, counts } = survey();
  return {
    folders: [...counts]
      .filter(([folder, n]) => n > MAX_FILES && !(folder in BIG_FOLDERS))
      .map(([folder, n]) => `${folder}: ${n} files`),
    files: files
      .filter((f) => /\.(?:ts|mts|mjs)$/.test(f) && !(f in LONG_FILES))
      .map((f) => [f, readFileSync(join(ROOT, f), 'utf8').split('\n').length - 1] as const)
      .filter(([, lines]) => lines > MAX_LINES)
      .map(([f, lines]) => `${f}: ${lines} lines`),
  };
}

describe('the size of rooms', () => {
  test(`no folder of src/ holds more than ${MAX_FILES} files of its own, and no file is over ${MAX_LINES} lines`, () => {
    expect(oversized()).toEqual({ folders: [], files: [] });
  });

  test('each exception is still needed: its folder or file is over the limit', () => {
    const { files, counts } = survey();
    for (const folder of Object.keys(BIG_FOLDERS)) expect(counts.get(folder) ?? 0, folder).toBeGreaterThan(MAX_FILES);
    for (const file of Object.keys(LONG_FILES)) {
      expect(files, file).toContain(file);
      expect(readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1, file).toBeGreaterThan(MAX_LINES);
    }
  });
});
