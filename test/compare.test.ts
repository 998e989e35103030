// Where an agent fails: evaluate with several agents and `compare` over finished runs, split by the oracle's diagnosis; the comparison page in headless Chromium.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { compareRuns, cwdRelativePath, type Comparison } from '../src/results/compare.js';
import { agentFolders, readRunFolder } from '../src/results/run-folders.js';
import { comparisonTable, MAX_TABLE_COLUMNS } from '../src/results/compare-table.js';
import { renderComparisonHtml } from '../src/results/html-report.js';
import { pathsWarning } from '../src/cli/actions/evaluate.js';
import { EDGE_PX, HAVE_CHROMIUM, makeTask, pageInChromium, textRights } from './support/harbor-helpers.js';
import { runCli, runCliInProcess, serve, tempDir } from './support/helpers.js';
import { emptyConfusion, type Grade } from '../src/grader/grade.mjs';
import type { EvaluationReport, ClaimRow, TaskRun } from '../src/results/evaluation-report.js';

/** An evaluation report of one agent: its answers per claim, graded against gold; diagnoses as its evidence report gave them. */
function report(
  agent: string,
  tasks: Record<
    string,
    {
      id: string;
      gold: string;
      answer?: string;
      diagnosis?: string;
      drift?: string;
      quote?: string;
      fetchError?: string;
    }[]
  >,
  name?: string,
): EvaluationReport {
  const runs: TaskRun[] = Object.entries(tasks).map(([name, claims]) => {
    const rows: ClaimRow[] = claims.map((c) => ({
      id: c.id,
      quote: c.quote ?? 'q',
      url: 'http://127.0.0.1:9/',
      gold: c.gold,
      answer: c.answer,
      correct: c.gold === c.answer,
      diagnosis: c.diagnosis,
      drift: c.drift,
      ...(c.fetchError !== undefined ? { fetchError: c.fetchError } : {}),
    }));
    const correct = rows.filter((r) => r.correct).length;
    const baseline = rows.filter((r) => r.gold === 'no_match').length / rows.length;
    return {
      task: name,
      reward: correct / rows.length,
      claims: rows.length,
      correct,
      baseline,
      floor: baseline,
      agentExit: 0,
      verifierExit: 0,
      verifierMode: 'separate',
      agentUser: 'agent',
      seconds: 1,
      problems: [],
      grade: { correct } as Grade,
      rows,
    };
  });
  const claims = runs.reduce((n, t) => n + t.claims, 0);
  return {
    agent,
    ...(name !== undefined ? { name } : {}),
    isolation: 'paths',
    tasks_dir: '/tmp/t',
    mean_reward: runs.reduce((n, t) => n + t.reward, 0) / runs.length,
    baseline_mean_reward: runs.reduce((n, t) => n + t.baseline, 0) / runs.length,
    claims,
    correct: runs.reduce((n, t) => n + t.correct, 0),
    seconds: 1,
    confusion: emptyConfusion(),
    diagnoses: {},
    drifted_sources: 0,
    claims_from_captures: 0,
    advice: [],
    tasks: runs,
  };
}

/** Gold and the oracle's diagnosis of ten claims in two tasks: 5 extraction artifacts, 2 verbatim, 2 near misses, 1 not found (on a drifted source). */
const CLAIMS: Record<string, { id: string; gold: string; diagnosis: string; drift?: string }[]> = {
  a: [
    { id: 'x1', gold: 'no_match', diagnosis: 'extraction_artifact' },
    { id: 'x2', gold: 'no_match', diagnosis: 'extraction_artifact' },
    { id: 'x3', gold: 'no_match', diagnosis: 'extraction_artifact' },
    { id: 'v1', gold: 'verbatim', diagnosis: 'verbatim' },
    { id: 'n1', gold: 'no_match', diagnosis: 'near_miss' },
  ],
  b: [
    { id: 'x4', gold: 'no_match', diagnosis: 'extraction_artifact' },
    { id: 'x5', gold: 'no_match', diagnosis: 'extraction_artifact' },
    { id: 'v2', gold: 'verbatim', diagnosis: 'verbatim', drift: 'changed' },
    { id: 'n2', gold: 'no_match', diagnosis: 'near_miss' },
    { id: 'f1', gold: 'no_match', diagnosis: 'not_found', drift: 'changed' },
  ],
};

/** An agent that "fixes" two of the five artifacts (answers verbatim: wrong, the label is mechanical) and misses a verbatim quote. */
const SLOPPY: Record<string, string> = { x1: 'verbatim', x4: 'verbatim', v2: 'no_match' };

function sampleComparison(): Comparison {
  const oracle = report(
    'oracle',
    Object.fromEntries(Object.entries(CLAIMS).map(([t, cs]) => [t, cs.map((c) => ({ ...c, answer: c.gold }))])),
  );
  const sloppy = report(
    'sloppy-agent',
    Object.fromEntries(
      Object.entries(CLAIMS).map(([t, cs]) => [
        t,
        cs.map((c) => ({ id: c.id, gold: c.gold, answer: SLOPPY[c.id] ?? c.gold, diagnosis: 'verbatim' })),
      ]),
    ),
  );
  const baseline = report(
    'baseline',
    Object.fromEntries(
      Object.entries(CLAIMS).map(([t, cs]) => [t, cs.map((c) => ({ id: c.id, gold: c.gold, answer: 'no_match' }))]),
    ),
  );
  return compareRuns(
    [
      { report: oracle, dir: 'oracle' },
      { report: sloppy, dir: 'agent-2' },
      { report: baseline, dir: 'baseline' },
    ],
    { report: oracle, dir: 'oracle' },
  );
}

/**
 * The oracle and agent-2 on six claims: agent-2 never answers the three extraction artifacts, says "maybe" for one of
 * the two verbatim quotes (and verbatim for the other), and answers the near miss wrongly.
 */
