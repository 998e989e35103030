// Writing one Harbor task folder of the golden benchmark from its labelled claims, through the same task writer
// `quotecheck export` uses (src/task/task-writer.ts); giving the committed golden tasks the files git does not
// keep (the oracle's quotecheck and the verifier's grader, built by scripts/bundle.ts); and the golden tasks for a server
// on another port than the committed URLs carry (goldenAtPort). Shared by golden/build.ts, golden/drift/build.ts,
// scripts/bundle.ts, the demo and the test suite.

import fs from 'node:fs';
import path from 'node:path';
import { LAYOUTS } from '../../src/task/layout.js';
import { BUNDLE_FILES, ORACLE_LOADER, ORACLE_PACK, TASK_BUILDS, shippedDir } from '../../src/task/ship.js';
import { GOLD_MODE, writeTaskFolder as writeTask } from '../../src/task/task-writer.js';
import type { LabelledRow } from './rows.js';
import { atGoldenPort, GOLDEN_PORT, goldenDir } from '../server.js';
import { instruction } from '../../src/task/instruction.js';
import { bundledSkillDir, type TaskVariant } from '../../src/task/variant.js';
import type { SolveOptions } from '../../src/task/task-scripts.js';

/**
 * The golden sources are on loopback, which quotecheck refuses unless told (src/fetch/guard.ts): the oracle's
 * `run` and the tasks' MCP server are given this.
 */
export const GOLDEN_PRIVATE_ARGS = ['--allow-private'] as const;

export interface TaskFolder {
  /** one paragraph for instruction.md */
  about: string;
  difficulty: 'easy' | 'medium' | 'hard';
  /** tags after "quotecheck" (the variant's own tags follow) */
  tags: string[];
  variant: TaskVariant;
  instructionOptions?: Parameters<typeof instruction>[3];
  solveOptions?: SolveOptions;
}

/** Replaces `tdir` with the task: instruction, task.toml, environment (claims without labels), solution, tests. */
export function writeTaskFolder(tdir: string, rows: readonly LabelledRow[], t: TaskFolder): void {
  const { variant } = t;
  fs.rmSync(tdir, { recursive: true, force: true });
  writeTask(tdir, {
    name: path.basename(tdir),
    layout: 'harbor',
    claims: rows.map((l) => ({
      id: l.id,
      claim: l.claim,
      quote: l.quote,
      url: l.url,
      verify_date: l.verify_date,
      ...(l.evidence ? { evidence: l.evidence } : {}),
    })),
    gold: Object.fromEntries(rows.map((l) => [l.id, l.label])),
    instruction: instruction(
      rows.length,
      rows.map((l) => l.id),
      t.about,
      { ...t.instructionOptions, variant },
    ),
    // No [task] table: the golden tasks are quotecheck's own test bench, published under no org.
    config: {
      difficulty: t.difficulty,
      tags: ['quotecheck', ...t.tags],
      agentTimeoutSec: 600,
      verifierTimeoutSec: 120,
    },
    variant,
    ...(variant.skill ? { skillDir: bundledSkillDir() } : {}),
    solve: { ...t.solveOptions, runArgs: [...GOLDEN_PRIVATE_ARGS, ...(t.solveOptions?.runArgs ?? [])] },
  });
}

/** `to` made equal to `from` (a file): untouched when it already is, else by a rename over it, so a reader never sees half a file. */
function replaceFile(from: string, to: string): boolean {
  const bytes = fs.readFileSync(from);
  const mode = fs.statSync(from).mode & 0o777;
  try {
    const st = fs.statSync(to);
    if ((st.mode & 0o777) === mode && st.isFile() && fs.readFileSync(to).equals(bytes)) return false;
  } catch {
    // missing: written below
  }
  const tmp = `${to}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`;
  fs.writeFileSync(tmp, bytes, { mode });
  fs.chmodSync(tmp, mode);
  fs.renameSync(tmp, to);
  return true;
}

/**
 * Gives every golden task under `tasksDir` (by default the committed ones, golden/tasks/<task>/) what git does not
 * keep: the shipped files, the oracle's packed quotecheck in solution/quotecheck.tgz with its loader (quotecheck.mjs)
 * and the grader in tests/grade.mjs
 * (a copy of src/grader/grade.mjs), equal to those of dist/bundle/; and tests/gold.json's mode, its owner's
 * alone (git keeps only the executable bit, so a checkout has it readable by all). A file already equal is left alone
 * and another is replaced by a rename, so that two test runs starting at once in one checkout, or a run while a demo
 * reads the tasks, never see one missing or half written; the unpacked quotecheck/ an older build put there goes.
 * Returns how many tasks.
 */
