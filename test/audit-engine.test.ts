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
import { runCli, tempDir } from './support/helpers.js';

/** The attacks that find each careless dataset out (the whole catalogue runs by hand: see the closing notes). */
const ATTACKS = ['search-gold-content', 'grader-fuzz'];

let pages = '';
beforeAll(async () => {
  if ('engine' in ENGINE) pages = join(await frozenEdition(), 'pages');
}, 120_000);

/** A copy of the unmodified task, changed by `change(taskDir)`. */
function careless(change: (task: string) => void): string {
  const task = join(tempDir(), 'pages');
  cpSync(pages, task, { recursive: true });
  change(task);
  return task;
}

/** Replaces `from` with `to` in a file of the task, which must hold it. */
function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  expect(text, file).toContain(from);
  writeFileSync(file, text.replace(from, to));
}

function audit(dataset: string, engine: string): Promise<AuditReport> {
  return runAudit({
    dataset,
    outDir: tempDir(),
    attacks: ATTACKS,
    users: ['agent'],
    modes: ['separate'],
    isolation: engine as 'podman' | 'docker',
    jobs: 4,
  });
}

/** The attacks a report's failures name. */
const failedAttacks = (r: AuditReport): string[] =>
  [...new Set(r.trials.filter((t) => t.verdict === 'fail').map((t) => t.attack ?? t.kind))].sort();

describe('audit on a real engine: what a careless author leaves (Why 6)', () => {
  test('the unmodified export passes: no id-label pair anywhere the agent reads, every answer that is no label scores 0', async (ctx) => {
    const engine = needEngine(ctx);
    const r = await audit(pages, engine);
    expect(r.failures).toEqual([]);
    expect([r.ok, r.certificate, r.isolation]).toEqual([true, true, engine]);
    expect(r.trials.filter((t) => t.kind === 'attack').length).toBe(13);
    const search = r.trials.find((t) => t.attack === 'search-gold-content')!;
    expect(search.attackSaid?.join(' ')).toMatch(/files name a claim id; none pairs one with a label/);
  }, 300_000);

  test('gold labels left in environment/claims.json: the content search copies them, 1.000', async (ctx) => {
    const engine = needEngine(ctx);
    const task = careless((dir) => {
      const gold = JSON.parse(readFileSync(join(dir, 'tests', 'gold.json'), 'utf8')) as Record<string, string>;
      const file = join(dir, 'environment', 'claims.json');
      const claims = JSON.parse(readFileSync(file, 'utf8')) as { id: string }[];
      writeFileSync(file, JSON.stringify(claims.map((c) => ({ ...c, label: gold[c.id] }))));
    });
    const r = await audit(task, engine);
    expect(failedAttacks(r)).toEqual(['search-gold-content']);
    const found = r.trials.find((t) => t.attack === 'search-gold-content')!;
    expect([found.reward, found.attackSaid?.join(' ')]).toEqual([1, expect.stringContaining('/app/claims.json: 2')]);
  }, 300_000);

  test('a labelled file copied into the image (environment/Dockerfile COPY to /opt): found by its content, 1.000', async (ctx) => {
    const engine = needEngine(ctx);
    const labelled = join(dirname(dirname(pages)), 'labelled.jsonl');
    const task = careless((dir) => {
      cpSync(labelled, join(dir, 'environment', 'claims-labelled.jsonl'));
      edit(
        join(dir, 'environment', 'Dockerfile'),
        'WORKDIR /app',
        'COPY claims-labelled.jsonl /opt/data/claims-labelled.jsonl\nWORKDIR /app',
      );
    });
    const r = await audit(task, engine);
    expect(failedAttacks(r)).toEqual(['search-gold-content']);
    expect(r.failures.join(' ')).toMatch(/search-gold-content on pages.*reward 1\.000/);
  }, 300_000);

  test('a grader edited to "accept abbreviations": the empty answer scores 1, above the share it says was answered', async (ctx) => {
    const engine = needEngine(ctx);
    const task = careless((dir) =>
      edit(
        join(dir, 'tests', 'grade.mjs'),
        'if (given === expected) correct++;',
        'if (expected.startsWith(String(given).trim().toLowerCase())) correct++;',
      ),
    );
    const r = await audit(task, engine);
    expect(failedAttacks(r)).toContain('grader-fuzz-empty');
    expect(r.failures.join('\n')).toMatch(
      /grader-fuzz-empty on pages.*the reward 1\.000 is above the share of claims answered with a label \(0\.000/,
    );
  }, 300_000);

  test('a grader that calls String() on a label: {"toString": 1} makes it fail and ["verbatim"] scores, both named', async (ctx) => {
    const engine = needEngine(ctx);
    const task = careless((dir) =>
      edit(join(dir, 'tests', 'grade.mjs'), "(typeof label === 'string' ? label :", '(true ? String(label) :'),
    );
    const r = await audit(task, engine);
    // String(["verbatim"]) is "verbatim": the same grader also scores a one-label list.
    expect(failedAttacks(r)).toEqual(['grader-fuzz-one-label-list', 'grader-fuzz-to-string']);
    expect(r.failures.join('\n')).toMatch(
      /grader-fuzz-to-string on pages.*the grader failed on answers that carry no label/,
    );
  }, 300_000);
});

describe('audit without an engine', () => {
  test('refuses to certify (exit 2, saying why) unless --isolation namespace is given; then the verdict says it is emulated, not a certificate', async (ctx) => {
    if (!('engine' in ENGINE)) ctx.skip(ENGINE.why);
    const env = { ...process.env, PATH: pathWithoutEngines() };
    const refused = await runCli(['audit', pages, '--quiet'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/audit certifies a dataset only on a real container engine.*none answers here/);
    expect(refused.stderr).toMatch(/--isolation namespace.*an emulation.*not a certificate/);
    if (!canIsolate()) ctx.skip('namespace isolation needs root and util-linux unshare');
    const emulated = await runCli(
      [
        'audit',
        pages,
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