function unansweredComparison(): Comparison {
  const claims = [
    { id: 'x1', gold: 'no_match', diagnosis: 'extraction_artifact' },
    { id: 'x2', gold: 'no_match', diagnosis: 'extraction_artifact' },
    { id: 'x3', gold: 'no_match', diagnosis: 'extraction_artifact' },
    { id: 'v1', gold: 'verbatim', diagnosis: 'verbatim' },
    { id: 'v2', gold: 'verbatim', diagnosis: 'verbatim' },
    { id: 'n1', gold: 'no_match', diagnosis: 'near_miss' },
  ];
  const oracle = report('oracle', { a: claims.map((c) => ({ ...c, answer: c.gold })) }, 'oracle');
  const given: Record<string, string | undefined> = {
    x1: undefined,
    x2: undefined,
    x3: undefined,
    v1: 'verbatim',
    v2: 'maybe',
    n1: 'verbatim',
  };
  const agent = report(
    './agent.sh',
    { a: claims.map((c) => ({ id: c.id, gold: c.gold, answer: given[c.id] })) },
    'agent-2',
  );
  return compareRuns(
    [
      { report: oracle, dir: 'oracle' },
      { report: agent, dir: 'agent-2' },
    ],
    { report: oracle, dir: 'oracle' },
  );
}

