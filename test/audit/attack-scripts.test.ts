// The cheat suite's scripts, as each attack writes them for tasks of every shape (Harbor's layout and SkillsBench
// 1.1's, gold files of odd names, claim ids that need quoting, tool folders or none), parse and pass ShellCheck, and so
// do the shell programs they write and leave running: their programs are filled in from src/audit/payloads/.
import { describe, expect, test } from 'vitest';
import { leftover, shellPiece, trojanScript, type AttackFacts } from '../../src/audit/attack-scripts.js';
import { ATTACKS } from '../../src/audit/attacks.js';
import { shellFindings, type Exclusions, type ShellScript } from '../support/shellcheck.js';

/** Tasks of every shape the attacks meet. */
const FACTS: readonly AttackFacts[] = [
  {
    answers: '/app/answers.json',
    verifierDir: '/tests',
    verifierFiles: [
      '/tests/test.sh',
      '/tests/grade.mjs',
      '/tests/gold.json',
      '/tests/x.py',
      '/tests/y.js',
      '/tests/run',
    ],
    goldPaths: ['/tests/gold.json', "/tests/it's gold.jsonl"],
    claimIds: ['c1', "c'2", 'c 3', '$(id)'],
    toolPaths: ['/opt/quotecheck', '/skills'],
  },
  {
    answers: '/app/out/answers.json',
    verifierDir: '/verifier',
    verifierFiles: ['/verifier/test.sh'],
    goldPaths: [],
    claimsNote: "the task's environment/claims.json names no claim ids",
    toolPaths: [],
  },
];

/** What ShellCheck would say of an attack script that is no problem there. */
const ATTACK_SCRIPTS: Exclusions = {
  SC2034: 'A, L and H are set by every attack script (payloads/script.sh) for whichever attack uses them',
  SC2164: 'cd /app 2>/dev/null with no exit: an attack goes on wherever it is, as an agent would',
  SC2016: 'code in single quotes is for `bash -c`, `node -e` or a profile line, to expand when it runs, not now',
  SC1003: "the '\\'' form (shellQuote) inside a single-quoted `bash -c` program, taken for an escape",
  SC2018: "tr 'A-Z' 'a-z' folds a file's name as ASCII to find gold*, label*: accents do not matter there",
  SC2019: "tr 'A-Z' 'a-z' folds a file's name as ASCII to find gold*, label*: accents do not matter there",
};

/** Every attack's scripts on every task shape, and the shell programs they write to files (heredocs). */
function attackScripts(): ShellScript[] {
  const scripts: ShellScript[] = [];
  FACTS.forEach((facts, i) => {
    for (const attack of ATTACKS)
      for (const plan of attack.plans(facts)) {
        if (!('script' in plan)) continue;
        const name = `${attack.id}${plan.variant ? ` (${plan.variant})` : ''} on task ${i}`;
        scripts.push({ name, text: plan.script });
        for (const m of plan.script.matchAll(/<<'QUOTECHECK_AUDIT_EOF'\n([\s\S]*?)QUOTECHECK_AUDIT_EOF/g))
          if (/^#!\/bin\/sh\n/.test(m[1]!))
            scripts.push({ name: `${name}: a file it writes`, text: m[1]!, shell: 'sh' });
      }
  });
  return scripts;
}

describe('the cheat suite as shell', () => {
  test('every attack script parses and passes ShellCheck, on tasks of every shape', () => {
    const scripts = attackScripts();
    expect(scripts.length).toBeGreaterThan(ATTACKS.length);
    expect(shellFindings(scripts, ATTACK_SCRIPTS)).toEqual([]);
  });

  test('the programs an attack leaves running and the trojans it plants parse and pass ShellCheck', () => {
    const scripts: ShellScript[] = [
      { name: 'trojan.sh', text: trojanScript(), shell: 'sh' },
      {
        name: 'leftover when-uploaded',
        text: shellPiece('leftover.sh', {
          BODY: shellPiece('when-uploaded.sh', {
            ANY: "[ -e '/tests/gold.json' ]",
            THEN: 'cp -f /tests/gold.json "$A"',
          }),
        }),
      },
      { name: 'detach', text: `A=/app/answers.json\n${leftover('echo "$A"')}\n` },
    ];
    expect(shellFindings(scripts, ATTACK_SCRIPTS)).toEqual([]);
  });
});