export function installGoldenShipped(tasksDir = path.join(goldenDir(), 'tasks')): number {
  const { oracle, verifier } = LAYOUTS.harbor;
  const shipped = shippedDir();
  const built = path.dirname(shipped);
  let n = 0;
  for (const name of fs.readdirSync(tasksDir).sort()) {
    const dir = path.join(tasksDir, name);
    if (!fs.existsSync(path.join(dir, 'task.toml'))) continue;
    replaceFile(path.join(built, TASK_BUILDS.oraclePack), path.join(dir, oracle.folder, ORACLE_PACK));
    replaceFile(path.join(built, TASK_BUILDS.oracleLoader), path.join(dir, oracle.folder, ORACLE_LOADER));
    fs.rmSync(path.join(dir, oracle.folder, 'quotecheck'), { recursive: true, force: true });
    replaceFile(path.join(shipped, path.basename(BUNDLE_FILES.grader)), path.join(dir, verifier.folder, 'grade.mjs'));
    const gold = path.join(dir, verifier.folder, 'gold.json');
    if (fs.existsSync(gold) && (fs.statSync(gold).mode & 0o777) !== GOLD_MODE) fs.chmodSync(gold, GOLD_MODE);
    n++;
  }
  return n;
}

/** Where a copy of the golden files for one port is (goldenAtPort), laid out as golden/ is. */
export interface GoldenAtPort {
  /** The port its URLs carry. */
  port: number;
  /** The copy's root, or golden/ itself when `port` is GOLDEN_PORT. */
  dir: string;
  /** <dir>/tasks: every golden task, runnable (their oracle and grader installed). */
  tasksDir: string;
  /** <dir>/labelled.jsonl and <dir>/drift/labelled.jsonl: the labelled claims `export` reads. */
  labelled: string;
  driftLabelled: string;
  /** <dir>/diagnosis, with claims.json and cases.jsonl (what golden/scoreboard.ts scoreDiagnosis reads). */
  diagnosisDir: string;
}

/** The golden files whose text carries the golden origins, relative to golden/ (besides the tasks). */
const LABELLED_FILES = [
  'labelled.jsonl',
  path.join('drift', 'labelled.jsonl'),
  path.join('diagnosis', 'claims.json'),
  path.join('diagnosis', 'cases.jsonl'),
];

/** Copies `from` to `to` with every golden origin moved to `port` (atGoldenPort), byte for byte otherwise. */
function copyAtPort(from: string, to: string, port: number): void {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  const text = fs.readFileSync(from).toString('latin1');
  fs.writeFileSync(to, Buffer.from(atGoldenPort(text, port), 'latin1'));
  fs.chmodSync(to, fs.statSync(from).mode & 0o777);
}

/**
 * The golden tasks and labelled files as they are for a golden server on `port` (golden/server.ts startGoldenServer):
 * golden/ itself when `port` is GOLDEN_PORT, the port the committed files carry; else a copy written to `outDir`
 * (which must not exist yet, or be empty) in which every file that carries a golden origin has it moved to `port`:
 * each task's claims, instruction and solve.sh (the drift task's --wayback-url), labelled.jsonl, drift/labelled.jsonl
 * and the diagnosis set's claims.json and cases.jsonl. The tasks' shipped builds come fresh from dist/bundle/, and
 * nothing else differs. The demo and the tests serve on a free port and run this copy.
 */
export function goldenAtPort(port: number, outDir: string): GoldenAtPort {
  const golden = goldenDir();
  const at = (dir: string): GoldenAtPort => ({
    port,
    dir,
    tasksDir: path.join(dir, 'tasks'),
    labelled: path.join(dir, 'labelled.jsonl'),
    driftLabelled: path.join(dir, 'drift', 'labelled.jsonl'),
    diagnosisDir: path.join(dir, 'diagnosis'),
  });
  if (port === GOLDEN_PORT) return at(golden);
  const { oracle, verifier } = LAYOUTS.harbor;
  const committed = path.join(golden, 'tasks');
  // What scripts/bundle.ts installs: taken from dist/bundle/ below, never from a committed task another run may be updating.
  const built = new Set([
    path.join(oracle.folder, ORACLE_PACK),
    path.join(oracle.folder, ORACLE_LOADER),
    path.join(verifier.folder, 'grade.mjs'),
  ]);
  const copyTree = (from: string, to: string, rel: string): void => {
    fs.mkdirSync(to, { recursive: true });
    for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
      const sub = path.join(rel, entry.name);
      if (built.has(sub)) continue;
      if (entry.isDirectory()) copyTree(path.join(from, entry.name), path.join(to, entry.name), sub);
      else if (entry.isFile()) copyAtPort(path.join(from, entry.name), path.join(to, entry.name), port);
    }
  };
  for (const name of fs.readdirSync(committed).sort()) {
    if (fs.existsSync(path.join(committed, name, 'task.toml')))
      copyTree(path.join(committed, name), path.join(outDir, 'tasks', name), '');
  }
  installGoldenShipped(path.join(outDir, 'tasks'));
  for (const file of LABELLED_FILES) copyAtPort(path.join(golden, file), path.join(outDir, file), port);
  return at(outDir);
}