describe('compareRuns', () => {
  test('a claim whose source the oracle could not read is not filed under drifted sources: drift needs bytes that hash otherwise', () => {
    const claims = [
      { id: 'changed', gold: 'no_match', diagnosis: 'not_found', drift: 'changed' },
      { id: 'gone', gold: 'no_match', diagnosis: 'fetch_failed', drift: 'changed', fetchError: 'http_status' },
      { id: 'refused', gold: 'no_match', diagnosis: 'fetch_failed', drift: 'changed', fetchError: 'refused' },
    ];
    const oracle = report('oracle', { t: claims.map((c) => ({ ...c, answer: c.gold })) });
    const agent = report('agent', { t: claims.map((c) => ({ id: c.id, gold: c.gold, answer: 'no_match' })) });
    const c = compareRuns([{ report: agent, dir: 'agent' }], { report: oracle, dir: 'oracle' });
    expect(c.groups).toContainEqual({ diagnosis: 'source_drifted', claims: 1 });
  });

  test("splits each agent's accuracy by the oracle's diagnosis, not the agent's own, with a sentence for each group", () => {
    const c = sampleComparison();
    expect(c.groups).toEqual([
      { diagnosis: 'verbatim', claims: 2 },
      { diagnosis: 'extraction_artifact', claims: 5 },
      { diagnosis: 'near_miss', claims: 2 },
      { diagnosis: 'not_found', claims: 1 },
      { diagnosis: 'source_drifted', claims: 2 },
    ]);
    const sloppy = c.agents[1]!;
    // The agent's own report says "verbatim" for everything; the split still follows the oracle.
    expect(sloppy.by_diagnosis.extraction_artifact).toEqual({
      claims: 5,
      correct: 3,
      wrong: 2,
      missing: 0,
      invalid: 0,
      answered_verbatim: 2,
      accuracy: 0.6,
    });
    expect(sloppy.by_diagnosis.verbatim).toEqual({
      claims: 2,
      correct: 1,
      wrong: 1,
      missing: 0,
      invalid: 0,
      answered_verbatim: 1,
      accuracy: 0.5,
    });
    expect(sloppy.by_diagnosis.source_drifted).toEqual({
      claims: 2,
      correct: 1,
      wrong: 1,
      missing: 0,
      invalid: 0,
      answered_verbatim: 0,
      accuracy: 0.5,
    });
    expect(c.sentences).toContain(
      'sloppy-agent answers verbatim on 40% of extraction artifacts (2/5), right on 60% (3/5)',
    );
    expect(c.sentences).toContain('baseline answers verbatim on 0% of verbatim quotes (0/2), right on 0% (0/2)');
    expect(c.agents[0]!.by_diagnosis.near_miss!.accuracy).toBe(1);
    expect(c.oracle).toBe('oracle');
    const text = comparisonTable(c);
    expect(text.split('\n')[0]).toMatch(/^\s+oracle\s+sloppy-agent\s+baseline$/);
    expect(text).toMatch(/^extraction_artifact \(5\)\s+100% \(5\/5\)\s+60% \(3\/5\)\s+100% \(5\/5\)$/m);
    expect(text).toMatch(/^mean reward\s+1\.000\s+0\.700\s+0\.800$/m);
  });

  test('claims the oracle did not judge are their own group; two runs of one agent are told apart by folder', () => {
    const oracle = report('oracle', { a: [{ id: 'v1', gold: 'verbatim', answer: 'verbatim', diagnosis: 'verbatim' }] });
    const other = report('baseline', {
      a: [{ id: 'v1', gold: 'verbatim', answer: 'no_match' }],
      extra: [{ id: 'e1', gold: 'no_match', answer: 'no_match' }],
    });
    const c = compareRuns(
      [
        { report: other, dir: 'one' },
        { report: other, dir: 'two' },
      ],
      { report: oracle, dir: 'o' },
    );
    expect(c.groups.map((g) => g.diagnosis)).toEqual(['verbatim', 'no_diagnosis']);
    expect(c.agents.map((a) => a.label)).toEqual(['baseline (one)', 'baseline (two)']);
    expect(c.sentences).toContain(
      'baseline (one) answers verbatim on 0% of claims without an oracle diagnosis (0/1), right on 100% (1/1)',
    );
  });

  test('six agents with long names: a table that fits a terminal (at most 100 columns), agents keyed with a legend; report.json as it always was', async () => {
    // A dataset the size of SKBench's (1405 claims) with its usual diagnoses, in ten tasks.
    const sizes: [string, number][] = [
      ['verbatim', 540],
      ['extraction_artifact', 60],
      ['near_miss', 120],
      ['partial', 80],
      ['not_found', 450],
      ['drifted', 40],
      ['paywall', 30],
      ['fetch_failed', 70],
      ['empty', 15],
    ];
    const claims = sizes.flatMap(([diagnosis, n]) =>
      Array.from({ length: n }, (_, i) => ({
        id: `${diagnosis}-${i}`,
        gold: diagnosis === 'verbatim' ? 'verbatim' : 'no_match',
        diagnosis,
        drift: i % 9 === 0 ? 'changed' : 'same',
      })),
    );
    const tasks = (answer: (c: (typeof claims)[number], i: number) => string | undefined) =>
      Object.fromEntries(
        Array.from({ length: 10 }, (_, t) => [
          `task-${t}`,
          claims
            .filter((_, i) => i % 10 === t)
            .map((c, i) => ({ id: c.id, gold: c.gold, answer: answer(c, i), diagnosis: c.diagnosis, drift: c.drift })),
        ]),
      );
    const names = [
      'claude-sonnet-4-5-with-mcp-server',
      'gpt-5-codex-with-the-skill',
      'gemini-2.5-pro-plain-instruction',
      'qwen3-coder-480b-a35b-instruct-mcp',
      'deepseek-v3.1-terminus-with-skill',
      'llama-4-maverick-17b-128e-plain',
    ];
    const home = tempDir();
    const folder = (name: string, r: EvaluationReport) => {
      mkdirSync(join(home, name));
      writeFileSync(join(home, name, 'report.json'), JSON.stringify(r));
      return name;
    };
    const oracle = folder(
      'oracle',
      report(
        'oracle',
        tasks((c) => c.gold),
        'oracle',
      ),
    );
    const runs = names.map((name, k) =>
      folder(
        name,
        report(
          `harbor-agent --model ${name} --claims claims.json --out answers.json`,
          // Each agent right on a different share; the last leaves some claims unanswered and gives some an invalid label.
          tasks((c, i) =>
            k === 5 && i % 13 === 0
              ? undefined
              : k === 5 && i % 17 === 0
                ? 'maybe'
                : (i + k) % (k + 3) === 0
                  ? c.gold === 'verbatim'
                    ? 'no_match'
                    : 'verbatim'
                  : c.gold,
          ),
          name,
        ),
      ),
    );
    const r = await runCliInProcess([
      'compare',
      ...runs.map((d) => join(home, d)),
      '--oracle',
      join(home, oracle),
      '--out',
      join(home, 'cmp'),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout.split('\n');
    const table = out.slice(0, out.findIndex((l) => l.startsWith('source_drifted')) + 1);
    expect(table.length).toBeGreaterThan(10);
    for (const line of table)
      if (!line.startsWith('accuracy by')) expect(line.length, line).toBeLessThanOrEqual(MAX_TABLE_COLUMNS);
    expect(out[0]).toMatch(/^\s+\[1\]\s+\[2\]\s+\[3\]\s+\[4\]\s+\[5\]\s+\[6\]$/);
    expect(out).toContainEqual(expect.stringMatching(/^near_miss \(120\)(\s+\d+%){6}$/));
    expect(out).toContainEqual(expect.stringMatching(/^mean reward(\s+\d\.\d{3}){6}$/));
    // The legend: each key's agent, its claims right, its missing and invalid answers, its command.
    for (const [k, name] of names.entries()) {
      const line = out.find((l) => l.startsWith(`[${k + 1}] ${name} (`));
      expect(line, name).toMatch(
        new RegExp(
          `^\\[${k + 1}\\] ${name.replace(/\./g, '\\.')} \\(\\d+/1405 right(, \\d+ with no answer, \\d+ invalid)?\\): harbor-agent --model `,
        ),
      );
    }
    expect(out.find((l) => l.startsWith('[6] '))).toMatch(/, \d+ with no answer, \d+ invalid\)/);
    expect(r.stdout).toContain('llama-4-maverick-17b-128e-plain gives no answer for');
    // report.json keeps its shape and numbers whatever the terminal shows.
    const json = JSON.parse(readFileSync(join(home, 'cmp', 'report.json'), 'utf8')) as Comparison & { kind: string };
    expect(Object.keys(json)).toEqual(['kind', 'oracle', 'groups', 'agents', 'sentences']);
    expect(json.agents.map((a) => a.label)).toEqual(names);
    // Fields are only ever added: every one a comparison had is there, in its place (compare --out adds evidence_report).
    expect(Object.keys(json.agents[5]!).slice(0, Object.keys(sampleComparison().agents[0]!).length)).toEqual(
      Object.keys(sampleComparison().agents[0]!),
    );
    expect(json.agents[5]!.by_diagnosis.near_miss!.claims).toBe(120);
    // Two agents with short names keep the table they always had: names as headers, counts in the cells.
    expect(comparisonTable(sampleComparison()).split('\n')[0]).toMatch(/^\s+oracle\s+sloppy-agent\s+baseline$/);
  });

  test('agent folders: oracle and baseline by name, commands by position, the same agent twice kept apart', () => {
    expect(agentFolders(['oracle', 'baseline', 'my-agent --fast', 'baseline'])).toEqual([
      'oracle',
      'baseline',
      'agent-3',
      'baseline-4',
    ]);
  });

  test("each run keeps the name evaluate gave it (report.json's name), never renumbered by its place in the comparison", () => {
    const oracle = report(
      'oracle',
      { a: [{ id: 'v1', gold: 'verbatim', answer: 'verbatim', diagnosis: 'verbatim' }] },
      'oracle',
    );
    const cmd = 'my-agent --claims claims.json --out answers.json';
    const two = report(cmd, { a: [{ id: 'v1', gold: 'verbatim', answer: 'verbatim' }] }, 'agent-2');
    const three = report(`${cmd} --fast`, { a: [{ id: 'v1', gold: 'verbatim', answer: 'no_match' }] }, 'agent-3');
    const mine = report('short-cmd', { a: [{ id: 'v1', gold: 'verbatim', answer: 'verbatim' }] }, 'mine');
    const c = compareRuns(
      [
        { report: two, dir: 'out/agent-2' },
        { report: three, dir: 'out/agent-3' },
        { report: mine, dir: 'out/mine' },
      ],
      { report: oracle, dir: 'out/oracle' },
    );
    expect(c.agents.map((a) => a.label)).toEqual(['agent-2', 'agent-3', 'mine']);
    expect(c.sentences).toContain('agent-3 answers verbatim on 0% of verbatim quotes (0/1), right on 0% (0/1)');
    const text = comparisonTable(c);
    expect(text.split('\n')[0]).toMatch(/^\s+agent-2\s+agent-3\s+mine$/);
    expect(text.split('\n')).toEqual(
      expect.arrayContaining([`agent-2: ${cmd}`, `agent-3: ${cmd} --fast`, 'mine: short-cmd']),
    );
    // A report written before evaluate named its agents: a long command is named by its folder (evaluate's agent-N), not its place here.
    const { name: _n, ...old } = three;
    expect(compareRuns([{ report: old, dir: 'old/agent-3' }], { report: oracle, dir: 'o' }).agents[0]!.label).toBe(
      'agent-3',
    );
  });

  test('missing and invalid answers are counted on their own, in columns and sentences, never as "answers verbatim on 0%"', () => {
    const c = unansweredComparison();
    const a = c.agents[1]!;
    expect([a.missing, a.invalid]).toEqual([3, 1]);
    expect(a.by_diagnosis.extraction_artifact).toEqual({
      claims: 3,
      correct: 0,
      wrong: 0,
      missing: 3,
      invalid: 0,
      answered_verbatim: 0,
      accuracy: 0,
    });
    expect(a.by_diagnosis.verbatim).toEqual({
      claims: 2,
      correct: 1,
      wrong: 0,
      missing: 0,
      invalid: 1,
      answered_verbatim: 1,
      accuracy: 0.5,
    });
    expect(a.by_diagnosis.near_miss).toEqual({
      claims: 1,
      correct: 0,
      wrong: 1,
      missing: 0,
      invalid: 0,
      answered_verbatim: 1,
      accuracy: 0,
    });
    const mine = c.sentences.filter((s) => s.startsWith('agent-2 '));
    expect(mine).toEqual([
      'agent-2 answers verbatim on 100% of the verbatim quotes it answered (1/1), right on 100% of them (1/1)',
      'agent-2 gives an invalid answer (neither verbatim nor no_match) for 50% of verbatim quotes (1/2)',
      'agent-2 gives no answer for 100% of extraction artifacts (3/3)',
      'agent-2 answers verbatim on 100% of near misses (1/1), right on 0% (0/1)',
    ]);
    // The oracle answered everything: its columns and sentences are as they always were.
    expect(c.sentences).toContain('oracle answers verbatim on 0% of extraction artifacts (0/3), right on 100% (3/3)');
    const text = comparisonTable(c).split('\n');
    expect(text[0]).toMatch(/^\s+oracle\s+agent-2\s+agent-2 missing\s+agent-2 invalid$/);
    expect(text).toContainEqual(expect.stringMatching(/^claims right\s+100% \(6\/6\)\s+17% \(1\/6\)\s+3\/6\s+1\/6$/));
    expect(text).toContainEqual(
      expect.stringMatching(/^extraction_artifact \(3\)\s+100% \(3\/3\)\s+0% \(0\/3\)\s+3\/3\s+0\/3$/),
    );
    expect(text).toContainEqual(expect.stringMatching(/^verbatim \(2\)\s+100% \(2\/2\)\s+50% \(1\/2\)\s+0\/2\s+1\/2$/));
    expect(text).toContain(
      'missing: claims with no answer; invalid: answers neither verbatim nor no_match (both counted as not right)',
    );
  });

  test('agent names: the i-th --name names the i-th --agent, the rest as before; unsafe, duplicate, taken or surplus names refused in one line', () => {
    expect(agentFolders(['baseline', 'cmd a', 'cmd b'], ['no-match', 'gpt-4.1_run'])).toEqual([
      'no-match',
      'gpt-4.1_run',
      'agent-3',
    ]);
    expect(agentFolders(['oracle', 'baseline'], ['oracle'])).toEqual(['oracle', 'baseline']);
    const refused = (agents: string[], names: string[]) => {
      try {
        agentFolders(agents, names);
      } catch (err) {
        return (err as Error).message;
      }
      return 'accepted';
    };
    expect(refused(['a', 'b'], ['ok', 'a/b'])).toBe(
      "--name \"a/b\": not a safe folder name (1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit)",
    );
    for (const bad of ['', '..', '.hidden', '-x', 'a b', 'x'.repeat(65), 'ünï'])
      expect(refused(['a'], [bad]), bad).toMatch(/^--name .*: not a safe folder name/);
    expect(refused(['a', 'b'], ['Mine', 'mine'])).toBe('--name mine: agents 1 and 2 would both be named mine');
    expect(refused(['a', 'b', 'c'], ['agent-3'])).toBe(
      '--name agent-3: agents 1 and 3 would both be named agent-3 (agent 3 by default: give it a --name too)',
    );
    expect(refused(['a'], ['x', 'y'])).toBe('--name given 2 times for 1 agent: the i-th --name names the i-th --agent');
    expect(refused(['baseline', 'my-agent'], ['b', 'oracle'])).toBe(
      "--name oracle: that name is the oracle agent's, and --agent number 2 is not it; pick another name",
    );
    expect(refused(['a', 'b'], ['report.html'])).toBe(
      "--name report.html: the comparison's own file is named so; pick another name",
    );
  });

  test('paths are printed relative to the working folder inside it, absolute outside it', () => {
    expect(cwdRelativePath('/work/x/evaluate-out/oracle', '/work/x')).toBe('evaluate-out/oracle');
    expect(cwdRelativePath('evaluate-out/oracle', '/work/x')).toBe('evaluate-out/oracle');
    expect(cwdRelativePath('/work/x', '/work/x')).toBe('.');
    expect(cwdRelativePath('../y/oracle', '/work/x')).toBe('/work/y/oracle');
    expect(cwdRelativePath('/tmp/run', '/work/x')).toBe('/tmp/run');
  });
});

/** An agent that answers one claim, gives a label that is no label for another, and leaves the third unanswered. */
const PARTIAL = `node -e "require('fs').writeFileSync('answers.json',JSON.stringify({v:'verbatim',x:'maybe'}))"`;

/** An agent that answers verbatim for every claim (it "sees" the words in an artifact). */
const ALL_VERBATIM = `node -e "const c=require('./claims.json');require('fs').writeFileSync('answers.json',JSON.stringify(Object.fromEntries(c.map((x)=>[x.id,'verbatim']))))"`;

const PAGE =
  '<html><body><article><p>The committee approved the budget on Tuesday after a long debate about schools and roads.</p></article></body></html>';

describe('evaluate with several agents, and compare', () => {
  test('runs each agent in its own folder, named by --name or as before, the oracle too for the diagnoses, and compares them on stdout, report.json and report.html; compare reads them back under the same names', async () => {
    const live = await serve([{ path: '/news', body: PAGE, headers: { 'content-type': 'text/html' } }]);
    const tasks = tempDir();
    makeTask(tasks, 'one', [
      { id: 'v', quote: 'approved the budget on Tuesday', url: `${live.origin}/news`, gold: 'verbatim' },
      { id: 'x', quote: 'approved thebudget on Tuesday', url: `${live.origin}/news`, gold: 'no_match' },
      {
        id: 'f',
        quote: 'an entirely invented sentence about lunar tides and harbour cranes',
        url: `${live.origin}/news`,
        gold: 'no_match',
      },
    ]);
    const home = tempDir();
    const out = join(home, 'evaluate');
    const r = await runCli([
      'evaluate',
      '--tasks',
      tasks,
      '--out',
      out,
      '--isolation',
      'paths',
      '--quiet',
      '--agent',
      'baseline',
      '--agent',
      ALL_VERBATIM,
      '--agent',
      PARTIAL,
      '--name',
      'no-match',
    ]);
    // --quiet stops the progress, not the one line saying what paths isolation cannot stop.
    expect(r.stderr).toBe(pathsWarning());
    expect(r.code).toBe(0);
    // Each agent in its own folder, named by its --name or as evaluate always named it; the oracle, not among them, ran too.
    for (const d of ['no-match', 'agent-2', 'agent-3', 'oracle']) {
      expect(existsSync(join(out, d, 'trials', 'one', 'app', 'answers.json')), d).toBe(true);
      expect((JSON.parse(readFileSync(join(out, d, 'report.json'), 'utf8')) as EvaluationReport).name, d).toBe(d);
    }
    expect(r.stdout).toContain('oracle (run for the diagnoses): mean reward 1.000');
    // Each agent's own report shows the oracle's evidence on claims it reported nothing on (these agents write no
    // evidence report), marked as the oracle's and linking to its report; never a bare "no report".
    for (const d of ['no-match', 'agent-2', 'agent-3']) {
      const own = readFileSync(join(out, d, 'report.html'), 'utf8');
      expect(own, d).not.toContain('no report');
      expect(
        own.match(
          /<div class="oracle-ev"><div class="by">the oracle's evidence \(<a href="\.\.\/oracle\/report\.html">its report<\/a>\):<\/div>/g,
        ),
        d,
      ).toHaveLength(3);
      expect(own, d).toContain(
        '<span class="code extraction_artifact">extraction_artifact</span><div class="note">in the ',
      );
      expect(
        (JSON.parse(readFileSync(join(out, d, 'report.json'), 'utf8')) as EvaluationReport).tasks[0]!.rows.map(
          (row) => row.oracle?.diagnosis,
        ),
        d,
      ).toEqual(['verbatim', 'extraction_artifact', 'not_found']);
    }
    // A long command is a short column, named in a legend; missing and invalid answers have columns of their own.
    expect(r.stdout).toMatch(/^\s+no-match\s+agent-2\s+agent-3\s+agent-3 missing\s+agent-3 invalid$/m);
    expect(r.stdout.split('\n')).toEqual(
      expect.arrayContaining([`agent-2: ${ALL_VERBATIM}`, `agent-3: ${PARTIAL}`, 'no-match: baseline']),
    );
    expect(r.stdout).toMatch(/^extraction_artifact \(1\)\s+100% \(1\/1\)\s+0% \(0\/1\)\s+0% \(0\/1\)\s+0\/1\s+1\/1$/m);
    expect(r.stdout).toMatch(/^not_found \(1\)\s+100% \(1\/1\)\s+0% \(0\/1\)\s+0% \(0\/1\)\s+1\/1\s+0\/1$/m);
    expect(r.stdout).toContain('agent-2 answers verbatim on 100% of extraction artifacts (1/1), right on 0% (0/1)');
    expect(r.stdout).toContain('no-match answers verbatim on 0% of verbatim quotes (0/1), right on 0% (0/1)');
    expect(r.stdout).toContain('agent-3 gives no answer for 100% of quotes not found (1/1)');
    expect(r.stdout).toContain(
      'agent-3 gives an invalid answer (neither verbatim nor no_match) for 100% of extraction artifacts (1/1)',
    );
    expect(r.stdout).not.toMatch(/agent-3 answers verbatim on \d+% of (quotes not found|extraction artifacts)/);
    const json = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Comparison & { kind: string };
    expect(json.kind).toBe('comparison');
    expect(json.oracle).toBe('oracle');
    expect(json.agents.map((a) => [a.agent, a.label, a.dir])).toEqual([
      ['baseline', 'no-match', 'no-match'],
      [ALL_VERBATIM, 'agent-2', 'agent-2'],
      [PARTIAL, 'agent-3', 'agent-3'],
    ]);
    expect(json.agents[0]!.mean_reward).toBeCloseTo(2 / 3, 5); // the verifier's reward.txt, six decimals
    expect(json.agents[1]!.mean_reward).toBeCloseTo(1 / 3, 5);
    expect(json.groups).toEqual([
      { diagnosis: 'verbatim', claims: 1 },
      { diagnosis: 'extraction_artifact', claims: 1 },
      { diagnosis: 'not_found', claims: 1 },
    ]);
    expect(json.agents[1]!.by_diagnosis.not_found).toEqual({
      claims: 1,
      correct: 0,
      wrong: 1,
      missing: 0,
      invalid: 0,
      answered_verbatim: 1,
      accuracy: 0,
    });
    expect(json.agents[2]!.by_diagnosis.not_found).toEqual({
      claims: 1,
      correct: 0,
      wrong: 0,
      missing: 1,
      invalid: 0,
      answered_verbatim: 0,
      accuracy: 0,
    });
    expect([json.agents[2]!.missing, json.agents[2]!.invalid]).toEqual([1, 1]);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('answers verbatim on 100% of extraction artifacts');
    expect(html).toContain('agent-3 gives no answer for 100% of quotes not found (1/1)');

    // compare, run from beside the runs: the comparison folder itself, or the runs one by one (the oracle found by its
    // agent), under the names evaluate gave them; the folders printed relative to where compare runs.
    const again = await runCli(['compare', 'evaluate'], { cwd: home });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(
      /^extraction_artifact \(1\)\s+100% \(1\/1\)\s+0% \(0\/1\)\s+0% \(0\/1\)\s+0\/1\s+1\/1$/m,
    );
    expect(again.stdout).toMatch(/^\s+no-match\s+agent-2\s+agent-3\s+agent-3 missing\s+agent-3 invalid$/m);
    expect(again.stdout).toContain(`(from ${join('evaluate', 'oracle')}):`);
    const cmpOut = join(home, 'cmp');
    const oneByOne = await runCli(
      ['compare', join('evaluate', 'agent-2'), join('evaluate', 'agent-3'), join('evaluate', 'oracle'), '--out', 'cmp'],
      { cwd: home },
    );
    expect(oneByOne.code).toBe(0);
    expect(oneByOne.stdout).toMatch(/^\s+agent-2\s+agent-3\s+agent-3 missing\s+agent-3 invalid\s+oracle$/m);
    expect(oneByOne.stdout).toContain(`(from ${join('evaluate', 'oracle')}):`);
    expect(oneByOne.stdout).toContain(`wrote ${join('cmp', 'report.json')} and ${join('cmp', 'report.html')}`);
    const cmp = JSON.parse(readFileSync(join(cmpOut, 'report.json'), 'utf8')) as Comparison;
    expect(cmp.agents.map((a) => [a.label, a.agent])).toEqual([
      ['agent-2', ALL_VERBATIM],
      ['agent-3', PARTIAL],
      ['oracle', 'oracle'],
    ]);
    expect(cmp.agents[0]!.by_diagnosis).toEqual(json.agents[1]!.by_diagnosis);
    // report.json gives the folders relative to itself, and each row of the page links to its own run's report.
    expect(cmp.oracle).toBe(join('..', 'evaluate', 'oracle'));
    const page = readFileSync(join(cmpOut, 'report.html'), 'utf8');
    // compare --out writes each agent's page again with the oracle's evidence, and links to it; the runs are left as they were.
    for (const name of ['agent-2', 'agent-3']) {
      const withOracle = readFileSync(join(cmpOut, 'evidence', name, 'report.html'), 'utf8');
      expect(withOracle).toContain(
        `<div class="by">the oracle's evidence (<a href="${['..', '..', '..', 'evaluate', 'oracle'].join('/')}/report.html">its report</a>):</div>`,
      );
      expect(page).toContain(
        `<a class="with-oracle" href="evidence/${name}/report.html">with the oracle's evidence</a>`,
      );
    }
    expect(existsSync(join(cmpOut, 'evidence', 'oracle'))).toBe(false);
    expect(oneByOne.stdout).toContain(
      `each agent's claims with the oracle's evidence: ${join('cmp', 'evidence')}/NAME/report.html`,
    );
    for (const name of ['agent-2', 'agent-3', 'oracle']) {
      const href = new RegExp(`<tr><td>${name}</td>.*?<a href="([^"]+)"`).exec(page)?.[1];
      expect(href && resolve(cmpOut, decodeURIComponent(href)), name).toBe(join(out, name, 'report.html'));
    }
    // Run from elsewhere, the folders outside the working folder are printed whole.
    const fromAfar = await runCli(['compare', join(out, 'agent-3'), join(out, 'oracle')], { cwd: tempDir() });
    expect(fromAfar.code).toBe(0);
    expect(fromAfar.stdout).toContain(`(from ${join(out, 'oracle')}):`);

    // A run without an oracle run to split by, a folder that is no run: one line each, exit 2.
    const noOracle = await runCliInProcess(['compare', join(out, 'no-match')]);
    expect(noOracle.code).toBe(2);
    expect(noOracle.stderr).toMatch(/^quotecheck: error: no oracle run among .*no-match: .*pass --oracle DIR\n$/);
    const withOracle = await runCliInProcess(['compare', join(out, 'no-match'), '--oracle', join(out, 'oracle')]);
    expect(withOracle.code).toBe(0);
    expect(withOracle.stdout).toContain(
      'no-match answers verbatim on 0% of extraction artifacts (0/1), right on 100% (1/1)',
    );
    const notRun = await runCliInProcess(['compare', tasks]);
    expect(notRun.code).toBe(2);
    expect(notRun.stderr).toBe(`quotecheck: error: run ${tasks}: no report.json (not a finished evaluate run)\n`);
  }, 60_000);

  test('evaluate refuses a bad --name in one line before running anything', async () => {
    const tasks = tempDir();
    makeTask(tasks, 'one', [{ id: 'v', quote: 'q', url: 'http://127.0.0.1:9/', gold: 'verbatim' }]);
    const out = join(tempDir(), 'evaluate');
    const cases: [string[], string][] = [
      [
        ['--agent', 'baseline', '--agent', 'x', '--name', 'a/b'],
        "--name \"a/b\": not a safe folder name (1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit)",
      ],
      [
        ['--agent', 'x', '--agent', 'y', '--name', 'Same', '--name', 'same'],
        '--name same: agents 1 and 2 would both be named same',
      ],
      [
        ['--agent', 'x', '--agent', 'y', '--name', 'oracle'],
        "--name oracle: that name is the oracle agent's, and --agent number 1 is not it; pick another name",
      ],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(['evaluate', '--tasks', tasks, '--out', out, '--isolation', 'paths', '--quiet', ...args]);
      expect([r.code, r.stderr], args.join(' ')).toEqual([2, `quotecheck: error: ${message}\n`]);
    }
    expect(existsSync(out)).toBe(false);
  });

  test('compare refuses runs of different claims (another dataset, or another version of one) in one line naming them, instead of filing them under no_diagnosis', async () => {
    const home = tempDir();
    /** A finished run's folder holding this report, named as compare prints it (relative to where it runs). */
    const run = (name: string, r: EvaluationReport, tasksDir: string): string => {
      mkdirSync(join(home, name));
      writeFileSync(join(home, name, 'report.json'), JSON.stringify({ ...r, tasks_dir: tasksDir }));
      return name;
    };
    const claimsOf = (ids: string[], answer?: string) =>
      ids.map((id) => ({ id, gold: 'no_match', answer: answer ?? 'no_match', diagnosis: 'not_found' }));
    const one = { a: claimsOf(['c1', 'c2']), b: claimsOf(['c3']) };
    const other = { news: claimsOf(['n1', 'n2', 'n3']) };
    const oracle = run('oracle', report('oracle', one, 'oracle'), '/data/one');
    const mine = run('mine', report('baseline', other, 'mine'), '/data/two');
    const cases: [string[], string][] = [
      // An agent's run of another dataset against the oracle's run of the first.
      [
        [mine, oracle],
        "the oracle's run oracle is not of the claims of mine: 3 claims (task news) of mine are not in it (mine ran /data/two, oracle ran /data/one); its diagnoses cannot split them: pass --oracle with an oracle run of the same dataset",
      ],
    ];
    // Two agents on different parts of a dataset the oracle ran whole: their rewards are over different claims.
    const half = run('half', report('baseline', { a: claimsOf(['c1', 'c2']) }, 'half'), '/data/one');
    const all = run('all', report('baseline', one, 'all'), '/data/one');
    cases.push([
      [half, all, '--oracle', oracle],
      'runs half and all are not of the same claims: 1 claim (task b) only in all; compare runs of one dataset (evaluate --tasks DIR with the same DIR)',
    ]);
    // The same task names and ids in a re-exported dataset whose quotes or labels changed.
    const changed = run(
      'changed',
      report(
        'baseline',
        { a: [{ ...claimsOf(['c1'])[0]!, quote: 'another quote' }, ...claimsOf(['c2'])], b: claimsOf(['c3']) },
        'changed',
      ),
      '/data/one-v2',
    );
    cases.push([
      [all, changed, '--oracle', oracle],
      "the oracle's run oracle is not of the claims of changed: 1 claim (task a) has another quote, URL or gold label there (changed ran /data/one-v2, oracle ran /data/one); its diagnoses cannot split them: pass --oracle with an oracle run of the same dataset",
    ]);
    for (const [args, message] of cases) {
      const r = await runCli(['compare', ...args], { cwd: home });
      expect([r.code, r.stderr, r.stdout], args.join(' ')).toEqual([2, `quotecheck: error: ${message}\n`, '']);
    }
    // An oracle's run may hold more claims than the agents': it lends its diagnoses, and no claim goes without one.
    const ok = await runCli(
      [
        'compare',
        half,
        '--oracle',
        run('bigger', report('oracle', { ...one, c: claimsOf(['c9']) }, 'bigger'), '/data/one'),
      ],
      {
        cwd: home,
      },
    );
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).not.toContain('no_diagnosis');
    expect(ok.stdout).toMatch(/^not_found \(2\)/m);
  });

  test("compare fills diagnoses from the trials' evidence reports when report.json rows lack them", async () => {
    const dir = tempDir();
    const oracle = report('oracle', { t: [{ id: 'x', gold: 'no_match', answer: 'no_match' }] });
    writeFileSync(join(dir, 'report.json'), JSON.stringify(oracle));
    mkdirSync(join(dir, 'trials', 't', 'logs', 'agent'), { recursive: true });
    writeFileSync(
      join(dir, 'trials', 't', 'logs', 'agent', 'report.jsonl'),
      `${JSON.stringify({ id: 'x', label: 'no_match', diagnosis: 'paywall', drift: 'changed' })}\n`,
    );
    const { runs, oracle: found } = readRunFolder(dir);
    expect(found).toBe(runs[0]);
    expect(runs[0]!.report.tasks[0]!.rows[0]).toMatchObject({ diagnosis: 'paywall', drift: 'changed' });
    expect(compareRuns(runs, found!).groups).toEqual([
      { diagnosis: 'paywall', claims: 1 },
      { diagnosis: 'source_drifted', claims: 1 },
    ]);
  });
});

