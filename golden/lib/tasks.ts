// Writing one Harbor task folder of the golden benchmark from its labelled claims, with the same
// templates `quotecheck export` uses (src/harbor/templates.ts). Shared by golden/build.ts and
// golden/drift/build.ts.

import fs from 'node:fs';
import path from 'node:path';
import { bundledSkillDir, environmentDockerfile, installSkill, instruction, solveScript, taskToml, testScript, variantTags, variantTomlOptions, type TaskVariant } from '../../src/harbor/templates.js';
import type { LabelledRow } from './rows.js';
import { writeFile } from './builder.js';

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

/** Replaces `tdir` with the task: instruction, task.toml, environment (claims without labels), solve.sh, test.sh, gold.json. */
export function writeTaskFolder(tdir: string, rows: readonly LabelledRow[], t: TaskFolder): void {
  const { variant } = t;
  fs.rmSync(tdir, { recursive: true, force: true });
  writeFile(path.join(tdir, 'instruction.md'), instruction(rows.length, rows.map((l) => l.id), t.about, t.instructionOptions));
  writeFile(
    path.join(tdir, 'task.toml'),
    taskToml({ author: 'quotecheck golden benchmark', difficulty: t.difficulty, tags: ['quotecheck', ...t.tags, ...variantTags(variant)], ...variantTomlOptions(variant) }),
  );
  writeFile(path.join(tdir, 'environment', 'Dockerfile'), environmentDockerfile(variant));
  const claims = rows.map((l) => ({ id: l.id, claim: l.claim, quote: l.quote, url: l.url, verify_date: l.verify_date, ...(l.evidence ? { evidence: l.evidence } : {}) }));
  writeFile(path.join(tdir, 'environment', 'claims.json'), JSON.stringify(claims, null, 2) + '\n');
  if (variant.skill) installSkill(path.join(tdir, 'environment'), bundledSkillDir());
  writeFile(path.join(tdir, 'solution', 'solve.sh'), solveScript(t.solveOptions), 0o755);
  writeFile(path.join(tdir, 'tests', 'test.sh'), testScript(), 0o755);
  writeFile(path.join(tdir, 'tests', 'gold.json'), JSON.stringify(Object.fromEntries(rows.map((l) => [l.id, l.label])), null, 2) + '\n');
}
