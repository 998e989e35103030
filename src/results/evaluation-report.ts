// evaluate's report.json (docs/cli.md, `quotecheck evaluate`) as zod schemas, with evaluate's types inferred from them:
// what evaluate writes, and what compare reads back through them. The contract (contract.ts) stands on zod alone; the
// report embeds evaluate's own structures (the grade, the failures), so its schema lives beside them, on the contract's
// readers of a report line.
import * as z from 'zod';
import { AsOfRead, kept, NearestRead, SelectorRead } from '../contract.js';
import type { ArchiveFailure, SourcesFailure, UnreadSource } from './failures.js';
import { failureShape, type FailureShape, type Grade } from '../grader/grade.mjs';
import type { VerifierMode } from '../task/verifier-mode.js';

/**
 * A part of evaluate's report a reader takes as evaluate wrote it, unchecked (no reader ever checked it): evaluate's
 * own structures (the grade, the failures) and the numbers it only shows. A report written before evaluate wrote the
 * field lacks it: `fallback` then (undefined when none).
 */
const asWritten = <T>(fallback?: T) =>
  z.custom<T>((v) => v !== undefined).catch((ctx) => (ctx.value === undefined ? fallback : ctx.value) as T);

/**
 * How evaluate kept the phases apart (docs/security.md#trial-isolation): a real engine (Docker or Podman) building the
 * task's images, its own namespace containers (an emulation), or container paths by variable.
 */
const IsolationSchema = z.enum(['docker', 'podman', 'namespace', 'paths']);
export type Isolation = z.infer<typeof IsolationSchema>;

/** The real engines evaluate drives through their command line (src/evaluate/engine.ts). */
export type EngineName = Extract<Isolation, 'docker' | 'podman'>;

/**
 * One claim as evaluate's report shows it; the evidence fields are the agent's report line's (readReportLine), each
 * kept when well formed.
 */
const ClaimRowFields = z.object({
  id: z.string(),
  quote: asWritten<string>(),
  url: asWritten<string>(),
  claim: kept(z.string()),
  answer: kept(z.string()),
  gold: asWritten<string>(),
  correct: z.boolean(),
  diagnosis: kept(z.string()),
  note: kept(z.string()),
  /** The matched context, normalized (what the label was decided on). */
  context: kept(z.string()),
  /** The match in the page's own wording, when the report has it. */
  selector: kept(SelectorRead),
  nearest: kept(NearestRead),
  httpStatus: kept(z.number()),
  /** Why today's fetch failed (the report's `fetch_error`), when it did and the report says. */
  fetchError: kept(z.string()),
  /** The live source against the claim's evidence hash (docs/sources-change.md#drift-proof). */
  drift: kept(z.string()),
  /** Which text decided the label (the report's `as_of`). */
  asOf: kept(AsOfRead),
});

/** What the oracle's evidence report says of a claim, as its own row carries it. */
const OracleEvidenceSchema = ClaimRowFields.pick({
  diagnosis: true,
  note: true,
  context: true,
  selector: true,
  nearest: true,
  drift: true,
  asOf: true,
});
export type OracleEvidence = z.infer<typeof OracleEvidenceSchema>;

const ClaimRowSchema = ClaimRowFields.extend({
  /**
   * The oracle's evidence for the claim, on another agent's row when the oracle ran beside it (compare.ts
   * withOracleEvidence).
   */
  oracle: kept(OracleEvidenceSchema),
});
export type ClaimRow = z.infer<typeof ClaimRowSchema>;