describe.skipIf(!HAVE_CHROMIUM)('the comparison page in headless Chromium', () => {
  const open = pageInChromium('compare', (dir) => {
    writeFileSync(join(dir, 'report.html'), renderComparisonHtml(sampleComparison()));
    mkdirSync(join(dir, 'agent-2'));
    writeFileSync(
      join(dir, 'agent-2', 'report.html'),
      '<!doctype html><title>agent-2 run</title><p id="agent">sloppy-agent</p>',
    );
    return join(dir, 'report.html');
  });

  test('agents side by side: the accuracy per oracle diagnosis under each agent, numbers right-aligned, the sentences, links to each run', async () => {
    const page = await open();
    expect(await page.locator('#by-diagnosis thead th').allInnerTexts()).toEqual([
      'diagnosis',
      'claims',
      'oracle',
      'sloppy-agent',
      'baseline',
    ]);
    const artifacts = page.locator('#by-diagnosis tr[data-diagnosis="extraction_artifact"] td');
    expect(await artifacts.allInnerTexts()).toEqual([
      'extraction_artifact',
      '5',
      '100% (5/5)',
      '60% (3/5)',
      '100% (5/5)',
    ]);
    expect(await artifacts.nth(3).getAttribute('title')).toBe(
      'sloppy-agent answers verbatim on 40% of extraction artifacts (2/5)',
    );
    expect(await page.locator('#agents tbody tr').first().locator('td').allInnerTexts()).toEqual([
      'oracle',
      '1.000',
      '0.800',
      '100% (10/10)',
      'oracle',
      'oracle',
    ]);
    expect(await page.locator('#sentences li').allInnerTexts()).toContain(
      'sloppy-agent answers verbatim on 40% of extraction artifacts (2/5), right on 60% (3/5)',
    );
    // Every numeric column's numbers end where its header ends.
    for (const table of ['#agents', '#by-diagnosis']) {
      const heads = page.locator(`${table} thead th`);
      for (let col = 0; col < (await heads.count()); col++) {
        if (!(await heads.nth(col).evaluate((el) => el.classList.contains('num')))) continue;
        const [headRight] = await textRights(heads.nth(col));
        const rights = await textRights(page.locator(`${table} tbody tr > :nth-child(${col + 1})`));
        expect(rights.length).toBeGreaterThan(0);
        for (const right of rights)
          expect(Math.abs(right - headRight!), `${table} column ${col + 1}`).toBeLessThanOrEqual(EDGE_PX);
      }
    }
    await page.locator('#agents a', { hasText: 'agent-2' }).click();
    await page.waitForURL(/agent-2\/report\.html$/);
    expect(await page.locator('#agent').innerText()).toBe('sloppy-agent');
    await page.close();
  });
});

