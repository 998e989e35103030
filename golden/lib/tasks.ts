// Writing one Harbor task folder of the golden benchmark from its labelled claims, through the same task writer
// `quotecheck export` uses (src/harbor/task-writer.ts); and giving the committed golden tasks the files git does not
// keep (the oracle's quotecheck and the verifier's grader, built by scripts/bundle.ts). Shared by golden/build.ts,
// golden/drift/build.ts, scripts/bundle.ts and the test suite's setup.

import fs from 'node:fs';
import path from 'node:path';
import { LAYOUTS } from '../../src/harbor/layout.js';
import { installGrader, installQuotecheck } from '../../src/harbor/ship.js';
import { writeTaskFolder as writeTask } from '../../src/harbor/task-writer.js';
import { bundledSkillDir, instruction, solveScript, type TaskVariant } from '../../src/harbor/templates.js';
import type { LabelledRow } from './rows.js';
import { goldenDir } from '../server.js';

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
  solveOptions?: Parameters<typeof solveScript>[0];
}

/** Replaces `tdir` with the task: instruction, task.toml, environment (claims without labels), solution, tests. */
export function writeTaskFolder(tdir: string, rows: readonly LabelledRow[], t: TaskFolder): void {
  const { variant } = t;
  fs.rmSync(tdir, { recursive: true, force: true });
  writeTask(tdir, {
    name: path.basename(tdir),
    layout: 'harbor',
    claims: rows.map((l) => ({ id: l.id, claim: l.claim, quote: l.quote, url: l.url, verify_date: l.verify_date, ...(l.evidence ? { evidence: l.evidence } : {}) })),
    gold: Object.fromEntries(rows.map((l) => [l.id, l.label])),
    instruction: instruction(rows.length, rows.map((l) => l.id), t.about, { ...t.instructionOptions, variant }),
    description: `Check ${rows.length} quotes against their sources: verbatim or no_match`,
    config: { author: 'quotecheck golden benchmark', difficulty: t.difficulty, tags: ['quotecheck', ...t.tags], agentTimeoutSec: 600, verifierTimeoutSec: 120 },
    variant,
    ...(variant.skill ? { skillDir: bundledSkillDir() } : {}),
    solve: { ...t.solveOptions, runArgs: [...GOLDEN_PRIVATE_ARGS, ...(t.solveOptions?.runArgs ?? [])] },
  });
}

/**
 * Gives every committed golden task (golden/tasks/<task>/) the shipped files git does not keep: the oracle's
 * quotecheck in solution/quotecheck/ and the grader in tests/grade.mjs, fresh from dist/bundle/. Returns how many tasks.
 */
export function installGoldenShipped(tasksDir = path.join(goldenDir(), 'tasks')): number {
  const { oracle, verifier } = LAYOUTS.harbor;
  let n = 0;
  for (const name of fs.readdirSync(tasksDir).sort()) {
    const dir = path.join(tasksDir, name);
    if (!fs.existsSync(path.join(dir, 'task.toml'))) continue;
    fs.rmSync(path.join(dir, oracle.folder, 'quotecheck'), { recursive: true, force: true });
    installQuotecheck(path.join(dir, oracle.folder));
    installGrader(path.join(dir, verifier.folder));
    n++;
  }
  return n;
}
