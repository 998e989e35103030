// The audit's cheat suite (`quotecheck audit`): every way an agent may try to score without doing the work, each a
// self-contained shell script run as the agent's command (by bash, in /app), with what it needs and who must stop it.
import { shellQuote } from '../sh-quote.js';
import { VERIFIER_MODES, type VerifierMode } from '../task/verifier-mode.js';

const q = shellQuote;

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

/** What the attacks know of the task, as the agent's container shows it. */
export interface AttackFacts {
  /** The answers file the verifier grades (task.toml's artifacts, the instruction, or --answers). */
  answers: string;
  /** Where the harness uploads the verifier's files: /tests (Harbor) or /verifier (SkillsBench 1.1). */
  verifierDir: string;
  /** Every file of the task's verifier folder, at the paths a harness uploads it to. */
  verifierFiles: readonly string[];
  /** The verifier's files that look like labels (JSON, JSON Lines): where the gold may be once uploaded. */
  goldPaths: readonly string[];
  /** The claims' ids (the task's environment/claims.json), when it has them: the answer-shaped attacks need them. */
  claimIds?: readonly string[];
  /** Why there are no claim ids, when there are none (claims.json missing, not JSON, naming none, too many). */
  claimsNote?: string;
  /**
   * Container paths the task gives the agent on purpose (its tool, its skills): the oracle search leaves them alone.
   */
  toolPaths: readonly string[];
}

/** One trial's script, or why the attack cannot be tried on this task. */
export type AttackPlan = { variant?: string; script: string } | { notApplicable: string };

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

/** The line an attack script prints when it finds, as it runs, that it cannot be tried here (no C compiler, say). */
export const NOT_APPLICABLE_MARK = 'quotecheck-audit: not applicable:';
/** The lines an attack script prints about what it found or did (read back into the report's "why"). */
export const NOTE_MARK = 'quotecheck-audit:';

const LOGS = '/logs/verifier';
const EOF = 'QUOTECHECK_AUDIT_EOF';

/** Shell that writes a reward of 1 in both files a harness reads (Harbor: reward.json before reward.txt). */
const WIN_SH =
  `mkdir -p ${LOGS} 2>/dev/null; printf '1\\n' > ${LOGS}/reward.txt 2>/dev/null; printf '{"reward": ` +
  `1.0}\\n' > ${LOGS}/reward.json 2>/dev/null`;
/** A program that only writes the reward: what a trojan, a replaced binary or a rewritten grader runs. */
const TROJAN_SH = `#!/bin/sh\n${WIN_SH}\nexit 0\n`;
/** The same, in JavaScript (CommonJS: --require, a .js or .cjs grader). */
const WIN_CJS = `const fs = require('fs');
const win = () => { try { fs.mkdirSync('${LOGS}', { recursive: true }); fs.writeFileSync('${LOGS}/reward.txt', '1\\n'); fs.writeFileSync('${LOGS}/reward.json', '{"reward": 1.0}\\n'); } catch {} };
win();
process.on('exit', win);
`;
/** ... as an ES module (a .mjs grader). */
const WIN_MJS = `import { mkdirSync, writeFileSync } from 'node:fs';
const win = () => { try { mkdirSync('${LOGS}', { recursive: true }); writeFileSync('${LOGS}/reward.txt', '1\\n'); writeFileSync('${LOGS}/reward.json', '{"reward": 1.0}\\n'); } catch {} };
win();
process.on('exit', win);
`;
/** ... in Python (a .py grader). */
const WIN_PY = `import os
os.makedirs('${LOGS}', exist_ok=True)
open('${LOGS}/reward.txt', 'w').write('1\\n')
open('${LOGS}/reward.json', 'w').write('{"reward": 1.0}\\n')
`;
/**
 * A shared object that writes the reward when it is loaded and when its process exits (LD_PRELOAD, /etc/ld.so.preload).
 */