describe.skipIf(!HAVE_CHROMIUM)(
  'the comparison page of an agent that left claims unanswered and gave an invalid label, in headless Chromium',
  () => {
    const open = pageInChromium('compare-gaps', (dir) => {
      writeFileSync(join(dir, 'report.html'), renderComparisonHtml(unansweredComparison()));
      return join(dir, 'report.html');
    });

    test('its missing and invalid answers have columns of their own, as in the terminal table; no tooltip says "answers verbatim on 0%" of claims it never answered', async () => {
      const page = await open();
      expect(await page.locator('#by-diagnosis thead th').allInnerTexts()).toEqual([
        'diagnosis',
        'claims',
        'oracle',
        'agent-2',
        'agent-2 missing',
        'agent-2 invalid',
      ]);
      const row = (d: string) => page.locator(`#by-diagnosis tr[data-diagnosis="${d}"] td`);
      expect(await row('extraction_artifact').allInnerTexts()).toEqual([
        'extraction_artifact',
        '3',
        '100% (3/3)',
        '0% (0/3)',
        '3/3',
        '0/3',
      ]);
      expect(await row('verbatim').allInnerTexts()).toEqual(['verbatim', '2', '100% (2/2)', '50% (1/2)', '0/2', '1/2']);
      expect(await row('near_miss').allInnerTexts()).toEqual([
        'near_miss',
        '1',
        '100% (1/1)',
        '0% (0/1)',
        '0/1',
        '0/1',
      ]);
      // The tooltips: over the claims it answered, naming the missing and invalid ones; none at all of verbatim for a group it never answered.
      expect(await row('extraction_artifact').nth(3).getAttribute('title')).toBe(
        'agent-2 gives no answer for 100% of extraction artifacts (3/3)',
      );
      expect(await row('verbatim').nth(3).getAttribute('title')).toBe(
        'agent-2 answers verbatim on 100% of the verbatim quotes it answered (1/1); agent-2 gives an invalid answer (neither verbatim nor no_match) for 50% of verbatim quotes (1/2)',
      );
      expect(await row('near_miss').nth(3).getAttribute('title')).toBe(
        'agent-2 answers verbatim on 100% of near misses (1/1)',
      );
      // The oracle answered everything: one column, its tooltip as it always was.
      expect(await row('extraction_artifact').nth(2).getAttribute('title')).toBe(
        'oracle answers verbatim on 0% of extraction artifacts (0/3)',
      );
      const titles = await page
        .locator('#by-diagnosis td[title]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('title')!));
      for (const t of titles.filter((x) => x.startsWith('agent-2 '))) expect(t).not.toMatch(/answers verbatim on 0%/);
      // The agents' table counts them for each agent, and the legend says what they are.
      expect(await page.locator('#agents thead th').allInnerTexts()).toEqual([
        'agent',
        'mean reward',
        'baseline',
        'claims right',
        'missing',
        'invalid',
        'report',
        'command',
      ]);
      expect(await page.locator('#agents tbody tr').nth(1).locator('td').allInnerTexts()).toEqual([
        'agent-2',
        '0.167',
        '0.667',
        '17% (1/6)',
        '3/6',
        '1/6',
        'agent-2',
        './agent.sh',
      ]);
      expect(await page.locator('#agents tbody tr').nth(0).locator('td.missing, td.invalid').allInnerTexts()).toEqual([
        '0/6',
        '0/6',
      ]);
      expect(await page.locator('#gaps-legend').innerText()).toContain(
        'missing: claims with no answer; invalid: answers neither verbatim nor no_match (both counted as not right)',
      );
      expect(await page.locator('#sentences li').allInnerTexts()).toContain(
        'agent-2 gives no answer for 100% of extraction artifacts (3/3)',
      );
      // Every numeric column's numbers, the new ones too, end where its header ends.
      for (const table of ['#agents', '#by-diagnosis']) {
        const heads = page.locator(`${table} thead th`);
        for (let col = 0; col < (await heads.count()); col++) {
          if (!(await heads.nth(col).evaluate((el) => el.classList.contains('num')))) continue;
          const [headRight] = await textRights(heads.nth(col));
          for (const right of await textRights(page.locator(`${table} tbody tr > :nth-child(${col + 1})`)))
            expect(Math.abs(right - headRight!), `${table} column ${col + 1}`).toBeLessThanOrEqual(EDGE_PX);
        }
      }
      await page.close();
    });
  },
);
