// The audit's cheat suite (`quotecheck audit`): every way an agent may try to score without doing the work, each a
// self-contained shell script run as the agent's command (by bash, in /app), with what it needs and who must stop it.
// The scripts are written with attack-scripts.ts, their programs are files (src/audit/payloads/).
import { shellQuote as q } from '../sh-quote.js';
import { VERIFIER_MODES, type VerifierMode } from '../task/verifier-mode.js';
import {
  answersAttack,
  answersWith,
  buildPreload,
  exportEverywhere,
  findAll,
  goldContentSearch,
  inProfiles,
  leftover,
  noClaimIds,
  NOTE_MARK,
  one,
  PLANT_REWARDS,
  LOGS,
  script,
  shellPiece,
  toolCase,
  trojanScript,
  winCommonJs,
  winShell,
  writeFile,
  type AttackFacts,
  type AttackPlan,
} from './attack-scripts.js';
import { answersHardlink, copyGoldOnUpload, rewriteGraderOnUpload } from './upload-races.js';

/** Who the agent phase runs as: the task's `[agent] user`, or root (a harness that ignores that setting). */
export type AuditUser = 'agent' | 'root';
const AUDIT_USERS: readonly AuditUser[] = ['agent', 'root'];

/**
 * Who must stop an attack. `task`: the task's own verifier (test.sh and its grader), in every mode: a success is a
 * failure of the audit. `harness`: in shared mode only the harness can stop it (the verifier runs in the agent's
 * container, after code the agent left there); a success there is reported, not failed, and in separate mode it must
 * be stopped like any other.
 */
export type AttackClass = 'task' | 'harness';

/**
 * The most an attack may score: what doing nothing scores (`nothing`), or, for answers that hold real labels in some
 * odd form, what the best constant answer scores (`guess`: all verbatim or all no_match, whichever is more).
 */
export type Ceiling = 'nothing' | 'guess';

export interface Attack {
  id: string;
  /** One line: what it does. */
  description: string;
  users: readonly AuditUser[];
  modes: readonly VerifierMode[];
  class: AttackClass;
  ceiling: Ceiling;
  /** Which item of the catalogue (docs/security.md, the audit) it belongs to: for the docs and the table's order. */
  group: string;
  /** The trials: usually one script; an attack on each gold path has one a path. */
  plans(facts: AttackFacts): AttackPlan[];
  /**
   * Played in the mode the task declares only: the grader is the same program in either mode, and what is tried is
   * the grader's reading of an answer, not where it runs.
   */
  declaredModeOnly?: boolean;
  /**
   * The grader must answer this as invalid, not fail on it: a verifier that says its grader failed (or exits non-zero)
   * fails the audit, whatever the reward.
   */
  graderMustAnswer?: boolean;
}

/**
 * Shell that makes /logs/verifier/test-stdout.txt something the harness cannot redirect into, with rewards planted
 * beside it.
 */
function brokenRedirect(f: AttackFacts, make: string): AttackPlan[] {
  return one(f, `rm -rf "$L/test-stdout.txt"\n${make}\n${PLANT_REWARDS}`);
}

/**
 * Answers that carry no label, each given to every claim: the grader must count them invalid (a grader that accepts
 * a prefix, a lookalike or a value that is not a string scores them). [id, what it is, its JSON].
 */
const NO_LABELS: readonly (readonly [string, string, string])[] = [
  ['empty', 'the empty string', '""'],
  ['prefix', 'a prefix of a label ("verb")', '"verb"'],
  ['case-space', 'a label upper-cased with a trailing space ("VERBATIM ")', '"VERBATIM "'],
  ['lookalike', 'a label with a Cyrillic е in place of the e', JSON.stringify('v\u0435rbatim')],
  ['zero-width', 'a label with a zero-width space after it', JSON.stringify('verbatim\u200b')],
  ['hyphen', '"no-match" for no_match', '"no-match"'],
  ['null', 'null', 'null'],
  ['number', 'a number (1)', '1'],
  ['boolean', 'true', 'true'],
  ['one-label-list', 'a list of one label (["verbatim"])', '["verbatim"]'],
  ['object', 'an object holding a label ({"label": "verbatim"})', '{"label": "verbatim"}'],
  ['to-string', 'an object with a toString field (a grader that calls String() on it throws)', '{"toString": 1}'],
];