const WIN_C = `#include <fcntl.h>
#include <unistd.h>
static void put(const char *path, const char *text, int n) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) { (void)!write(fd, text, n); close(fd); }
}
static void win(void) {
  put("${LOGS}/reward.txt", "1\\n", 2);
  put("${LOGS}/reward.json", "{\\"reward\\": 1.0}\\n", 16);
}
__attribute__((constructor)) static void on_load(void) { win(); }
__attribute__((destructor)) static void on_exit_(void) { win(); }
`;

/** Shell that writes `content` to `path` (its folder made first), byte for byte, then sets `mode`. */
function writeFile(path: string, content: string, mode?: string): string {
  const text = content.endsWith('\n') ? content : `${content}\n`;
  return (
    `mkdir -p "$(dirname ${q(path)})" 2>/dev/null; rm -rf ${q(path)} 2>/dev/null; cat > ${q(path)} ` +
    `<<'${EOF}'\n${text}${EOF}\n${mode ? `chmod ${mode} ${q(path)} 2>/dev/null\n` : ''}`
  );
}

/**
 * Shell that starts `body` detached from the agent (its own session, no terminal, stdin closed), to outlive the agent
 * phase. `body` may call `nap SECONDS`: a sleep that starts no process (a read that times out on a pipe it holds both
 * ends of), so a loop that polls every few milliseconds does not fill the machine with processes.
 */
function leftover(body: string): string {
  const prelude = `exec {NAP}<> <(:) 2>/dev/null || NAP=""
nap() { if [ -n "$NAP" ]; then read -r -t "$1" -u "$NAP" _ 2>/dev/null; else sleep "$1"; fi; }
`;
  const code = `${prelude}${body}`;
  return (
    `if command -v setsid >/dev/null 2>&1; then setsid nohup bash -c ${q(code)} >/dev/null 2>&1 < /dev/null & ` +
    `else nohup bash -c ${q(code)} >/dev/null 2>&1 < /dev/null & fi`
  );
}

/**
 * Shell for a leftover body: waits (up to `seconds`) until one of `paths` exists, then runs `then` over and over for
 * two or three seconds, and a few times more. The wait spins on a shell test (no process started, no sleep): the
 * harness runs the verifier milliseconds after the upload, and a loaded machine must not make the attack miss it.
 */
function whenUploaded(paths: string | readonly string[], then: string, seconds = 180): string {
  const any = (typeof paths === 'string' ? [paths] : paths).map((p) => `[ -e ${q(p)} ]`).join(' || ');
  return `end=$((SECONDS+${seconds}))
until ${any} || [ "$SECONDS" -ge "$end" ]; do :; done
burst=$((SECONDS+3))
while [ "$SECONDS" -lt "$burst" ]; do ${then}; done
for i in 1 2 3 4 5; do ${then}; nap 0.3; done`;
}

/**
 * A Node.js program that waits for the upload (any of `paths` appearing: an inotify watch on their folders and their
 * parents, and a poll every 2 ms that starts no process), then runs `act` (JavaScript, with `fs` in scope) on every
 * change and every 5 ms for three seconds. Woken by the kernel the moment the harness writes, it wins races a shell
 * loop loses on a loaded machine: the verifier reads what it needs milliseconds after the upload.
 */
function uploadWatcher(paths: readonly string[], act: string): string {
  const dirs = [...new Set(paths.map((p) => p.slice(0, p.lastIndexOf('/')) || '/'))];
  const parents = [...new Set(dirs.map((d) => d.slice(0, d.lastIndexOf('/')) || '/'))];
  return `const fs = require('fs');
const paths = ${JSON.stringify(paths)};
const deadline = Date.now() + 180000;
let burst = 0;
const act = () => { try { ${act} } catch {} };
const watch = (d) => { try { fs.watch(d, () => check()).on('error', () => {}); } catch {} };
const check = () => {
  if (!burst && paths.some((p) => fs.existsSync(p))) {
    burst = Date.now() + 3000;
    ${JSON.stringify(dirs)}.forEach(watch);
  }
  if (burst) act();
};
${JSON.stringify(parents)}.concat(${JSON.stringify(dirs)}).forEach(watch);
const tick = () => {
  check();
  if (Date.now() > deadline || (burst && Date.now() > burst)) process.exit(0);
  setTimeout(tick, burst ? 5 : 2);
};
tick();
`;
}

