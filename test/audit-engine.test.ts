// Issue 42: the audit on a real engine finds what a careless author leaves (Why 6): gold labels left in claims.json, a
// grader edited to "accept abbreviations", a labelled file copied into the image by environment/Dockerfile, a grader
// that crashes on an answer that is no label; and it passes the unmodified export. Without an engine it certifies
// nothing unless asked to emulate, and then says so.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { runAudit, type AuditReport } from '../src/audit/audit.js';
import { canIsolate } from '../src/evaluate/namespace-root.js';
import { ENGINE, frozenEdition, needEngine, pathWithoutEngines } from './support/engine.js';
import { runCli } from './support/helpers.js';

/**
 * The careless datasets of Why 6, each a copy of the unmodified task changed so: [folder, change, the attacks that
 * find it out (the unmodified one gets them all)].
 */
const CARELESS: readonly (readonly [string, (task: string) => void, 'search' | 'grader' | 'both'])[] = [
  ['unmodified', () => {}, 'both'],
  [
    'labels-in-claims',
    (dir) => {
      const gold = JSON.parse(readFileSync(join(dir, 'tests', 'gold.json'), 'utf8')) as Record<string, string>;
      const file = join(dir, 'environment', 'claims.json');
      const claims = JSON.parse(readFileSync(file, 'utf8')) as { id: string }[];
      writeFileSync(file, JSON.stringify(claims.map((c) => ({ ...c, label: gold[c.id] }))));
    },
    'search',
  ],
  [
    'labelled-in-image',
    (dir) => {
      cpSync(join(dir, '..', '..', 'labelled.jsonl'), join(dir, 'environment', 'claims-labelled.jsonl'));
      edit(
        join(dir, 'environment', 'Dockerfile'),
        'WORKDIR /app',
        'COPY claims-labelled.jsonl /opt/data/claims-labelled.jsonl\nWORKDIR /app',
      );
    },
    'search',
  ],
  [
    'abbreviations',
    (dir) =>
      edit(
        join(dir, 'tests', 'grade.mjs'),
        'if (given === expected) correct++;',
        'if (expected.startsWith(String(given).trim().toLowerCase())) correct++;',
      ),
    'grader',
  ],
  [
    'string-labels',
    (dir) => edit(join(dir, 'tests', 'grade.mjs'), "(typeof label === 'string' ? label :", '(true ? String(label) :'),
    'grader',
  ],
];

/** Replaces `from` with `to` in a file of the task, which must hold it. */
function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  expect(text, file).toContain(from);
  writeFileSync(file, text.replace(from, to));
}

let unmodified = '';
let report: AuditReport | undefined;

// Two audits at once over the careless datasets (a task each, every task in the cheat suite): the one that finds
// labels in the image with the content search, the other the graders with the fuzz (the unmodified task gets both),
// as the agent's user, in separate mode. Their trials share the engine's builds and run side by side.
beforeAll(async () => {
  if (!('engine' in ENGINE)) return;
  const engine = ENGINE.engine;
  const edition = await frozenEdition();
  const root = dirname(edition);
  for (const [name, change, finder] of CARELESS) {
    const to = join(root, finder === 'search' ? 'found-by-search' : 'found-by-fuzz', name);
    cpSync(join(edition, 'pages'), to, { recursive: true });
    change(to);
  }
  unmodified = join(root, 'found-by-fuzz', 'unmodified');
  const audit = (folder: string, attacks: string[]) =>
    runAudit({
      dataset: join(root, folder),
      outDir: join(root, `audit-${folder}`),
      sample: 'all',
      attacks,
      users: ['agent'],
      modes: ['separate'],
      isolation: engine,
      jobs: 4,
    });
  const [search, fuzz] = await Promise.all([
    audit('found-by-search', ['search-gold-content']),
    audit('found-by-fuzz', ['search-gold-content', 'grader-fuzz']),
  ]);
  report = { ...fuzz, trials: [...search.trials, ...fuzz.trials], failures: [...search.failures, ...fuzz.failures] };
}, 600_000);

