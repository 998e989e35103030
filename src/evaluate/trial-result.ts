// What a finished trial left, read as Harbor reads it: the reward (reward.json, else reward.txt, never through a link
// out of /logs/verifier), the agent's answers (read the safe way: they are the agent's) and each claim's row with the
// evidence the agent's report gives.
import type { Trial } from './trial.js';
import { LAYOUTS } from '../task/layout.js';
import { MAX_LABELS_BYTES, parseLabelBytes, readRegularFile } from '../grader/grade.mjs';
import type { ClaimRow } from '../results/evaluation-report.js';
import { dirname, join, relative } from 'node:path';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { readJsonIfAny, readJsonLines, type TaskDir } from '../task/task-dir.js';
import { parseClaims, type Claim } from '../claims/schema.js';
import { readReportLine } from '../contract.js';
/** A reward file is a few numbers. */
const MAX_REWARD_BYTES = 4096;

/**
 * The reward as Harbor reads it (verifier.py): reward.json when it exists (its numeric fields; `reward` from
 * reward.txt when it has none), else reward.txt. A file that is not a regular one, or a link leading out of the
 * trial's /logs/verifier, scores 0 and says why (Harbor would fail the trial).
 */
export function readReward(t: Trial, problems: string[]): { reward: number; fields?: Record<string, number> } {
  const read = (name: string): string | undefined => {
    let path = join(t.verifierLogs, name);
    try {
      // A link the verifier's folder holds is followed as Harbor follows it, but never out of the folder.
      const real = realpathSync(path);
      const rel = relative(realpathSync(t.verifierLogs), real);
      if (rel.startsWith('..') || rel === '' || dirname(rel) !== '.') {
        problems.push(`${name} not read: a link leading out of /logs/verifier`);
        return undefined;
      }
      path = real;
    } catch {
      if (!existsSync(path)) return undefined;
    }
    const r = readRegularFile(path, MAX_REWARD_BYTES);
    if (!r.ok) {
      if (!r.missing) problems.push(`${name} not read: it ${r.reason}`);
      return r.missing ? undefined : '';
    }
    return r.bytes.toString('utf8');
  };
  const json = read('reward.json');
  const txt = (): number | undefined => {
    const text = read('reward.txt')?.trim();
    if (text === undefined) return undefined;
    const n = Number(text);
    if (text === '' || !Number.isFinite(n)) {
      problems.push(`reward.txt says ${JSON.stringify(text.slice(0, 40))}`);
      return 0;
    }
    return n;
  };
  if (json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      problems.push('reward.json is not JSON');
      return { reward: 0 };
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      problems.push('reward.json is not an object');
      return { reward: 0 };
    }
    const fields = Object.fromEntries(
      Object.entries(parsed).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1])),
    );
    const reward = fields.reward ?? txt();
    if (reward === undefined) problems.push('no reward in reward.json or reward.txt');
    return { reward: reward ?? 0, fields };
  }
  const reward = txt();
  if (reward === undefined) problems.push('no reward file');
  return { reward: reward ?? 0 };
}

/** The `--wayback-url` the task's solve.sh passes, if it passes one. */
export function solveWaybackUrl(task: TaskDir): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(task.dir, LAYOUTS[task.layout].oracle.folder, 'solve.sh'), 'utf8');
  } catch {
    return undefined;
  }
  return /--wayback-url[= ]+'?([^'\s;]+)'?/.exec(text)?.[1];
}

export function claimRows(t: Trial, answers: Map<string, string>, gold: Map<string, string>): ClaimRow[] {
  // The task's claims as quotecheck reads them (aliases and all); a file it cannot read gives bare rows.
  let claims = new Map<string, Claim>();
  try {
    const { entries } = parseClaims(
      readJsonIfAny(join(t.task.dir, 'environment', 'claims.json')),
      `${t.task.name}/environment/claims.json`,
    );
    claims = new Map(entries.filter((e): e is Claim => e.kind === 'claim').map((c) => [c.id, c]));
  } catch {
    // rows still show id, answer and gold
  }
  // The agent owns /logs/agent: readJsonLines reads its report the safe way (a regular file only, never blocking).
  const report = new Map(readJsonLines(join(t.agentLogs, 'report.jsonl')).map((r) => [String(r.id), r]));
  return [...gold].map(([id, goldLabel]) => {
    const c = claims.get(id);
    // The report is the agent's output: each field is taken only when well formed (contract.ts readReportLine).
    const r = readReportLine(report.get(id));
    const answer = answers.get(id);
    return {
      id,
      quote: c?.quote ?? '',
      url: c?.url ?? '',
      claim: c?.claim,
      answer,
      gold: goldLabel,
      correct: answer === goldLabel,
      diagnosis: r.diagnosis,
      note: r.note,
      context: r.match?.context,
      selector: r.match?.selector,
      nearest: r.nearest ?? undefined,
      httpStatus: r.http_status,
      fetchError: r.fetch_error,
      drift: r.drift,
      asOf: r.as_of ?? undefined,
    };
  });
}

/**
 * The agent's answers, for the report's rows (the reward is the verifier's alone): read the safe way, they are the
 * agent's.
 */
export function readAnswers(t: Trial, problems: string[]): Map<string, string> {
  const read = readRegularFile(join(t.app, 'answers.json'), MAX_LABELS_BYTES);
  if (!read.ok) {
    problems.push(read.missing ? 'no answers file' : `answers file not read: /app/answers.json ${read.reason}`);
    return new Map();
  }
  try {
    return parseLabelBytes(read.bytes, 'answers file');
  } catch (err) {
    problems.push((err as Error).message);
    return new Map();
  }
}
