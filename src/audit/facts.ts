// What the audit knows of a task, read from its folder without running it: the answers file the verifier grades, the
// modes it declares, its claim ids, the verifier's files (where a harness uploads them, which look like labels) and the
// verifier's fingerprint (tasks alike in it are alike to the cheat suite); the attacks' view of it.
import { CONTAINER_PATHS, TASK_SKILLS_DIR, TOOL_DIR } from '../task/paths.js';
import type { TaskDir } from '../task/task-dir.js';
import type { VerifierMode } from '../task/verifier-mode.js';
import { join } from 'node:path';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { parseDockerfile } from '../evaluate/dockerfile.js';
import { createHash } from 'node:crypto';
import { HARNESS_DIR } from '../evaluate/trial.js';
import { SHIPPED_FOLDER } from '../task/ship.js';
import { ENV_SKILLS_FOLDER, LAYOUTS } from '../task/layout.js';
import { readRegularFile } from '../grader/grade.mjs';
import type { AttackFacts } from './attack-scripts.js';
/** Where the answers are when nothing says: what quotecheck's tasks ask for. */
const DEFAULT_ANSWERS = `${CONTAINER_PATHS.app.path}/answers.json`;

/** The largest file the audit reads to know a task (claims, a verifier file it tests for labels). */
const MAX_FACT_BYTES = 64 * 1024 * 1024;

/** Where the answers path came from. */
type AnswersSource = 'artifacts' | 'instruction' | 'option' | 'default';

/** A task as the audit knows it: the facts the attacks need, and which modes and users it runs. */
export interface AuditTask {
  name: string;
  dir: string;
  layout: TaskDir['layout'];
  answers: { path: string; from: AnswersSource };
  /**
   * The mode the task declares (Harbor's rule: environment_mode, else separate with a [verifier.environment], else
   * shared).
   */
  declaredMode: VerifierMode;
  /** The modes the audit plays; `forced` when the task does not declare it (separate for a shared task). */
  modes: { mode: VerifierMode; forced: boolean }[];
  /** `[agent] user`; none when the task leaves the agent to the image's default user, root. */
  agentUser?: string;
  claimIds?: string[];
  /** Why the answer-shaped attacks cannot run, when there are no claim ids. */
  claimsNote?: string;
  /** The verifier's files at the paths a harness uploads them to, and those that look like labels. */
  verifierDir: string;
  verifierFiles: string[];
  goldPaths: string[];
  /** What the task gives the agent on purpose (its tool, its skills): the oracle search leaves them alone. */
  toolPaths: string[];
  /** Why the oracle or the baseline check cannot run, when it cannot. */
  oracleNote?: string;
  baselineNote?: string;
  /** The verifier's files but the labels, with its settings: tasks alike in it are alike to the cheat suite. */
  verifierFingerprint: string;
}

const table = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

const FILE_EXT = /\.(json|jsonl|txt|csv|tsv|ya?ml)$/i;

/**
 * The answers file among a task's artifacts: the one named like answers, else the first file (a folder does not say
 * which file).
 */
export function answersFromArtifacts(artifacts: readonly string[]): string | undefined {
  const files = artifacts.filter((a) => !a.endsWith('/') && FILE_EXT.test(a));
  return files.find((a) => /answer/i.test(a.split('/').pop()!)) ?? files[0];
}

/**
 * The answers path an instruction names: an absolute path named like answers (`/app/answers.json`), else the first
 * absolute file path after "write", "save" or "output" within a sentence.
 */
export function answersFromInstruction(text: string): string | undefined {
  const named = /(?<![\w/.-])(\/(?:[\w.-]+\/)*[\w.-]*answers?[\w.-]*\.(?:json|jsonl|txt|csv|tsv))(?![\w/-])/i.exec(
    text,
  );
  if (named) return named[1];
  const written = /\b(?:write|save|output|store)\b[^.\n]{0,80}?`?(\/(?:[\w.-]+\/)*[\w.-]+\.[A-Za-z]{2,5})`?/i.exec(
    text,
  );
  return written?.[1];
}

/** The instruction's text: instruction.md, or task.md after its front matter. */
function instructionText(task: TaskDir): string {
  const file = task.layout === 'harbor' ? 'instruction.md' : LAYOUTS.skillsbench.definition;
  const read = readRegularFile(join(task.dir, file), MAX_FACT_BYTES);
  if (!read.ok) return '';
  const text = read.bytes.toString('utf8');
  return task.layout === 'harbor' ? text : text.replace(/^\uFEFF?---[ \t]*\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/, '');
}