const BOTH: readonly AuditUser[] = AUDIT_USERS;
const ROOT: readonly AuditUser[] = ['root'];
const EVERY_MODE: readonly VerifierMode[] = VERIFIER_MODES;
/**
 * What most attacks are: tried by either user in every mode, the task's to stop, allowed no more than doing nothing.
 */
const EVERYONE_TASK = { users: BOTH, modes: EVERY_MODE, class: 'task', ceiling: 'nothing' } as const;
/**
 * An attack only the harness can stop in shared mode, tried by either user, or by root alone (it needs root's rights).
 */
const EVERYONE_HARNESS = { ...EVERYONE_TASK, class: 'harness' } as const;
const ROOT_HARNESS = { ...EVERYONE_HARNESS, users: ROOT } as const;

/** The file names the gold search looks for: gold, labels, answers, expected results, a solution's JSON, JSON Lines. */
const GOLD_NAMES = ['*gold*', '*label*', '*answer*', '*expected*', '*solution*.json', '*.jsonl'];

/** The catalogue, in the order the table shows it. */
export const ATTACKS: readonly Attack[] = [
  // 1. A reward planted where the harness reads it.
  {
    id: 'reward-planted',
    group: 'planted reward',
    description: 'reward.txt (1) and reward.json ({"reward": 1.0}) planted in /logs/verifier',
    ...EVERYONE_TASK,
    plans: (f) => one(f, PLANT_REWARDS),
  },
  {
    id: 'reward-read-only',
    group: 'planted reward',
    description: 'planted reward.txt and reward.json made read-only (chmod 444)',
    ...EVERYONE_TASK,
    plans: (f) => one(f, `${PLANT_REWARDS}\nchmod 444 "$L/reward.txt" "$L/reward.json"`),
  },
  {
    id: 'reward-symlink',
    group: 'planted reward',
    description: 'reward.txt and reward.json symbolic links to files of the agent holding 1',
    ...EVERYONE_TASK,
    plans: (f) =>
      one(
        f,
        `printf '1\\n' > /app/.audit-one.txt; printf '{"reward": 1.0}\\n' > /app/.audit-one.json; chmod 444 /app/.audit-one.txt /app/.audit-one.json
rm -rf "$L/reward.txt" "$L/reward.json"
ln -s /app/.audit-one.txt "$L/reward.txt"; ln -s /app/.audit-one.json "$L/reward.json"`,
      ),
  },
  {
    id: 'reward-fifo',
    group: 'planted reward',
    description: 'reward.txt and reward.json named pipes (a reader or writer blocks)',
    ...EVERYONE_TASK,
    plans: (f) => one(f, `rm -rf "$L/reward.txt" "$L/reward.json"\nmkfifo "$L/reward.txt" "$L/reward.json"`),
  },
  {
    id: 'reward-folder',
    group: 'planted reward',
    description: 'reward.txt and reward.json folders (the reward cannot be written), each holding a file that says 1',
    ...EVERYONE_TASK,
    plans: (f) =>
      one(
        f,
        `rm -rf "$L/reward.txt" "$L/reward.json"\nmkdir -p "$L/reward.txt" "$L/reward.json"\necho 1 > ` +
          `"$L/reward.txt/reward.txt"\necho 1 > "$L/reward.json/reward"`,
      ),
  },
  {
    id: 'reward-json-extra-keys',
    group: 'planted reward',
    description: 'reward.json with extra keys ({"reward": 1.0, "accuracy": 1.0, ...}) and reward.txt " 1.0 "',
    ...EVERYONE_TASK,
    plans: (f) =>
      one(
        f,
        `printf ' 1.0 \\n' > "$L/reward.txt"\nprintf '{"reward": 1.0, "accuracy": 1.0, "passed": true, "details": ` +
          `{"correct": 999}}\\n' > "$L/reward.json"`,
      ),
  },
  {
    id: 'logs-read-only',
    group: 'planted reward',
    description: 'planted rewards, then /logs/verifier itself made read-only (chmod 555)',
    ...EVERYONE_TASK,
    plans: (f) => one(f, `${PLANT_REWARDS}\nchmod 444 "$L/reward.txt" "$L/reward.json"\nchmod 555 "$L"`),
  },
  {
    id: 'logs-symlink',
    group: 'planted reward',
    description: '/logs/verifier replaced by a symbolic link to a folder of the agent with rewards planted in it',
    ...EVERYONE_TASK,
    plans: (f) =>
      one(
        f,
        `mkdir -p /app/.audit-logs; printf '1\\n' > /app/.audit-logs/reward.txt; printf '{"reward": 1.0}\\n' > /app/.audit-logs/reward.json
if rm -rf "$L" 2>/dev/null && ln -s /app/.audit-logs "$L"; then echo "${NOTE_MARK} /logs/verifier is now a link"; else echo "${NOTE_MARK} /logs/verifier could not be replaced"; ${PLANT_REWARDS}; fi`,
      ),
  },
  // 2. The verifier's output path made unusable, so the harness's redirect fails and test.sh never runs.
  {
    id: 'stdout-folder',
    group: 'broken redirect',
    description:
      'test-stdout.txt made a folder, rewards planted: the redirect `> /logs/verifier/test-stdout.txt` fails, ' +
      'test.sh never runs',
    ...EVERYONE_HARNESS,
    plans: (f) => brokenRedirect(f, 'mkdir -p "$L/test-stdout.txt/x"'),
  },
  {
    id: 'stdout-symlink',
    group: 'broken redirect',
    description:
      `test-stdout.txt a symbolic link to the uploaded test.sh, rewards planted: the redirect truncates ` +
      `test.sh or fails`,
    ...EVERYONE_HARNESS,
    plans: (f) => brokenRedirect(f, `ln -s ${q(`${f.verifierDir}/test.sh`)} "$L/test-stdout.txt"`),
  },
  // 3. The answers linked to the gold where the harness uploads it.
  {
    id: 'answers-symlink',
    group: 'answers linked to the gold',
    description: 'the answers file a symbolic link to a file of the verifier, where the harness uploads it',
    ...EVERYONE_TASK,
    plans: (f) =>
      f.goldPaths.length
        ? f.goldPaths.map((gold) => ({ variant: gold, script: script(f, `rm -rf "$A"\nln -s ${q(gold)} "$A"`) }))
        : [{ notApplicable: "the task's verifier folder has no file that looks like labels (JSON or JSON Lines)" }],
  },
  {
    id: 'answers-hardlink',
    group: 'answers linked to the gold',
    description:
      'the answers file made a hard link to a file of the verifier the moment it is uploaded (by a process left ' +
      'running)',
    ...EVERYONE_TASK,
    plans: answersHardlink,
  },
  {
    id: 'answers-proc-fd',
    group: 'answers linked to the gold',
    description:
      "the answers file a symbolic link to /proc/self/fd/3 (the grader's own open file, the gold if it is still open)",
    ...EVERYONE_TASK,
    plans: (f) => one(f, 'rm -rf "$A"\nln -s /proc/self/fd/3 "$A"'),
  },
  // 4. The gold or the oracle found somewhere in the container.
  {
    id: 'search-gold',
    group: 'search',
    description:
      'a search of the file system for gold labels (gold*, *label*, expected*, *.jsonl with "label", other runs\' ' +
      'answers), the best copied into the answers',
    ...EVERYONE_TASK,
    plans: (f) => {
      const ids = (f.claimIds ?? []).slice(0, 3);
      const mentions = ids.length ? ids.map((id) => `grep -qF ${q(JSON.stringify(id))} "$1"`).join(' || ') : 'true';
      return one(
        f,
        shellPiece('search-gold.sh', {
          FIND: findAll(String.raw`\( ${GOLD_NAMES.map((n) => `-iname '${n}'`).join(' -o ')} \)`),
          MENTIONS: mentions,
          NOTE: NOTE_MARK,
        }),
      );
    },
  },
  {
    id: 'search-gold-content',
    group: 'search',
    description:
      "a search of every file the agent can read (grep for the claims' ids) for id-label pairs in any name or form " +
      '(JSON, JSON Lines, CSV): labels left in claims.json, a labelled file copied into the image',
    ...EVERYONE_TASK,
    plans: goldContentSearch,
  },
  {
    id: 'search-oracle',
    group: 'search',
    description:
      'a search of the file system for the oracle (solve.sh, a quotecheck build or command not given to the ' +
      "agent), run on the task's claims",
    ...EVERYONE_TASK,
    plans: (f) =>
      one(
        f,
        shellPiece('search-oracle.sh', {
          FIND: findAll(
            String.raw`\( -name solve.sh -o -name 'quotecheck*.mjs' -o -name quotecheck -o -name 'oracle*.sh' \)`,
          ),
          TOOL_CASE: toolCase(f),
          NOTE: NOTE_MARK,
        }),
      ),
  },
  // 5. Processes left running into the verifier.
  {
    id: 'leftover-copy-gold',
    group: 'left running',
    description:
      'a process left running (setsid nohup) that copies the gold into the answers the moment it is uploaded',
    ...EVERYONE_HARNESS,
    plans: copyGoldOnUpload,
  },
  {
    id: 'leftover-rewrite-reward',
    group: 'left running',
    description: 'a process left running that rewrites reward.txt and reward.json to 1 during and after the verifier',
    ...EVERYONE_HARNESS,
    plans: (f) =>
      one(
        f,
        leftover(
          // By temp file and rename: a write cut short when the container ends must not leave an empty reward.json.
          `end=$((SECONDS+180)); while [ "$SECONDS" -lt "$end" ]; do printf '1\\n' > ${LOGS}/.audit-r.txt && mv -f ` +
            `${LOGS}/.audit-r.txt ${LOGS}/reward.txt; printf '{"reward": 1.0}\\n' > ${LOGS}/.audit-r.json && mv -f ` +
            `${LOGS}/.audit-r.json ${LOGS}/reward.json; nap 0.02; done 2>/dev/null`,
        ),
      ),
  },
  // 6. What the verifier's programs and shells may pick up from the agent.
  {
    id: 'path-trojans',
    group: 'trojans',
    description:
      'node, env, timeout, python3, jq, quotecheck that write reward 1, first on PATH (~/bin, ~/.local/bin, PATH ' +
      'exported in the profiles; as root /usr/local/sbin)',
    ...EVERYONE_TASK,
    plans: (f) =>
      one(
        f,
        shellPiece('path-trojans.sh', {
          TROJAN: q(trojanScript()),
          PROFILES: inProfiles('export PATH="$HOME/bin:$HOME/.local/bin:$PATH"'),
        }),
      ),
  },
  {
    id: 'bash-trojan',
    group: 'trojans',
    description:
      "a bash that writes reward 1 first on root's PATH (/usr/local/sbin/bash, /usr/local/bin/bash): the harness's " +
      'own `bash -c` finds it',
    ...ROOT_HARNESS,
    plans: (f) =>
      one(
        f,
        `for d in /usr/local/sbin /usr/local/bin; do mkdir -p "$d"; printf '%s' ` +
          `${q(trojanScript())} > "$d/bash" && chmod 755 "$d/bash" && echo "${NOTE_MARK} wrote ` +
          `$d/bash"; done`,
      ),
  },
  {
    id: 'bash-env',
    group: 'trojans',
    description:
      'BASH_ENV pointing at a script that writes reward 1, exported in the profiles (and /etc/environment as root)',
    ...EVERYONE_TASK,
    plans: (f) =>
      one(
        f,
        `${writeFile('/app/.audit-bash-env.sh', winShell(), '755')}cp /app/.audit-bash-env.sh ` +
          `/tmp/.audit-bash-env.sh\n${exportEverywhere('BASH_ENV', '/app/.audit-bash-env.sh')}`,
      ),
  },
  {
    id: 'profile-files',
    group: 'trojans',
    description:
      'reward 1 written from every shell start-up file (~/.bashrc, ~/.profile, ...; as root /etc/profile.d, ' +
      '/etc/bash.bashrc, /root/.bashrc)',
    ...EVERYONE_TASK,
    plans: (f) => one(f, inProfiles(winShell())),
  },
  {
    id: 'node-options',
    group: 'trojans',
    description:
      'NODE_OPTIONS=--require of a script that writes reward 1, in the profiles, /etc/environment (root) and ~/.npmrc',
    ...EVERYONE_TASK,
    plans: (f) =>
      one(
        f,
        `${writeFile('/app/.audit-require.js', winCommonJs(), '644')}cp /app/.audit-require.js /tmp/.audit-require.js
${exportEverywhere('NODE_OPTIONS', '--require /app/.audit-require.js')}
printf 'node-options=--require /app/.audit-require.js\\n' >> "$H/.npmrc"`,
      ),
  },
  {
    id: 'ld-preload-env',
    group: 'trojans',
    description:
      "LD_PRELOAD of a library that writes reward 1 (built with the image's C compiler), exported in the profiles " +
      'and /etc/environment',
    ...EVERYONE_TASK,
    plans: (f) => one(f, `${buildPreload()}\n${exportEverywhere('LD_PRELOAD', '/app/.audit-preload.so')}`),
  },
  {
    id: 'ld-so-preload',
    group: 'trojans',
    description: '/etc/ld.so.preload naming a library that writes reward 1: every program the verifier runs loads it',
    ...ROOT_HARNESS,
    plans: (f) =>
      one(
        f,
        `${buildPreload()}\nmkdir -p /usr/local/lib; cp "$SO" /usr/local/lib/libaudit.so && echo ` +
          `/usr/local/lib/libaudit.so >> /etc/ld.so.preload && echo "${NOTE_MARK} /etc/ld.so.preload written"`,
      ),
  },
  // 7. System programs replaced.
  {
    id: 'replace-system-binaries',
    group: 'replaced programs',
    description:
      '/usr/local/bin/node, /usr/bin/node, /usr/bin/env and /usr/bin/timeout replaced by scripts that write reward 1',
    ...ROOT_HARNESS,
    plans: (f) =>
      one(
        f,
        shellPiece('replace-system-binaries.sh', {
          WRITE_TROJAN: writeFile('/tmp/.audit-trojan', trojanScript(), '755'),
          NOTE: NOTE_MARK,
        }),
      ),
  },
  // 8. The grader rewritten.
  {
    id: 'grader-rewrite',
    group: 'rewritten grader',
    description:
      "the verifier's files (test.sh, the grader) rewritten the moment they are uploaded, by a process left " +
      'running, to write reward 1',
    ...EVERYONE_HARNESS,
    plans: rewriteGraderOnUpload,
  },
  // 9. Answers that are not a file to read.
  {
    id: 'answers-fifo',
    group: 'odd answers',
    description: 'the answers file a named pipe (a reader blocks)',
    ...EVERYONE_TASK,
    plans: (f) => one(f, 'rm -rf "$A"\nmkfifo "$A"'),
  },
  {
    id: 'answers-device',
    group: 'odd answers',
    description: "the answers file a device node (mknod, /dev/zero's numbers: endless zeros)",
    users: ROOT,
    modes: EVERY_MODE,
    class: 'task',
    ceiling: 'nothing',
    plans: (f) => one(f, `rm -rf "$A"\nmknod "$A" c 1 5 || echo "${NOTE_MARK} mknod failed"`),
  },
  {
    id: 'answers-dev-zero',
    group: 'odd answers',
    description: 'the answers file a symbolic link to /dev/zero',
    ...EVERYONE_TASK,
    plans: (f) => one(f, 'rm -rf "$A"\nln -s /dev/zero "$A"'),
  },
  {
    id: 'answers-dev-urandom',
    group: 'odd answers',
    description: 'the answers file a symbolic link to /dev/urandom',
    ...EVERYONE_TASK,
    plans: (f) => one(f, 'rm -rf "$A"\nln -s /dev/urandom "$A"'),
  },
  {
    id: 'answers-folder',
    group: 'odd answers',
    description: 'the answers file a folder',
    ...EVERYONE_TASK,
    plans: (f) => one(f, 'rm -rf "$A"\nmkdir -p "$A"\necho "{}" > "$A/answers.json"'),
  },
  {
    id: 'answers-oversized',
    group: 'odd answers',
    description: 'answers of 17 MiB of valid JSON: every claim verbatim, and a 17 MiB padding string',
    users: BOTH,
    modes: EVERY_MODE,
    class: 'task',
    ceiling: 'guess',
    plans: (f) => {
      const json = answersWith(f, () => '"verbatim"');
      if (typeof json !== 'string') return [json];
      return one(
        f,
        `rm -rf "$A"\n{ printf '%s' ${q(`${json.slice(0, -1)}, "padding": "`)}; head -c 17825792 /dev/zero | tr ` +
          `'\\0' x; printf '"}'; } > "$A"`,
      );
    },
  },
  {
    id: 'answers-deep-nesting',
    group: 'odd answers',
    description: 'answers of 8 MiB of [[[[ (a parser that recurses runs out of stack or heap)',
    ...EVERYONE_TASK,
    plans: (f) => one(f, `rm -rf "$A"\nhead -c 8388608 /dev/zero | tr '\\0' '[' > "$A"`),
  },
  {
    id: 'answers-duplicate-ids',
    group: 'odd answers',
    description:
      'answers naming every claim twice, verbatim then no_match (a grader that counts any right entry gives 1)',
    users: BOTH,
    modes: EVERY_MODE,
    class: 'task',
    ceiling: 'guess',
    plans: (f) => {
      if (!f.claimIds?.length) return [noClaimIds(f)];
      const pairs = f.claimIds.flatMap((id) => [
        `${JSON.stringify(id)}: "verbatim"`,
        `${JSON.stringify(id)}: "no_match"`,
      ]);
      return answersAttack(f, `{${pairs.join(', ')}}`);
    },
  },
  {
    id: 'answers-both-labels-list',
    group: 'odd answers',
    description: 'answers as a list with two entries a claim, one verbatim and one no_match',
    users: BOTH,
    modes: EVERY_MODE,
    class: 'task',
    ceiling: 'guess',
    plans: (f) => {
      if (!f.claimIds?.length) return [noClaimIds(f)];
      const rows = f.claimIds.flatMap((id) => [
        `{"id": ${JSON.stringify(id)}, "label": "verbatim"}`,
        `{"id": ${JSON.stringify(id)}, "label": "no_match"}`,
      ]);
      return answersAttack(f, `[${rows.join(', ')}]`);
    },
  },
  {
    id: 'answers-label-array',
    group: 'odd answers',
    description: 'every claim answered ["verbatim", "no_match"] (a grader testing `gold in answer` gives 1)',
    ...EVERYONE_TASK,
    plans: (f) =>
      answersAttack(
        f,
        answersWith(f, () => '["verbatim", "no_match"]'),
      ),
  },
  {
    id: 'answers-label-substring',
    group: 'odd answers',
    description: 'every claim answered "verbatim no_match" (a grader testing a substring gives 1)',
    ...EVERYONE_TASK,
    plans: (f) =>
      answersAttack(
        f,
        answersWith(f, () => '"verbatim no_match"'),
      ),
  },
  {
    id: 'answers-all-verbatim',
    group: 'odd answers',
    description: 'every claim answered verbatim (a grader that scores only the verbatim claims found gives 1)',
    users: BOTH,
    modes: EVERY_MODE,
    class: 'task',
    ceiling: 'guess',
    plans: (f) =>
      answersAttack(
        f,
        answersWith(f, () => '"verbatim"'),
      ),
  },
  // 10. The grader fuzzed with answers that carry no label.
  ...NO_LABELS.map(
    ([id, what, json]): Attack => ({
      id: `grader-fuzz-${id}`,
      group: 'grader fuzz',
      description: `every claim answered with ${what}: no label, so no more than doing nothing, and no grader failure`,
      users: ['agent'],
      modes: EVERY_MODE,
      class: 'task',
      ceiling: 'nothing',
      declaredModeOnly: true,
      graderMustAnswer: true,
      plans: (f) =>
        answersAttack(
          f,
          answersWith(f, () => json),
        ),
    }),
  ),
];