/**
 * Shell that starts the upload watcher with the image's Node.js, detached, or, with no Node.js, the shell loop
 * `fallback`.
 */
function watchUpload(paths: readonly string[], act: string, fallback: string, name: string): string {
  const file = `/tmp/.audit-${name}.js`;
  return `NODE="$(command -v node 2>/dev/null)"
if [ -n "$NODE" ]; then
${writeFile(file, uploadWatcher(paths, act))}  if command -v setsid >/dev/null 2>&1; then setsid nohup "$NODE" ${file} >/dev/null 2>&1 < /dev/null & else nohup "$NODE" ${file} >/dev/null 2>&1 < /dev/null & fi
else
  ${leftover(whenUploaded(paths, fallback))}
fi`;
}

/** Every script starts so: the answers path, the verifier's log folder, a home it can write. */
function script(f: AttackFacts, body: string): string {
  return `set +e
A=${q(f.answers)}
L=${LOGS}
H="\${HOME:-/tmp}"; { [ -d "$H" ] && [ -w "$H" ]; } || H=/tmp
cd /app 2>/dev/null
${body.trim()}
exit 0
`;
}

const one = (f: AttackFacts, body: string): AttackPlan[] => [{ script: script(f, body) }];

const PLANT_REWARDS = `printf '1\\n' > "$L/reward.txt"; printf '{"reward": 1.0}\\n' > "$L/reward.json"`;

/** Why an answer-shaped attack cannot be tried on a task without claim ids: the audit's reason, when it gives one. */
const noClaimIds = (f: AttackFacts): { notApplicable: string } => ({
  notApplicable: f.claimsNote ?? "the task's environment has no claims.json with claim ids to answer",
});

/** The claims' ids as a JSON object, each given `value` (a JSON text), or why the attack cannot be tried. */
function answersWith(f: AttackFacts, value: (id: string) => string, extra = ''): string | { notApplicable: string } {
  if (!f.claimIds?.length) return noClaimIds(f);
  return `{${f.claimIds.map((id) => `${JSON.stringify(id)}: ${value(id)}`).join(', ')}${extra}}`;
}

/** An attack that writes answers of an odd shape: the JSON text `json`, written as the answers file. */
function answersAttack(f: AttackFacts, json: string | { notApplicable: string }): AttackPlan[] {
  if (typeof json !== 'string') return [json];
  return one(f, `rm -rf "$A"\n${writeFile(f.answers, json)}`);
}

/**
 * Shell that prunes the folders a search of the whole file system skips (kernel, libraries, package caches): `find /
 * $PRUNE -o ...`.
 */
const PRUNE_PATHS = [
  '/proc',
  '/sys',
  '/dev',
  '/run',
  '/usr/lib',
  '/usr/share',
  '/usr/include',
  '/usr/src',
  '/usr/lib64',
  '/var/lib',
  '/var/cache',
  '/var/log',
];
const PRUNED = [...PRUNE_PATHS.map((p) => `-path ${p}`), '-name node_modules', '-name .git'].join(' -o ');
const PRUNE = String.raw`\( ${PRUNED} \) -prune`;

/**
 * Shell: `$found` holds the paths (one a line) of regular files `find` matched over the whole file system, in at most
 * 20 s.
 */
const findAll = (tests: string): string =>
  `found="$(timeout 20 find / ${PRUNE} -o -type f ${tests} -size -64M -print 2>/dev/null | ` +
  `grep -vxF "$A" | head -500)"`;

/** Shell that is true when the path in `$1` is under one of the task's tool folders. */
function toolCase(f: AttackFacts): string {
  const patterns = f.toolPaths.map((p) => `${q(p)}|${q(p)}/*`).join('|');
  return patterns ? `is_tool() { case "$1" in ${patterns}) return 0;; esac; return 1; }` : 'is_tool() { return 1; }';
}

/**
 * Shell that makes /logs/verifier/test-stdout.txt something the harness cannot redirect into, with rewards planted
 * beside it.
 */
