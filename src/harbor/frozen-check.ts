// Before a frozen edition is kept: each task's oracle replayed on the task's own archive, and the claims where it would disagree with the labels.
import { join } from 'node:path';
import { openReplay } from '../archive/index.js';
import { checkClaims } from '../check.js';
import { parseClaims } from '../claims.js';
import { plural } from '../messages.js';
import type { LabelledClaim } from './export.js';
import { TASK_ARCHIVE } from './templates.js';

/** One claim the frozen oracle would answer otherwise than its label. */
export interface Disagreement {
  task: string;
  id: string;
  label: LabelledClaim['label'];
  oracle: LabelledClaim['label'];
  diagnosis: string;
  note?: string;
}

/** Claims named in the refusal; the rest are counted. */
const NAMED = 10;

/**
 * Runs what each task's solve.sh runs (quotecheck on its claims.json, every source answered from its own
 * sources.warc.gz, `--wayback auto`), in this process, and lists the claims whose answer is not their label.
 * `tasks[i]` are the labelled claims written into `dirs[i]`.
 */
export async function frozenDisagreements(
  dirs: readonly { name: string; dir: string }[],
  tasks: readonly (readonly LabelledClaim[])[],
): Promise<Disagreement[]> {
  const found: Disagreement[] = [];
  for (const [i, { name, dir }] of dirs.entries()) {
    const claims = tasks[i]!;
    const replay = await openReplay(join(dir, 'environment', TASK_ARCHIVE));
    try {
      const run = await checkClaims(
        parseClaims(
          claims.map((c) => c.public),
          `${name}/environment/claims.json`,
        ).entries,
        { transport: { kind: 'replay', archive: replay }, wayback: 'auto', retries: 0 },
      );
      const labels = new Map(claims.map((c) => [c.claim.id, c.label]));
      for (const r of run.results) {
        const label = labels.get(r.id);
        if (label !== undefined && r.label !== label) found.push({ task: name, id: r.id, label, oracle: r.label, diagnosis: r.diagnosis, note: r.note });
      }
    } finally {
      await replay.close();
    }
  }
  return found;
}

/** One line naming the disagreements: the first few claims with both answers, then how many more. */
export function describeDisagreements(found: readonly Disagreement[]): string {
  const named = found.slice(0, NAMED).map((d) => `${d.task}/${d.id} (label ${d.label}, oracle ${d.oracle}: ${d.diagnosis})`);
  const more = found.length > NAMED ? `, and ${found.length - NAMED} more` : '';
  return `the frozen oracle would answer ${plural(found.length, 'claim')} otherwise than labelled: ${named.join(', ')}${more}`;
}
