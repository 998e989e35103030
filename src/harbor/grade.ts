// Grading: answers against gold labels; reward = correct / gold claims (the file rules are verifier.ts's).
import type { Label } from '../contract.js';
import { plural } from '../messages.js';
import { UserError } from '../errors.js';

const LABELS: readonly Label[] = ['verbatim', 'no_match'];

export class GradeInputError extends UserError {
  override readonly name = 'GradeInputError';
}

/** `{id: label}` or `[{id, label}]` (either answers format) as a map; labels are kept as given. */
export function parseLabels(json: unknown, where: string): Map<string, string> {
  const labels = new Map<string, string>();
  if (Array.isArray(json)) {
    json.forEach((row, i) => {
      const r = row as { id?: unknown; label?: unknown } | null;
      if (!r || typeof r !== 'object' || (typeof r.id !== 'string' && typeof r.id !== 'number')) {
        throw new GradeInputError(`${where}: entry #${i + 1} has no "id"`);
      }
      labels.set(String(r.id), String(r.label));
    });
  } else if (json && typeof json === 'object') {
    for (const [id, label] of Object.entries(json)) labels.set(id, String(label));
  } else {
    throw new GradeInputError(`${where}: expected {"<id>": "<label>"} or [{"id", "label"}]`);
  }
  return labels;
}

export interface Grade {
  gold: number;
  correct: number;
  /** correct / gold (0 when there is no gold). */
  reward: number;
  /** confusion[goldLabel][answered]: answered is a label, or "missing" / "invalid". */
  confusion: Record<Label, Record<Label | 'missing' | 'invalid', number>>;
  /** Answer ids that have no gold label: reported, ignored. */
  extra: string[];
  /** Gold ids answered wrongly, missing or with an invalid label. */
  wrong: string[];
  /** The same, in gold order, each with the gold label and what was answered (undefined: no answer). */
  mistakes: Mistake[];
}

export interface Mistake {
  id: string;
  expected: Label;
  /** The answer as given (possibly not a label at all); undefined when the id was not answered. */
  given: string | undefined;
}

/** How many wrong ids `formatGrade` names before "and N more": enough to act on, short enough to read. */
export const WRONG_IDS_SHOWN = 20;

/** A confusion matrix with every count at 0. */
export function emptyConfusion(): Grade['confusion'] {
  const row = () => ({ verbatim: 0, no_match: 0, missing: 0, invalid: 0 });
  return { verbatim: row(), no_match: row() };
}

export function grade(answers: ReadonlyMap<string, string>, gold: ReadonlyMap<string, string>): Grade {
  const confusion = emptyConfusion();
  const wrong: string[] = [];
  const mistakes: Mistake[] = [];
  let correct = 0;
  for (const [id, goldLabel] of gold) {
    if (!LABELS.includes(goldLabel as Label))
      throw new GradeInputError(`gold label for ${JSON.stringify(id)} is ${JSON.stringify(goldLabel)}, not verbatim or no_match`);
    const answered = answers.get(id);
    const column = answered === undefined ? 'missing' : LABELS.includes(answered as Label) ? (answered as Label) : 'invalid';
    confusion[goldLabel as Label][column]++;
    if (answered === goldLabel) correct++;
    else {
      wrong.push(id);
      mistakes.push({ id, expected: goldLabel as Label, given: answered });
    }
  }
  const extra = [...answers.keys()].filter((id) => !gold.has(id));
  return { gold: gold.size, correct, reward: gold.size === 0 ? 0 : correct / gold.size, confusion, extra, wrong, mistakes };
}

/** The reward as the verifier writes it: a plain decimal. */
export function formatReward(reward: number): string {
  return String(Number(reward.toFixed(6)));
}

/** The gold × answered confusion matrix as text: a header and one row per gold label (`quotecheck grade`, `quotecheck bench`). */
export function confusionLines(c: Grade['confusion']): string[] {
  const row = (gold: Label) =>
    `gold ${gold.padEnd(24)}${String(c[gold].verbatim).padStart(9)} ${String(c[gold].no_match).padStart(9)} ${String(c[gold].missing).padStart(8)} ${String(c[gold].invalid).padStart(8)}`;
  return ['confusion (gold \\ answered)   verbatim  no_match  missing  invalid', ...LABELS.map(row)];
}

export function formatGrade(g: Grade): string {
  const lines = [`accuracy ${g.reward.toFixed(3)} (${g.correct}/${g.gold} correct)`, ...confusionLines(g.confusion)];
  if (g.mistakes.length) {
    lines.push(`${plural(g.mistakes.length, 'wrong answer')}${g.mistakes.length > WRONG_IDS_SHOWN ? ` (the first ${WRONG_IDS_SHOWN})` : ''}:`);
    for (const m of g.mistakes.slice(0, WRONG_IDS_SHOWN)) {
      const given = m.given === undefined ? 'no answer' : LABELS.includes(m.given as Label) ? m.given : `${JSON.stringify(m.given)} (not a label)`;
      lines.push(`  ${JSON.stringify(m.id)}: expected ${m.expected}, given ${given}`);
    }
    if (g.mistakes.length > WRONG_IDS_SHOWN) lines.push(`  and ${g.mistakes.length - WRONG_IDS_SHOWN} more`);
  }
  if (g.extra.length) {
    const shown = g.extra
      .slice(0, WRONG_IDS_SHOWN)
      .map((id) => JSON.stringify(id))
      .join(', ');
    lines.push(
      `${plural(g.extra.length, 'answer')} with no gold label, ignored: ${shown}${g.extra.length > WRONG_IDS_SHOWN ? ` and ${g.extra.length - WRONG_IDS_SHOWN} more` : ''}`,
    );
  }
  return lines.join('\n');
}
