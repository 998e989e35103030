// Issue 25: no task's instruction gives away a label: its answers example uses made-up ids, never the task's own, and
// says the same whatever the labels (every golden task, every exported task in both layouts).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { goldenDir } from '../golden/server.js';
import { runCliInProcess, tempDir, taskFolders } from './support/helpers.js';

const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));

/** The answers example of an instruction: the ```json block after "Write `/app/answers.json`", as text. */
function answersExample(text: string): string {
  const m = /Write `\/app\/answers\.json`[\s\S]*?```json\n([\s\S]*?)\n```/.exec(text);
  if (!m) throw new Error('no answers example in the instruction');
  return m[1]!;
}

/** Every id a task has: its claims' and its gold's. */
function taskIds(
  task: string,
  layout: { env: string; verifier: string } = { env: 'environment', verifier: 'tests' },
): string[] {
  const claims = readJson(join(task, layout.env, 'claims.json')) as { id: string }[];
  return [...claims.map((c) => c.id), ...Object.keys(readJson(join(task, layout.verifier, 'gold.json')) as object)];
}

/** The example names none of the task's ids (nor mentions one anywhere in its text), and labels each made-up id once. */
function expectNoHint(example: string, ids: readonly string[], where: string): void {
  const parsed = JSON.parse(example) as Record<string, string>;
  for (const id of ids) {
    expect(Object.keys(parsed), `${where}: the example uses the task's own id ${id}`).not.toContain(id);
    expect(example.includes(JSON.stringify(id)), `${where}: ${id} in ${example}`).toBe(false);
  }
  expect(Object.values(parsed).sort(), where).toEqual(['no_match', 'verbatim']);
}

describe("the instruction's answers example gives nothing away", () => {
  it("every golden task: placeholder ids, none of the task's own, and the same example in every task", () => {
    const tasks = join(goldenDir(), 'tasks');
    const examples = new Set<string>();
    const names = readdirSync(tasks).filter((t) => existsSync(join(tasks, t, 'instruction.md')));
    expect(names.length).toBeGreaterThanOrEqual(10);
    for (const t of names) {
      const example = answersExample(readFileSync(join(tasks, t, 'instruction.md'), 'utf8'));
      expectNoHint(example, taskIds(join(tasks, t)), t);
      examples.add(example);
    }
    // One example for all: it cannot carry anything about a task's claims or their labels.
    expect([...examples]).toEqual(['{ "claim-id-1": "verbatim", "claim-id-2": "no_match" }']);
  });

  it('every exported task, both layouts: no real id in the example, placeholders that dodge ids spelled like them, and the same instruction whatever the labels', async () => {
    const dir = tempDir();
    const rows = [
      { task: 'plain', id: 'a-1', quote: 'first quote here', url: 'http://127.0.0.1:9/a', label: 'verbatim' },
      { task: 'plain', id: 'a-2', quote: 'second quote here', url: 'http://127.0.0.1:9/a', label: 'no_match' },
      { task: 'plain', id: 'a-3', quote: 'third quote here', url: 'http://127.0.0.1:9/b', label: 'verbatim' },
      // A task whose own ids are the usual placeholders: the example must take others.
      {
        task: 'lookalike',
        id: 'claim-id-1',
        quote: 'fourth quote here',
        url: 'http://127.0.0.1:9/c',
        label: 'verbatim',
      },
      {
        task: 'lookalike',
        id: 'claim-id-2',
        quote: 'fifth quote here',
        url: 'http://127.0.0.1:9/c',
        label: 'no_match',
      },
      {
        task: 'lookalike',
        id: 'claim-id-4',
        quote: 'sixth quote here',
        url: 'http://127.0.0.1:9/d',
        label: 'no_match',
      },
    ];
    const flipped = rows.map((r) => ({ ...r, label: r.label === 'verbatim' ? 'no_match' : 'verbatim' }));
    const files = { gold: join(dir, 'gold.jsonl'), flipped: join(dir, 'flipped.jsonl') };
    writeFileSync(files.gold, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    writeFileSync(files.flipped, flipped.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const layouts = {
      harbor: { file: 'instruction.md', env: 'environment', verifier: 'tests' },
      skillsbench: { file: 'task.md', env: 'environment', verifier: 'verifier' },
    };
    for (const [layout, l] of Object.entries(layouts)) {
      const texts: Record<string, Record<string, string>> = {};
      for (const [which, file] of Object.entries(files)) {
        const out = join(dir, `${layout}-${which}`);
        const r = await runCliInProcess([
          'export',
          '--allow-private',
          '--labelled',
          file,
          '--out',
          out,
          '--task-field',
          'task',
          '--layout',
          layout,
          '--name',
          'qc',
        ]);
        expect(r.code, r.stderr).toBe(0);
        texts[which] = {};
        for (const t of taskFolders(out)) {
          const text = readFileSync(join(out, t, l.file), 'utf8');
          expectNoHint(answersExample(text), taskIds(join(out, t), l), `${layout} ${t}`);
          texts[which]![t] = text;
        }
      }
      expect(answersExample(texts.gold!.plain!)).toBe('{ "claim-id-1": "verbatim", "claim-id-2": "no_match" }');
      expect(answersExample(texts.gold!.lookalike!)).toBe('{ "claim-id-3": "verbatim", "claim-id-5": "no_match" }');
      // The gold labels flipped, the instructions are the same to the byte: nothing in them follows from a label.
      expect(texts.flipped).toEqual(texts.gold);
    }
  });
});
