// Harbor's providers (src/dataset/providers.ts): the capability table in docs/datasets.md is, row for row, what the data
// and its verdicts say (the test prints the table it expects); every row cites a file of Harbor's environment code;
// and the tasks `export` writes are the shape the table judges, so its "runs on" line is the table's verdict.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, test } from 'vitest';
import { cannotRun, PROVIDERS, whereItRuns, type Provider, type TaskShape } from '../../src/dataset/providers.js';
import { runCliInProcess, tempDir } from '../support/helpers.js';
import { docSection } from '../support/docs.js';

/** The shapes the table's verdict columns are for: the defaults of a live and a frozen export, and the two fixes. */
const LIVE: TaskShape = {
  verifier: 'separate',
  verifierNetwork: 'public',
  agentNetwork: 'public',
  agentImage: false,
  verifierImage: false,
};
const SHAPES: [string, TaskShape][] = [
  ['live export (default)', LIVE],
  ['frozen export (default)', { ...LIVE, agentNetwork: 'no-network' }],
  ['live, --verifier shared', { ...LIVE, verifier: 'shared' }],
  ['live, both image repos', { ...LIVE, agentImage: true, verifierImage: true }],
];

const IMAGE = { dockerfile: 'builds its Dockerfile', docker_image: 'docker_image only', none: 'neither' };
const SEPARATE = {
  own: 'its own image',
  prebuilt: 'only with its docker_image',
  never: 'never: shared only',
};
const yes = (b: boolean): string => (b ? 'yes' : 'no');

function verdict(p: Provider, shape: TaskShape): string {
  const found = cannotRun(p, shape);
  if (found.length === 0) return 'runs';
  return found.some((c) => c.fix === 'no') ? 'no' : `needs ${found.map((c) => c.fix).join(', ')}`;
}