/** Every file under `dir`, relative to it, sorted (links and special files left out; at most `max`). */
function filesUnder(dir: string, max = 500): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(join(dir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (out.length >= max) return;
      const sub = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(sub);
      else if (e.isFile()) out.push(sub);
    }
  };
  walk('');
  return out;
}

/** Whether a file's text is a JSON object or array, or JSON Lines of objects: what labels are kept in. */
function looksLikeLabels(whole: string | undefined): boolean {
  const text = whole?.trim();
  if (!text) return false;
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null;
  } catch {
    const lines = text.split('\n').filter((l) => l.trim());
    return lines.every((l) => {
      try {
        const v: unknown = JSON.parse(l);
        return typeof v === 'object' && v !== null && !Array.isArray(v);
      } catch {
        return false;
      }
    });
  }
}

/** Files that hold a package's or a tool's settings, not labels. */
const NOT_LABELS = /^(package(-lock)?|tsconfig|jsconfig|\.?eslintrc|biome|deno|composer)\.json$/i;

/**
 * Where a separate verifier's Dockerfile puts the verifier's files: `COPY gold.json /tests/gold.json` gives
 * [gold.json, /tests/gold.json]; `COPY . /tests/` every file under its own name.
 */
export function dockerfileCopies(text: string, files: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (const [op, rest] of parseDockerfile(text)) {
    if (op !== 'COPY' && op !== 'ADD') continue;
    const args = rest.split(/\s+/).filter((w) => !w.startsWith('--'));
    const dest = args.pop();
    if (!dest?.startsWith('/')) continue;
    for (const src of args) {
      const rel = src.replace(/^\.\/?/, '');
      const matched = rel === '' ? files : files.filter((f) => f === rel || f.startsWith(`${rel.replace(/\/$/, '')}/`));
      for (const f of matched) {
        const intoFolder = dest.endsWith('/') || args.length > 1 || rel === '' || f !== rel;
        const under = rel === '' ? f : f === rel ? f.split('/').pop()! : f.slice(rel.replace(/\/$/, '').length + 1);
        out.push([f, intoFolder ? `${dest.replace(/\/$/, '')}/${under}` : dest]);
      }
    }
  }
  return out;
}

/**
 * The claims' ids of environment/claims.json (a JSON array of objects with an id, or {"claims": [...]}), or why none.
 */
function claimIdsOf(task: TaskDir): { ids?: string[]; note?: string } {
  const read = readRegularFile(join(task.dir, 'environment', 'claims.json'), MAX_FACT_BYTES);
  if (!read.ok) return { note: "the task's environment has no claims.json with claim ids to answer" };
  let value: unknown;
  try {
    value = JSON.parse(read.bytes.toString('utf8'));
  } catch {
    return { note: "the task's environment/claims.json is not JSON" };
  }
  const list = Array.isArray(value) ? value : table(value)?.claims;
  const ids = Array.isArray(list)
    ? list.flatMap((c) => {
        const id = table(c)?.id;
        return typeof id === 'string' || typeof id === 'number' ? [String(id)] : [];
      })
    : [];
  if (!ids.length) return { note: "the task's environment/claims.json names no claim ids" };
  if (JSON.stringify(ids).length > 40_000)
    return { note: 'the task has too many claims to write their answers into a command line' };
  return { ids };
}

