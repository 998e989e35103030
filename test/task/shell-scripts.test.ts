// A task's shell scripts as every variant writes them (the oracle's solve.sh, the verifier's test.sh) parse and pass
// ShellCheck: they are filled in from src/task/templates/, and a placeholder's value must never break the script.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { solveScript, testScript } from '../../src/task/task-scripts.js';
import { buildImagesScript } from '../../src/task/task-image.js';
import { LAYOUTS, type Layout } from '../../src/task/layout.js';
import { VERIFIER_MODES } from '../../src/task/verifier-mode.js';
import { verifierModeProblem, writeTaskFolder } from '../../src/task/task-writer.js';
import { instruction } from '../../src/task/instruction.js';
import { tempDir } from '../support/helpers.js';
import { shellFindings, type Exclusions, type ShellScript } from '../support/shellcheck.js';

/** What ShellCheck would say of test.sh that is no problem there. */
const TEST_SH: Exclusions = {
  SC2115:
    'rm -rf -- "$LOGS/$name": $LOGS is the third argument test.sh gives itself, never empty (its own default), and ' +
    '$name one of the two reward files, so the path is never /',
};

describe("a task's shell scripts", () => {
  test('every solve.sh (live or replayed, with the run arguments a dataset adds) parses and passes ShellCheck', () => {
    const runArgs = [[], ['--allow-private'], ['--wayback-url', "http://127.0.0.4:8080/it's a path"]];
    const scripts = [false, true].flatMap((replay) =>
      runArgs.map((args) => ({
        name: `solve.sh (${replay ? 'replay' : 'live'}, ${JSON.stringify(args)})`,
        text: solveScript({ replay, runArgs: args }),
      })),
    );
    expect(shellFindings(scripts)).toEqual([]);
  });

  test('test.sh parses and passes ShellCheck', () => {
    expect(shellFindings([{ name: 'test.sh', text: testScript() }], TEST_SH)).toEqual([]);
  });

  test('every shell script a written task holds, in each layout, verifier mode and edition, passes ShellCheck', () => {
    const root = tempDir();
    const scripts: ShellScript[] = [];
    for (const layout of Object.keys(LAYOUTS) as Layout[])
      for (const verifierMode of VERIFIER_MODES.filter((m) => verifierModeProblem(layout, m) === undefined))
        for (const frozen of [false, true]) {
          const name = `t-${layout}-${verifierMode}-${frozen ? 'frozen' : 'live'}`;
          const dir = join(root, name);
          writeTaskFolder(dir, {
            name,
            layout,
            claims: [{ id: 'a', quote: 'q', url: 'http://127.0.0.1:9/a' }],
            gold: { a: 'verbatim' },
            instruction: instruction(1, ['a']),
            config: { agentTimeoutSec: 60, verifierTimeoutSec: 30 },
            variant: {},
            frozen,
            verifierMode,
            solve: { replay: frozen, runArgs: frozen ? [] : ['--allow-private', '--wayback-url', 'http://127.0.0.4/'] },
          });
          const found = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.sh'));
          for (const f of found) scripts.push({ name: `${name}/${f}`, text: readFileSync(join(dir, f), 'utf8') });
        }
    // Each written task (Harbor's layout in both modes, SkillsBench 1.1's shared only; live and frozen) has its solve.sh
    // and test.sh: a layout that moved them would leave nothing to check.
    expect(scripts.filter((s) => s.name.endsWith('/solve.sh'))).toHaveLength(6);
    expect(scripts.filter((s) => s.name.endsWith('/test.sh'))).toHaveLength(6);
    expect(shellFindings(scripts, TEST_SH)).toEqual([]);
  });

  test('build-images.sh, with the names and folders a dataset gives it, passes ShellCheck', () => {
    const images = [
      { ref: 'registry.example/quotecheck:news-wire-0123456789ab', context: 'news-wire/environment' },
      { ref: "registry.example/q:it's-1", context: "a folder/with 'quotes'" },
    ];
    expect(
      shellFindings([
        { name: 'build-images.sh', text: buildImagesScript(images) },
        { name: 'build-images.sh (verifier images)', text: buildImagesScript(images, 'registry.example/private') },
        { name: 'build-images.sh (no images)', text: buildImagesScript([]) },
      ]),
    ).toEqual([]);
  });

  test('the check finds what a broken script would hold', () => {
    const found = shellFindings([
      { name: 'unclosed', text: `${solveScript()}\nif true; then\n` },
      { name: 'unquoted', text: `${solveScript()}\n[ -n $LOGS ] && echo "$LOGS"\n` },
    ]);
    expect(found.some((f) => f.startsWith('unclosed: bash -n:'))).toBe(true);
    expect(found.some((f) => /^unquoted, line \d+: error: .*\[SC2070\]$/.test(f))).toBe(true);
  });
});