/** The trials of one dataset's task, and the attacks among them that failed. */
function ofTask(task: string) {
  const trials = report!.trials.filter((t) => t.task === task);
  const failed = [...new Set(trials.filter((t) => t.verdict === 'fail').map((t) => t.attack ?? t.kind))].sort();
  return { trials, failed, failures: report!.failures.filter((f) => f.includes(` on ${task},`)) };
}

describe('audit on a real engine: what a careless author leaves (Why 6)', () => {
  test('the unmodified export passes: no id-label pair anywhere the agent reads, every answer that is no label scores 0', (ctx) => {
    const engine = needEngine(ctx);
    const { trials, failed } = ofTask('unmodified');
    expect(failed).toEqual([]);
    expect([report!.certificate, report!.isolation]).toEqual([true, engine]);
    expect(trials.filter((t) => t.kind === 'attack').length).toBe(13);
    const search = trials.find((t) => t.attack === 'search-gold-content')!;
    expect(search.attackSaid?.join(' ')).toMatch(/files name a claim id; none pairs one with a label/);
  });

  test('gold labels left in environment/claims.json: the content search copies them, 1.000', (ctx) => {
    needEngine(ctx);
    const { trials, failed } = ofTask('labels-in-claims');
    expect(failed).toEqual(['search-gold-content']);
    const found = trials.find((t) => t.attack === 'search-gold-content')!;
    expect([found.reward, found.attackSaid?.join(' ')]).toEqual([1, expect.stringContaining('/app/claims.json: 2')]);
  });

  test('a labelled file copied into the image (environment/Dockerfile COPY to /opt): found by its content, 1.000', (ctx) => {
    needEngine(ctx);
    const { failed, failures } = ofTask('labelled-in-image');
    expect(failed).toEqual(['search-gold-content']);
    expect(failures.join(' ')).toMatch(/search-gold-content on labelled-in-image.*reward 1\.000/);
  });

  test('a grader edited to "accept abbreviations": the empty answer scores 1, above the share it says was answered', (ctx) => {
    needEngine(ctx);
    const { failed, failures } = ofTask('abbreviations');
    expect(failed).toContain('grader-fuzz-empty');
    expect(failures.join('\n')).toMatch(
      /grader-fuzz-empty on abbreviations.*the reward 1\.000 is above the share of claims answered with a label \(0\.000/,
    );
  });

  test('a grader that calls String() on a label: {"toString": 1} makes it fail and ["verbatim"] scores, both named', (ctx) => {
    needEngine(ctx);
    const { failed, failures } = ofTask('string-labels');
    // String(["verbatim"]) is "verbatim": the same grader also scores a one-label list.
    expect(failed).toEqual(['grader-fuzz-one-label-list', 'grader-fuzz-to-string']);
    expect(failures.join('\n')).toMatch(
      /grader-fuzz-to-string on string-labels.*the grader failed on answers that carry no label/,
    );
  });
});

describe('audit without an engine', () => {
  test('refuses to certify (exit 2, saying why) unless --isolation namespace is given; then the verdict says it is emulated, not a certificate', async (ctx) => {
    if (!('engine' in ENGINE)) ctx.skip(ENGINE.why);
    const env = { ...process.env, PATH: pathWithoutEngines() };
    const refused = await runCli(['audit', unmodified, '--quiet'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/audit certifies a dataset only on a real container engine.*none answers here/);
    expect(refused.stderr).toMatch(/--isolation namespace.*an emulation.*not a certificate/);
    if (!canIsolate()) ctx.skip('namespace isolation needs root and util-linux unshare');
    const emulated = await runCli(
      [
        'audit',
        unmodified,
        '--isolation',
        'namespace',
        '--attacks',
        'grader-fuzz-empty',
        '--users',
        'agent',
        '--modes',
        'separate',
      ],
      { env },
    );
    expect(emulated.code, emulated.stderr).toBe(0);
    expect(emulated.stdout).toMatch(
      /audit passed: .*; emulated on namespace containers, not a certificate: no image was built/,
    );
  }, 300_000);
});