/** One task of an evaluation run. */
const TaskRunSchema = z.object({
  task: z.string(),
  reward: asWritten<number>(),
  claims: asWritten<number>(),
  correct: asWritten<number>(),
  /** Share of gold no_match labels: what the baseline (all no_match) scores. */
  baseline: asWritten<number>(),
  /** @deprecated The same number as `baseline`, under its old name; kept for readers of report.json. */
  floor: asWritten<number>(),
  agentExit: asWritten<number | null>(),
  verifierExit: asWritten<number | null>(),
  /** How the verifier ran: in its own container (separate) or in the agent's (shared). */
  verifierMode: asWritten<VerifierMode>(),
  /** Whose the agent phase was: the task's agent user by name, or root. */
  agentUser: asWritten<string>(),
  /** Every numeric field of the verifier's reward.json (answered, overclaim, missed...), when it wrote one. */
  rewardFields: asWritten<Record<string, number>>().optional(),
  /** Set when the agent's container shared this machine's network (a real engine; sources on its loopback). */
  hostNetwork: asWritten<boolean>().optional(),
  seconds: asWritten<number>(),
  /** What went wrong, if anything did (timeout, no reward file, ...). */
  problems: asWritten<string[]>(),
  /** Set when every source the agent reported on failed to fetch. */
  sourcesFailed: asWritten<SourcesFailure>().optional(),
  /** Set when claims needed Wayback captures and every archive request failed. */
  archiveFailed: asWritten<ArchiveFailure>().optional(),
  grade: asWritten<Grade>(),
  rows: z.array(ClaimRowSchema),
});
export type TaskRun = z.infer<typeof TaskRunSchema>;

/**
 * evaluate's report.json (docs/cli.md, `quotecheck evaluate`): what evaluate writes, and how compare reads one back.
 * The fields compare relies on are checked (agent, name, the totals, each task's name and rows, each row's id and
 * correct); the evidence on a row is kept when well formed; the rest is taken as written, a report written before a
 * field lacking it.
 */
export const EvaluationReportSchema = z.object({
  agent: z.string(),
  /**
   * The agent's name as evaluate gave it (--name, else oracle, baseline or agent-N); absent in reports written before
   * evaluate named agents.
   */
  name: z.string().optional(),
  isolation: asWritten<Isolation>(),
  /** What this isolation does not stop, one clause each (absent in reports written before evaluate said so). */
  isolation_limits: asWritten<string[]>().optional(),
  tasks_dir: asWritten<string>(),
  mean_reward: z.number(),
  /** Mean of the per-task no_match shares: the baseline's mean reward (0 in reports written before it). */
  baseline_mean_reward: asWritten<number>(0),
  claims: z.number(),
  correct: z.number(),
  seconds: asWritten<number>(),
  confusion: asWritten<Grade['confusion']>(),
  /** How the agent failed over all claims (reward.json's fields, claims pooled): answered at all, overclaim, missed. */
  failure_shape: asWritten<Pick<FailureShape, 'answered' | 'overclaim' | 'missed'>>().optional(),
  diagnoses: asWritten<Record<string, number>>(),
  /**
   * Sources read whose live bytes no longer hash to a claim's evidence, from the agent's reports (unread sources are
   * not drifted).
   */
  drifted_sources: asWritten<number>(),
  /** Sources whose live fetch failed (refused, unreachable, an HTTP error...), once each, from the agent's reports. */
  unread_sources: asWritten<UnreadSource[]>().optional(),
  /** Claims the agent judged on a Wayback capture. */
  claims_from_captures: asWritten<number>(),
  /**
   * What to check, one line each, when something went wrong for a whole task (none in reports written before evaluate
   * advised).
   */
  advice: asWritten<string[]>([]),
  /** Set when rows carry the oracle's evidence: the oracle's run folder, relative to this report's folder. */
  oracle_run: asWritten<string>().optional(),
  tasks: z.array(TaskRunSchema),
});
export type EvaluationReport = z.infer<typeof EvaluationReportSchema>;

/**
 * The failure shape over every claim of a run (the grader's rule, on the pooled confusion matrix): evaluate's and
 * compare's.
 */
export function runShape(
  r: Pick<EvaluationReport, 'claims' | 'correct' | 'confusion'>,
): Pick<FailureShape, 'answered' | 'overclaim' | 'missed'> {
  const { answered, overclaim, missed } = failureShape({
    reward: r.claims ? r.correct / r.claims : 0,
    confusion: r.confusion,
  });
  return { answered, overclaim, missed };
}