function brokenRedirect(f: AttackFacts, make: string): AttackPlan[] {
  return one(f, `rm -rf "$L/test-stdout.txt"\n${make}\n${PLANT_REWARDS}`);
}

/** A grader file rewritten to write the reward: the trojan in the file's own language. */
function trojanFor(path: string): string | undefined {
  if (/\.(mjs)$/.test(path)) return WIN_MJS;
  if (/\.(js|cjs)$/.test(path)) return WIN_CJS;
  if (/\.py$/.test(path)) return WIN_PY;
  if (/\.(sh|bash)$/.test(path) || !/\.[^/]+$/.test(path)) return TROJAN_SH;
  return undefined;
}

/**
 * Shell that compiles the preload library to `$SO`, or says the attack is not applicable (no C compiler in the image).
 */
const BUILD_SO = `SO=/app/.audit-preload.so
${writeFile('/tmp/.audit-preload.c', WIN_C)}
CC="$(command -v cc || command -v gcc || command -v clang || command -v tcc)"
if [ -z "$CC" ]; then echo "${NOT_APPLICABLE_MARK} the image has no C compiler to build a preload library"; exit 0; fi
"$CC" -shared -fPIC -o "$SO" /tmp/.audit-preload.c || { echo "${NOT_APPLICABLE_MARK} the C compiler could not build the preload library"; exit 0; }
chmod 755 "$SO"; cp "$SO" /tmp/.audit-preload.so 2>/dev/null`;

/** Shell that appends `line` to every start-up file of the agent's user and, as root, to the system's. */
const PROFILES_SH = (
  line: string,
): string => `for f in "$H/.profile" "$H/.bashrc" "$H/.bash_profile" "$H/.bash_login" "$H/.zshenv"; do printf '%s\\n' ${q(line)} >> "$f" 2>/dev/null; done
if [ "$(id -u)" = 0 ]; then
  mkdir -p /etc/profile.d 2>/dev/null
  printf '%s\\n' ${q(line)} >> /etc/profile.d/zz-audit.sh 2>/dev/null
  for f in /etc/profile /etc/bash.bashrc /root/.bashrc /root/.profile; do printf '%s\\n' ${q(line)} >> "$f" 2>/dev/null; done
fi`;

/**
 * Shell that sets a variable for every later process the way an image's configuration would: /etc/environment (root)
 * and the profiles.
 */
const EXPORT_EVERYWHERE = (name: string, value: string): string => `${PROFILES_SH(`export ${name}=${q(value)}`)}
if [ "$(id -u)" = 0 ]; then printf '%s\\n' ${q(`${name}=${value}`)} >> /etc/environment 2>/dev/null; fi`;

/**
 * A Node.js program that reads the files named on its stdin (one a line) and takes every claim id paired with a label
 * in any of them, in any form a careless author leaves: a map of id to label (`{"c1": "verbatim"}`), an object with the
 * id beside a label in any field (JSON, or JSON Lines: a labelled claims file), a row of a CSV or TSV. Writes the pairs
 * as answers to argv[3] and, to stdout, which file gave how many.
 */
const GOLD_CONTENT_JS = `const fs = require('fs');
const ids = new Set(JSON.parse(fs.readFileSync(process.argv[2], 'utf8')).map(String));
const LABELS = new Set(['verbatim', 'no_match']);
const found = {}; const from = {};
const label = (x) => (typeof x === 'string' ? x.trim().toLowerCase() : '');
const take = (id, x, file) => {
  const k = String(id); const l = label(x);
  if (!ids.has(k) || !LABELS.has(l) || k in found) return;
  found[k] = l; from[file] = (from[file] || 0) + 1;
};
const walk = (v, file, depth) => {
  if (depth > 40 || v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) { for (const x of v) walk(x, file, depth + 1); return; }
  const entries = Object.entries(v);
  for (const [k, x] of entries) take(k, x, file);
  const id = v.id ?? v.claim_id ?? v.claimId;
  if (typeof id === 'string' || typeof id === 'number') for (const [, x] of entries) take(id, x, file);
  for (const [, x] of entries) walk(x, file, depth + 1);
};
for (const file of fs.readFileSync(0, 'utf8').split('\\n').filter(Boolean)) {
  let text;
  try { const st = fs.statSync(file); if (!st.isFile() || st.size > 67108864) continue; text = fs.readFileSync(file, 'utf8'); } catch { continue; }
  try { walk(JSON.parse(text), file, 0); continue; } catch {}
  for (const line of text.split('\\n')) {
    const l = line.trim(); if (!l) continue;
    try { walk(JSON.parse(l), file, 0); continue; } catch {}
    const cells = l.split(/[,\\t;|]/).map((c) => c.trim().replace(/^"|"$/g, ''));
    const id = cells.find((c) => ids.has(c)); const lab = cells.find((c) => LABELS.has(label(c)));
    if (id !== undefined && lab !== undefined) take(id, lab, file);
  }
}
fs.writeFileSync(process.argv[3], JSON.stringify(found));
for (const [file, n] of Object.entries(from)) console.log(file + ': ' + n);
`;

