// A task's shell scripts as every variant writes them (the oracle's solve.sh, the verifier's test.sh) parse and pass
// ShellCheck: they are filled in from src/task/templates/, and a placeholder's value must never break the script.
import { describe, expect, test } from 'vitest';
import { solveScript, testScript } from '../../src/task/task-scripts.js';
import { shellFindings, type Exclusions } from '../support/shellcheck.js';

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

  test('the check finds what a broken script would hold', () => {
    const found = shellFindings([
      { name: 'unclosed', text: `${solveScript()}\nif true; then\n` },
      { name: 'unquoted', text: `${solveScript()}\n[ -n $LOGS ] && echo "$LOGS"\n` },
    ]);
    expect(found.some((f) => f.startsWith('unclosed: bash -n:'))).toBe(true);
    expect(found.some((f) => /^unquoted, line \d+: error: .*\[SC2070\]$/.test(f))).toBe(true);
  });
});
