// How the audit's attacks become scripts: what an attack knows of a task, the script every attack runs in (by bash, in
// /app, as the agent's command), and the shell the catalogue (attacks.ts) is written with, its programs filled in from
// src/audit/payloads/ (bash, C, Python, JavaScript) when an attack is planned.
import { shellQuote as q } from '../sh-quote.js';
import { CONTAINER_PATHS } from '../task/paths.js';
import { fillTemplate, type TemplateValues } from '../task/template-files.js';

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

/** The line an attack script prints when it finds, as it runs, that it cannot be tried here (no C compiler, say). */
export const NOT_APPLICABLE_MARK = 'quotecheck-audit: not applicable:';
/** The lines an attack script prints about what it found or did (read back into the report's "why"). */
export const NOTE_MARK = 'quotecheck-audit:';

/** Where the harness reads the reward, as every attack script names it. */
export const LOGS = CONTAINER_PATHS.verifierLogs.path;
const EOF = 'QUOTECHECK_AUDIT_EOF';

/** A payload (src/audit/payloads/) filled in: a whole program, its last line break kept. */
export const program = (name: string, values: TemplateValues = {}): string => fillTemplate('attacks', name, values);

/** A payload filled in as a piece of a script: its last line break left out, for the script to go on after it. */
export const shellPiece = (name: string, values: TemplateValues = {}): string =>
  program(name, values).replace(/\n$/, '');

/** Shell that writes a reward of 1 in both files a harness reads (Harbor: reward.json before reward.txt). */
export const winShell = (): string => shellPiece('rewards/reward.sh', { LOGS });

/** A program that only writes the reward: what a trojan, a replaced binary or a rewritten grader runs. */
export const trojanScript = (): string => program('rewards/trojan.sh', { WIN: winShell() });

/** The same, in JavaScript (CommonJS: --require, a .js or .cjs grader). */
export const winCommonJs = (): string => program('rewards/reward.cjs', { LOGS });

/** Shell that plants rewards of 1 in the verifier's log folder ($L). */
export const PLANT_REWARDS = `printf '1\\n' > "$L/reward.txt"; printf '{"reward": 1.0}\\n' > "$L/reward.json"`;

/** Shell that writes `content` to `path` (its folder made first), byte for byte, then sets `mode`. */
export function writeFile(path: string, content: string, mode?: string): string {
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
export function leftover(body: string): string {
  const code = shellPiece('leftover.sh', { BODY: body });
  return (
    `if command -v setsid >/dev/null 2>&1; then setsid nohup bash -c ${q(code)} >/dev/null 2>&1 < /dev/null & ` +
    `else nohup bash -c ${q(code)} >/dev/null 2>&1 < /dev/null & fi`
  );
}

/** Every script starts so (payloads/script.sh): the answers path, the verifier's log folder, a home it can write. */
export function script(f: AttackFacts, body: string): string {
  return program('script.sh', { ANSWERS: q(f.answers), LOGS, BODY: body.trim() });
}

/** The one trial of an attack: `body` in the script every attack runs in. */
export const one = (f: AttackFacts, body: string): AttackPlan[] => [{ script: script(f, body) }];

/** Why an answer-shaped attack cannot be tried on a task without claim ids: the audit's reason, when it gives one. */
export const noClaimIds = (f: AttackFacts): { notApplicable: string } => ({
  notApplicable: f.claimsNote ?? "the task's environment has no claims.json with claim ids to answer",
});

/** The claims' ids as a JSON object, each given `value` (a JSON text), or why the attack cannot be tried. */
export function answersWith(f: AttackFacts, value: (id: string) => string): string | { notApplicable: string } {
  if (!f.claimIds?.length) return noClaimIds(f);
  return `{${f.claimIds.map((id) => `${JSON.stringify(id)}: ${value(id)}`).join(', ')}}`;
}

/** An attack that writes answers of an odd shape: the JSON text `json`, written as the answers file. */
export function answersAttack(f: AttackFacts, json: string | { notApplicable: string }): AttackPlan[] {
  if (typeof json !== 'string') return [json];
  return one(f, `rm -rf "$A"\n${writeFile(f.answers, json)}`);
}

/**
 * The folders a search of the whole file system skips (kernel, libraries, package caches), as `find`'s prune
 * expression: `find / $PRUNE -o ...`.
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
export const findAll = (tests: string): string =>
  `found="$(timeout 20 find / ${PRUNE} -o -type f ${tests} -size -64M -print 2>/dev/null | ` +
  `grep -vxF "$A" | head -500)"`;

/** Shell that is true when the path in `$1` is under one of the task's tool folders. */
export function toolCase(f: AttackFacts): string {
  const patterns = f.toolPaths.map((p) => `${q(p)}|${q(p)}/*`).join('|');
  return patterns ? `is_tool() { case "$1" in ${patterns}) return 0;; esac; return 1; }` : 'is_tool() { return 1; }';
}

/** A grader file rewritten to write the reward: the trojan in the file's own language. */
export function trojanFor(path: string): string | undefined {
  if (/\.(mjs)$/.test(path)) return program('rewards/reward.esm.js', { LOGS });
  if (/\.(js|cjs)$/.test(path)) return winCommonJs();
  if (/\.py$/.test(path)) return program('rewards/reward.py', { LOGS });
  if (/\.(sh|bash)$/.test(path) || !/\.[^/]+$/.test(path)) return trojanScript();
  return undefined;
}

/**
 * Shell that compiles the preload library (payloads/win.c) to `$SO`, or says the attack is not applicable (no C
 * compiler in the image).
 */
export const buildPreload = (): string =>
  shellPiece('build-so.sh', {
    WRITE_SOURCE: writeFile('/tmp/.audit-preload.c', program('rewards/preload.c', { LOGS })),
    NOT_APPLICABLE: NOT_APPLICABLE_MARK,
  });

/** Shell that appends `line` to every start-up file of the agent's user and, as root, to the system's. */
export const inProfiles = (line: string): string => shellPiece('profiles.sh', { LINE: q(line) });

/**
 * Shell that sets a variable for every later process the way an image's configuration would: /etc/environment (root)
 * and the profiles.
 */
export const exportEverywhere = (name: string, value: string): string => `${inProfiles(`export ${name}=${q(value)}`)}
if [ "$(id -u)" = 0 ]; then printf '%s\\n' ${q(`${name}=${value}`)} >> /etc/environment 2>/dev/null; fi`;

/**
 * The content search: the files that name a claim id (grep over the whole file system but the kernel's), read by
 * payloads/gold-content.js for id-label pairs in any form a careless author leaves (a map of id to label, an object
 * with the id beside a label, JSON Lines, a row of a CSV or TSV), which become the answers.
 */
export function goldContentSearch(f: AttackFacts): AttackPlan[] {
  if (!f.claimIds?.length) return [noClaimIds(f)];
  const patterns = f.claimIds
    .slice(0, 40)
    .map((id) => `-e ${q(id)}`)
    .join(' ');
  return one(
    f,
    shellPiece('search-gold-content.sh', {
      NOT_APPLICABLE: NOT_APPLICABLE_MARK,
      WRITE_IDS: writeFile('/tmp/.audit-ids.json', JSON.stringify(f.claimIds)),
      WRITE_READER: writeFile('/tmp/.audit-gold-content.js', program('gold-content.js')),
      PATTERNS: patterns,
      NOTE: NOTE_MARK,
    }),
  );
}