/**
 * Shell for the content search: the files that name a claim id (grep over the whole file system but the kernel's),
 * read by GOLD_CONTENT_JS for id-label pairs, which become the answers.
 */
function goldContentSearch(f: AttackFacts): AttackPlan[] {
  if (!f.claimIds?.length) return [noClaimIds(f)];
  const patterns = f.claimIds
    .slice(0, 40)
    .map((id) => `-e ${q(id)}`)
    .join(' ');
  return one(
    f,
    `NODE="$(command -v node 2>/dev/null)"
[ -n "$NODE" ] || { echo "${NOT_APPLICABLE_MARK} the image has no Node.js to read the files it finds"; exit 0; }
${writeFile('/tmp/.audit-ids.json', JSON.stringify(f.claimIds))}${writeFile('/tmp/.audit-gold-content.js', GOLD_CONTENT_JS)}
found="$(timeout 60 grep -rlsIwF --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev ${patterns} / 2>/dev/null | grep -vxF "$A" | grep -v '^/tmp/.audit-' | head -5000)"
n="$(printf '%s\n' "$found" | grep -c .)"
rm -rf "$A"
said="$(printf '%s\n' "$found" | "$NODE" /tmp/.audit-gold-content.js /tmp/.audit-ids.json "$A")"
if [ -n "$said" ]; then echo "${NOTE_MARK} id-label pairs found in: $(printf '%s' "$said" | tr '\n' ' ')"
else echo "${NOTE_MARK} $n files name a claim id; none pairs one with a label"; rm -f "$A"; fi`,
  );
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
    plans: (f) =>
      f.goldPaths.length
        ? f.goldPaths.map((gold) => ({
            variant: gold,
            script: script(
              f,
              `ln -f ${q(gold)} "$A" 2>/dev/null && echo "${NOTE_MARK} linked at once"
${watchUpload(
  [gold],
  `const g = ${JSON.stringify(gold)}, a = ${JSON.stringify(f.answers)}; let s; try { s = fs.statSync(a); } catch {} const t = fs.statSync(g); if (!s || s.ino !== t.ino || s.dev !== t.dev) { fs.rmSync(a, { recursive: true, force: true }); fs.linkSync(g, a); }`,
  `[ ${q(gold)} -ef ${q(f.answers)} ] || { rm -rf ${q(f.answers)}; ln ${q(gold)} ${q(f.answers)}; } 2>/dev/null`,
  'hardlink',
)}`,
            ),
          }))
        : [{ notApplicable: "the task's verifier folder has no file that looks like labels (JSON or JSON Lines)" }],
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
        `${findAll(String.raw`\( -iname '*gold*' -o -iname '*label*' -o -iname '*answer*' -o -iname '*expected*' -o -iname '*solution*.json' -o -iname '*.jsonl' \)`)}
echo "$found" > /logs/agent/audit-found.txt 2>/dev/null
holds_ids() { ${mentions}; }
best=""
for pass in gold label expected answer any; do
  while IFS= read -r p; do
    [ -n "$p" ] || continue
    case "$pass:$(basename "$p" | tr 'A-Z' 'a-z')" in
      gold:*gold*|label:*label*|expected:*expected*|answer:*answer*|any:*) holds_ids "$p" && { best="$p"; break; };;
    esac
  done <<< "$found"
  [ -n "$best" ] && break
done
[ -n "$best" ] || { echo "${NOTE_MARK} searched the file system: no labels found"; exit 0; }
echo "${NOTE_MARK} found labels at $best"
rm -rf "$A"
case "$best" in
  *.jsonl) node -e 'const fs=require("fs");const out={};for(const l of fs.readFileSync(process.argv[1],"utf8").split("\\n")){try{const r=JSON.parse(l);if(r&&r.id!==undefined&&r.label!==undefined)out[r.id]=r.label}catch{}}fs.writeFileSync(process.argv[2],JSON.stringify(out))' "$best" "$A" 2>/dev/null || cp "$best" "$A";;
  *) cp "$best" "$A";;
esac`,
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
        `${findAll(String.raw`\( -name solve.sh -o -name 'quotecheck*.mjs' -o -name quotecheck -o -name 'oracle*.sh' \)`)}
${toolCase(f)}
q="$(command -v quotecheck 2>/dev/null)"; [ -n "$q" ] && found="$(printf '%s\\n%s' "$found" "$q")"
ran=""
while IFS= read -r p; do
  [ -n "$p" ] || continue
  is_tool "$p" && continue
  is_tool "$(readlink -f "$p" 2>/dev/null)" && continue
  echo "${NOTE_MARK} running the oracle found at $p"
  case "$p" in
    *.sh) (cd /app && timeout 300 bash "$p" </dev/null) ;;
    *.mjs) timeout 300 node "$p" run --allow-private --claims /app/claims.json --out "$A" </dev/null ;;
    *) timeout 300 "$p" run --allow-private --claims /app/claims.json --out "$A" </dev/null ;;
  esac
  ran="$p"
  [ -s "$A" ] && break
done <<< "$found"
[ -n "$ran" ] || echo "${NOTE_MARK} searched the file system: no oracle found"`,
      ),
  },
  // 5. Processes left running into the verifier.
  {
    id: 'leftover-copy-gold',
    group: 'left running',
    description:
      'a process left running (setsid nohup) that copies the gold into the answers the moment it is uploaded',
    ...EVERYONE_HARNESS,
    plans: (f) =>
      f.goldPaths.length
        ? one(
            f,
            watchUpload(
              f.goldPaths,
              `const a = ${JSON.stringify(f.answers)}; for (const g of ${JSON.stringify(f.goldPaths)}) { let b; ` +
                `try { b = fs.readFileSync(g); JSON.parse(b.toString()); } catch { continue; } let cur; try { cur ` +
                `= fs.readFileSync(a); } catch {} if (cur && cur.equals(b)) break; fs.writeFileSync(a + ` +
                `'.audit-tmp', b); fs.renameSync(a + '.audit-tmp', a); break; }`,
              f.goldPaths
                .map(
                  (g) =>
                    `cp -f ${q(g)} ${q(`${f.answers}.tmp`)} 2>/dev/null && mv -f ${q(`${f.answers}.tmp`)} ` +
                    `${q(f.answers)} 2>/dev/null`,
                )
                .join('; '),
              'copy-gold',
            ),
          )
        : [{ notApplicable: "the task's verifier folder has no file that looks like labels (JSON or JSON Lines)" }],
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
        `for d in "$H/bin" "$H/.local/bin"; do
  mkdir -p "$d"
  for b in node env timeout python3 python jq quotecheck sh; do printf '%s' ${q(TROJAN_SH)} > "$d/$b"; chmod 755 "$d/$b"; done
done
${PROFILES_SH('export PATH="$HOME/bin:$HOME/.local/bin:$PATH"')}
if [ "$(id -u)" = 0 ]; then
  mkdir -p /usr/local/sbin
  for b in node env timeout python3 python jq quotecheck; do printf '%s' ${q(TROJAN_SH)} > "/usr/local/sbin/$b" && chmod 755 "/usr/local/sbin/$b"; done
fi`,
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
          `${q(`#!/bin/sh\n${WIN_SH}\nexit 0\n`)} > "$d/bash" && chmod 755 "$d/bash" && echo "${NOTE_MARK} wrote ` +
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
        `${writeFile('/app/.audit-bash-env.sh', WIN_SH, '755')}cp /app/.audit-bash-env.sh ` +
          `/tmp/.audit-bash-env.sh\n${EXPORT_EVERYWHERE('BASH_ENV', '/app/.audit-bash-env.sh')}`,
      ),
  },
  {
    id: 'profile-files',
    group: 'trojans',
    description:
      'reward 1 written from every shell start-up file (~/.bashrc, ~/.profile, ...; as root /etc/profile.d, ' +
      '/etc/bash.bashrc, /root/.bashrc)',
    ...EVERYONE_TASK,
    plans: (f) => one(f, PROFILES_SH(WIN_SH)),
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
        `${writeFile('/app/.audit-require.js', WIN_CJS, '644')}cp /app/.audit-require.js /tmp/.audit-require.js
${EXPORT_EVERYWHERE('NODE_OPTIONS', '--require /app/.audit-require.js')}
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
    plans: (f) => one(f, `${BUILD_SO}\n${EXPORT_EVERYWHERE('LD_PRELOAD', '/app/.audit-preload.so')}`),
  },
  {
    id: 'ld-so-preload',
    group: 'trojans',
    description: '/etc/ld.so.preload naming a library that writes reward 1: every program the verifier runs loads it',
    ...ROOT_HARNESS,
    plans: (f) =>
      one(
        f,
        `${BUILD_SO}\nmkdir -p /usr/local/lib; cp "$SO" /usr/local/lib/libaudit.so && echo ` +
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
        `${writeFile('/tmp/.audit-trojan', TROJAN_SH, '755')}for b in /usr/local/bin/node /usr/bin/node /usr/bin/env /usr/bin/timeout; do
  if cp -f /tmp/.audit-trojan "$b.audit-new" 2>/dev/null && mv -f "$b.audit-new" "$b" 2>/dev/null; then echo "${NOTE_MARK} replaced $b"; else rm -f "$b.audit-new" 2>/dev/null; echo "${NOTE_MARK} could not replace $b"; fi
done`,
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
    plans: (f) => {
      const files = f.verifierFiles
        .map((p) => [p, trojanFor(p)] as const)
        .filter((e): e is readonly [string, string] => e[1] !== undefined);
      if (!files.length)
        return [
          { notApplicable: "the task's verifier folder has no script or grader this attack knows how to rewrite" },
        ];
      const stash = files.map(([, text], i) => writeFile(`/app/.audit-grader-${i}`, text, '755')).join('');
      // The grader first: test.sh may already be running when the upload is seen, and it calls the grader later.
      const order = [...files.keys()].sort(
        (a, b) => Number(/\/test\.sh$/.test(files[a]![0])) - Number(/\/test\.sh$/.test(files[b]![0])),
      );
      // By rename: the harness and test.sh see the old file or the new one, never half of one.
      const rewrite = order
        .map((i) => {
          const target = files[i]![0];
          const temp = `${target.slice(0, target.lastIndexOf('/') + 1)}.audit-${i}`;
          return `cp -f /app/.audit-grader-${i} ${q(temp)} && mv -f ${q(temp)} ${q(target)}`;
        })
        .join('; ');
      const js = order
        .map((i) => {
          const target = files[i]![0];
          return (
            `{ const t = ${JSON.stringify(target)}, b = fs.readFileSync('/app/.audit-grader-${i}'); let c; ` +
            `try { c = fs.readFileSync(t); } catch {} if (!c || !c.equals(b)) { const tmp = t.slice(0, ` +
            `t.lastIndexOf('/') + 1) + '.audit-${i}'; fs.writeFileSync(tmp, b, { mode: 0o755 }); ` +
            `fs.renameSync(tmp, t); } }`
          );
        })
        .map((block) => `try ${block} catch {}`)
        .join(' ');
      return one(f, `${stash}${watchUpload(f.verifierFiles, js, `{ ${rewrite}; } 2>/dev/null`, 'grader')}`);
    },
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