/** The table docs/datasets.md must hold, row for row. */
function expectedTable(): string[] {
  const head = [
    'provider',
    "Harbor's code",
    "the agent's image",
    'no-network',
    'network per phase',
    'a separate verifier',
    'memory, disk',
    ...SHAPES.map(([name]) => name),
  ];
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...PROVIDERS.map(
      (p) =>
        `| ${[
          p.name,
          `\`${p.file}\``,
          IMAGE[p.image],
          yes(p.noNetwork),
          yes(p.phaseNetwork),
          SEPARATE[p.separate],
          p.resources,
          ...SHAPES.map(([, shape]) => verdict(p, shape)),
        ].join(' | ')} |`,
    ),
  ];
}

describe("Harbor's providers: the capability table", () => {
  test('docs/datasets.md holds the table the data gives, row for row (this test prints it)', () => {
    const { file, text } = docSection("Where a dataset runs: Harbor's providers");
    expect(file).toMatch(/datasets\.md$/);
    // The section's first table.
    const lines = text.split('\n');
    const first = lines.findIndex((l) => l.startsWith('|'));
    const end = lines.findIndex((l, i) => i > first && !l.startsWith('|'));
    const rows = lines.slice(first, end < 0 ? undefined : end);
    expect(rows.join('\n'), `expected:\n${expectedTable().join('\n')}`).toBe(expectedTable().join('\n'));
  });

  test("every row cites a file of Harbor v0.22.0's environment code, and names the providers the issue lists", () => {
    const names = PROVIDERS.map((p) => p.name);
    for (const wanted of [
      'docker',
      'daytona',
      'modal',
      'e2b',
      'langsmith',
      'novita',
      'singularity',
      'cwsandbox',
      'wandb',
      'hf_sandbox',
      'opensandbox',
      'gke',
      'apple_container',
      'blaxel',
      'use_computer',
      'ack',
      'openshift',
      'runloop',
      'islo',
      'tensorlake',
      'beam',
      'ec2',
      'skypilot',
      'vercel',
      'cua_cloud',
    ])
      expect(names).toContain(wanted);
    expect(new Set(names).size).toBe(names.length);
    for (const p of PROVIDERS) {
      expect(p.file, p.name).toMatch(/^[a-z0-9_]+(\/[a-z0-9_]+)?\.py$/);
      // A provider that is not `own` says why; one that is, says nothing of it.
      expect(p.separateWhy === undefined, p.name).toBe(p.separate === 'own');
    }
  });

  test('the default live export runs on docker, daytona, modal, e2b, gke, apple_container and blaxel', () => {
    const { runs } = whereItRuns(LIVE);
    expect(runs).toEqual(
      expect.arrayContaining(['docker', 'daytona', 'modal', 'e2b', 'gke', 'apple_container', 'blaxel']),
    );
    // A separate verifier with no-network would lose gke and apple_container (no no-network there), after the agent ran.
    const { runs: sealed } = whereItRuns({ ...LIVE, verifierNetwork: 'no-network' });
    expect(sealed).not.toContain('gke');
    expect(sealed).not.toContain('apple_container');
    expect(sealed.length).toBeLessThan(runs.length);
  });

  test("with both prebuilt images every provider that runs a task's image runs it, but runloop and cua_cloud (shared only)", () => {
    const { not } = whereItRuns({ ...LIVE, agentImage: true, verifierImage: true });
    expect(not.map((p) => p.name).sort()).toEqual(['cua_cloud', 'runloop', 'use_computer']);
    const shared = whereItRuns({ ...LIVE, verifier: 'shared', agentImage: true });
    expect(shared.not.map((p) => p.name)).toEqual(['use_computer']);
  });
});

describe('export writes the shape the table judges, and prints its verdict', () => {
  /** The shape of a written task, read from its task.toml as Harbor reads it. */
  function shapeOf(taskDir: string): TaskShape {
    const toml = parseToml(readFileSync(join(taskDir, 'task.toml'), 'utf8')) as Record<string, Record<string, unknown>>;
    const verifierEnv = toml.verifier?.environment as Record<string, unknown> | undefined;
    return {
      verifier: toml.verifier?.environment_mode === 'separate' ? 'separate' : 'shared',
      verifierNetwork: (verifierEnv?.network_mode as TaskShape['verifierNetwork']) ?? 'public',
      agentNetwork: (toml.agent?.network_mode as TaskShape['agentNetwork']) ?? 'public',
      agentImage: typeof toml.environment?.docker_image === 'string',
      verifierImage: typeof verifierEnv?.docker_image === 'string',
    };
  }

  const labelled = (dir: string): string => {
    const file = join(dir, 'l.jsonl');
    const rows = [1, 2, 3].map((i) => ({
      id: `c${i}`,
      quote: `q ${i}`,
      url: `https://example.org/${i}`,
      label: 'verbatim',
    }));
    writeFileSync(file, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
    return file;
  };

  test.each([
    ['the defaults', [], LIVE],
    ['--verifier shared', ['--verifier', 'shared'], { ...LIVE, verifier: 'shared' as const }],
    [
      'both image repos',
      ['--image-repo', 'ghcr.io/o/quotes', '--verifier-image-repo', 'registry.example.org/o/quotes-verifier'],
      { ...LIVE, agentImage: true, verifierImage: true },
    ],
  ])(
    '%s: the tasks are that shape, and the line names exactly the providers the table gives',
    async (_n, args, shape) => {
      const dir = tempDir();
      const out = join(dir, 'ds');
      const r = await runCliInProcess(['export', '--labelled', labelled(dir), '--out', out, ...args]);
      expect(r.code, r.stderr).toBe(0);
      for (const task of readdirSync(out).filter((n) => n.startsWith('l-')))
        expect(shapeOf(join(out, task))).toEqual(shape);
      const line = r.stdout.split('\n').find((l) => l.startsWith('runs on '))!;
      expect(line.split(': ')[1]!.split(', ')).toEqual(whereItRuns(shape).runs);
    },
  );

  test("SkillsBench 1.1's layout runs on its own harnesses: export names none of Harbor's providers for it", async () => {
    const dir = tempDir();
    const out = join(dir, 'ds');
    const r = await runCliInProcess(['export', '--labelled', labelled(dir), '--out', out, '--layout', 'skillsbench']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "runs on SkillsBench 1.1's harnesses (task.md: EvalScope, AgentCompass), not on Harbor's providers",
    );
    expect(r.stdout).not.toMatch(/^not on:/m);
    expect(readFileSync(join(out, 'README.md'), 'utf8')).toContain("SkillsBench 1.1's layout (`task.md`)");
  });
});
