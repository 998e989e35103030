// compare reads evaluate's report.json through its schema (src/results/evaluation-report.ts EvaluationReportSchema): a malformed report is refused in one line naming the folder and the field; an older report's missing fields are read as before.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { readRunFolder } from '../../src/results/run-folders.js';
import { tempDir } from '../support/helpers.js';

const good = {
  agent: 'a',
  mean_reward: 1,
  claims: 1,
  correct: 1,
  tasks: [{ task: 't', rows: [{ id: 'x', correct: true, gold: 'verbatim', answer: 'verbatim' }] }],
};
const cases: [unknown, string][] = [
  [[], 'report.json is not an object'],
  [{ ...good, agent: 3, name: 4 }, 'report.json has no "agent"'],
  [{ ...good, name: 4, claims: 'x' }, 'report.json: "name" is not a string'],
  [{ ...good, claims: 'x', tasks: 3 }, 'report.json: "claims" is not a number'],
  [{ ...good, mean_reward: null }, 'report.json: "mean_reward" is not a number'],
  [{ ...good, tasks: 3 }, 'report.json has no "tasks" list'],
  [
    { ...good, tasks: [good.tasks[0], { task: 5, rows: [3] }] },
    'report.json: task 2 has no "task" name or "rows" list',
  ],
  [{ ...good, tasks: [good.tasks[0], 'x'] }, 'report.json: task 2 has no "task" name or "rows" list'],
  [
    { ...good, tasks: [good.tasks[0], { task: 'u', rows: {} }] },
    'report.json: task 2 has no "task" name or "rows" list',
  ],
  [
    { ...good, tasks: [{ task: 'u', rows: [{ id: 'y', correct: true }, { id: 'z' }] }] },
    'report.json: task u, row 2 has no "id" or "correct"',
  ],
  [{ ...good, tasks: [{ task: 'u', rows: [null] }] }, 'report.json: task u, row 1 has no "id" or "correct"'],
];
test("a malformed report.json: the folder and the field, in compare's words; an older report's missing totals and advice default", () => {
  for (const [json, msg] of cases) {
    const dir = tempDir();
    writeFileSync(join(dir, 'report.json'), JSON.stringify(json));
    expect(() => readRunFolder(dir)).toThrow(`run ${dir}: ${msg}`);
  }
  const dir = tempDir();
  writeFileSync(
    join(dir, 'report.json'),
    JSON.stringify({ ...good, extra: 1, tasks: [{ ...good.tasks[0], grade: null }] }),
  );
  const r = readRunFolder(dir).runs[0]!.report;
  expect(r.baseline_mean_reward).toBe(0);
  expect(r.advice).toEqual([]);
  expect(r.tasks[0]!.grade).toBe(null);
});

test("a comparison's report.json without its agents' folders: which one, in compare's words", () => {
  const cases: [unknown, string][] = [
    [{ kind: 'comparison' }, 'report.json: a comparison without an "agents" list'],
    [{ kind: 'comparison', agents: {} }, 'report.json: a comparison without an "agents" list'],
    [{ kind: 'comparison', agents: [{ dir: 'a' }, { label: 'b' }] }, 'report.json: agent 2 has no "dir"'],
    [{ kind: 'comparison', agents: [null] }, 'report.json: agent 1 has no "dir"'],
  ];
  for (const [json, msg] of cases) {
    const dir = tempDir();
    writeFileSync(join(dir, 'report.json'), JSON.stringify(json));
    expect(() => readRunFolder(dir)).toThrow(`run ${dir}: ${msg}`);
  }
});