function sha256(parts: readonly (string | Buffer)[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex');
}

/**
 * A verifier folder's files (filesUnder), each read once up to the cap for all the audit asks of it: the Dockerfile's
 * copies, the labels' test and the fingerprint.
 */
function verifierFiles(dir: string): {
  rels: string[];
  textOf: (rel: string) => string | undefined;
  bytesOf: (rel: string) => Buffer;
} {
  const rels = filesUnder(dir);
  const read = new Map(rels.map((r) => [r, readRegularFile(join(dir, r), MAX_FACT_BYTES)]));
  const got = (r: string) => read.get(r) ?? readRegularFile(join(dir, r), MAX_FACT_BYTES);
  return {
    rels,
    textOf: (r) => {
      const file = got(r);
      return file.ok ? file.bytes.toString('utf8') : undefined;
    },
    // A file over the cap is no label file: it is read whole for the fingerprint only.
    bytesOf: (r) => {
      const file = got(r);
      return file.ok ? file.bytes : readFileSync(join(dir, r));
    },
  };
}

/** What the audit needs to know of a task, read from its folder. */
export function auditTask(task: TaskDir, opts: { answers?: string; modes?: readonly VerifierMode[] } = {}): AuditTask {
  const spec = LAYOUTS[task.layout];
  const verifierHost = join(task.dir, spec.verifier.folder);
  const { rels, textOf, bytesOf } = verifierFiles(verifierHost);
  // Where a harness uploads each file: the layout's folder; a separate verifier's Dockerfile may put some elsewhere
  // too.
  const at = new Map<string, string[]>(rels.map((r) => [r, [`${spec.verifier.path}/${r}`]]));
  const dockerfile = textOf('Dockerfile');
  if (dockerfile !== undefined) for (const [rel, dest] of dockerfileCopies(dockerfile, rels)) at.get(rel)?.push(dest);
  const uploaded = (rel: string): string[] => [...new Set(at.get(rel) ?? [])];
  const labelFiles = rels.filter(
    (r) => r !== 'Dockerfile' && !NOT_LABELS.test(r.split('/').pop()!) && looksLikeLabels(textOf(r)),
  );
  const named = (r: string) => /gold|label|expected|answer|truth|solution/i.test(r);
  const gold = [...labelFiles.filter(named), ...labelFiles.filter((r) => !named(r))].slice(0, 4);

  const artifact = answersFromArtifacts(task.artifacts);
  const mentioned = artifact ? undefined : answersFromInstruction(instructionText(task));
  const answers = artifact
    ? { path: artifact, from: 'artifacts' as const }
    : mentioned
      ? { path: mentioned, from: 'instruction' as const }
      : opts.answers
        ? { path: opts.answers, from: 'option' as const }
        : { path: DEFAULT_ANSWERS, from: 'default' as const };

  const declared = task.verifierMode;
  const modes = (opts.modes ?? (declared === 'separate' ? ['separate', 'shared'] : ['shared'])).map((mode) => ({
    mode,
    forced: mode === 'separate' && declared !== 'separate',
  }));
  const claims = claimIdsOf(task);
  const env = join(task.dir, 'environment');
  const toolPaths = [
    HARNESS_DIR,
    ...(existsSync(join(env, SHIPPED_FOLDER)) ? [TOOL_DIR] : []),
    ...(existsSync(join(env, ENV_SKILLS_FOLDER)) ? [TASK_SKILLS_DIR] : []),
  ];
  const hasSolve = existsSync(join(task.dir, spec.oracle.folder, 'solve.sh'));
  const hasGold = existsSync(join(verifierHost, 'gold.json'));
  const baselineNote = !claims.ids
    ? `${claims.note}: the baseline (quotecheck run --baseline on /app/claims.json) cannot answer it`
    : !hasGold
      ? `no ${spec.verifier.folder}/gold.json: the baseline's expected reward (the no_match share) is not known`
      : answers.path !== DEFAULT_ANSWERS
        ? `the task grades ${answers.path}; the baseline writes ${DEFAULT_ANSWERS}`
        : undefined;
  const fingerprint = sha256([
    task.layout,
    declared,
    task.agentUser ?? '',
    answers.path,
    ...rels.filter((r) => !labelFiles.includes(r)).flatMap((r) => [r, bytesOf(r)]),
  ]);
  return {
    name: task.name,
    dir: task.dir,
    layout: task.layout,
    answers,
    declaredMode: declared,
    modes,
    ...(task.agentUser !== undefined ? { agentUser: task.agentUser } : {}),
    ...(claims.ids ? { claimIds: claims.ids } : { claimsNote: claims.note }),
    verifierDir: spec.verifier.path,
    verifierFiles: rels.filter((r) => r !== 'Dockerfile').flatMap(uploaded),
    goldPaths: [...new Set(gold.flatMap(uploaded))],
    toolPaths,
    ...(hasSolve ? {} : { oracleNote: `no ${spec.oracle.folder}/solve.sh` }),
    ...(baselineNote ? { baselineNote } : {}),
    verifierFingerprint: fingerprint,
  };
}

/** The attacks' view of a task. */
export function attackFacts(t: AuditTask): AttackFacts {
  return {
    answers: t.answers.path,
    verifierDir: t.verifierDir,
    verifierFiles: t.verifierFiles,
    goldPaths: t.goldPaths,
    ...(t.claimIds ? { claimIds: t.claimIds } : {}),
    ...(t.claimsNote ? { claimsNote: t.claimsNote } : {}),
    toolPaths: t.toolPaths,
  };
}
