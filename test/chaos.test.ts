// Chaos: 500 claims over 150 sources, a seeded random third of them hostile. The run ends inside its
// deadline, the answers file is complete and valid, every healthy source's claims are right, memory stays low.
// Also: a run killed with SIGKILL at any moment leaves a valid answers file with what it had decided.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, test } from 'vitest';
import type { Route } from '../golden/server.js';
import { rng } from '../bench/random.js';
import { hostileRoutes } from './support/hostile.js';
import { runCli, runCliInProcess, serve, tempDir, writeJson } from './support/helpers.js';

const WORDS =
  'river council budget harbour school winter engine garden market station bridge museum orchard library signal county ferry quarry meadow lantern'.split(
    ' ',
  );
const HOSTS = Array.from({ length: 10 }, (_, i) => `127.0.0.${i + 1}`);

interface Claim {
  id: string;
  quote: string;
  url: string;
}

interface Web {
  routes: Route[];
  claims: Claim[];
  /** Expected labels for claims of healthy sources. */
  expected: Map<string, 'verbatim' | 'no_match'>;
  hostile: number;
}

/** Hostile behaviours a source may have: the paths of the hostile web (test/support/hostile.ts). */
const MISBEHAVIOURS = [
  '/drip',
  '/hang',
  '/reset',
  '/loop/a',
  '/chain/0',
  '/bomb',
  '/endless',
  '/short-body',
  '/500',
  '/403',
  '/bot-check',
  '/corrupt.pdf',
  '/truncated.pdf',
  '/deep',
  '/401',
  '/451',
];

async function buildWeb(seed: number): Promise<Web> {
  const random = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const hostile = await hostileRoutes();
  const byPath = new Map(hostile.map((r) => [r.path, r]));
  const routes: Route[] = [];
  const claims: Claim[] = [];
  const expected = new Map<string, 'verbatim' | 'no_match'>();
  let hostileCount = 0;
  for (let s = 0; s < 150; s++) {
    const host = HOSTS[s % HOSTS.length]!;
    const path = `/s/${s}`;
    const url = `http://${host}:PORT${path}`;
    const sentences = Array.from(
      { length: 5 },
      (_, k) =>
        `Source ${s} notes that the ${pick(WORDS)} near the ${pick(WORDS)} changed in year ${1900 + k * 7 + s}.`,
    );
    const misbehaves = random() < 1 / 3;
    if (misbehaves) {
      hostileCount++;
      const behaviour = pick(MISBEHAVIOURS);
      const base = byPath.get(behaviour)!;
      // The hostile behaviour, at this source's own path (redirect chains keep their own paths).
      routes.push({ ...base, path, host });
    } else {
      const body = `<html><body><nav>Home News</nav><article>${sentences.map((t) => `<p>${t}</p>`).join('')}</article></body></html>`;
      routes.push({
        path,
        host,
        body,
        headers: { 'content-type': 'text/html; charset=utf-8' },
        delayMs: Math.floor(random() * 200),
      });
    }
    const n = s < 50 ? 4 : 3; // 50 x 4 + 100 x 3 = 500 claims
    for (let c = 0; c < n; c++) {
      const id = `s${s}-c${c}`;
      const sentence = sentences[c]!;
      const verbatim = random() < 0.5;
      const quote = verbatim ? sentence : sentence.replace(/year \d+/, 'year 1066');
      claims.push({ id, quote, url });
      if (!misbehaves) expected.set(id, verbatim ? 'verbatim' : 'no_match');
    }
  }
  // The redirect chains and loops of the hostile web keep their targets at their own paths.
  for (const r of hostile) if (r.path.startsWith('/chain/') || r.path.startsWith('/loop/')) routes.push(r);
  return { routes, claims, expected, hostile: hostileCount };
}

describe('chaos', () => {
  test('500 claims, 150 sources, a third hostile: inside the deadline, complete, healthy claims right, memory under 1 GB', async () => {
    const web = await buildWeb(20261130);
    const server = await serve(web.routes, HOSTS);
    const claims = web.claims.map((c) => ({ ...c, url: c.url.replace(':PORT/', `:${server.port}/`) }));
    expect(web.hostile).toBeGreaterThan(35);
    const dir = tempDir();
    const out = join(dir, 'answers.json');
    const deadline = 90;
    const started = Date.now();
    const r = await runCliInProcess([
      'run',
      '--allow-private',
      '--claims',
      writeJson(join(dir, 'claims.json'), claims),
      '--out',
      out,
      '--report',
      join(dir, 'report.jsonl'),
      '--deadline',
      String(deadline),
      '--timeout',
      '2',
      '--retries',
      '1',
      '--source-budget',
      '5',
      '--max-mb',
      '40',
      '--quiet',
    ]);
    const seconds = (Date.now() - started) / 1000;
    expect(r.code, r.stderr).toBe(0);
    expect(seconds).toBeLessThan(deadline + 5);
    const answers = JSON.parse(readFileSync(out, 'utf8')) as Record<string, string>;
    expect(Object.keys(answers)).toEqual(claims.map((c) => c.id));
    expect(Object.values(answers).every((l) => l === 'verbatim' || l === 'no_match')).toBe(true);
    const wrong = [...web.expected].filter(([id, label]) => answers[id] !== label);
    expect(wrong, 'healthy sources answered wrongly').toEqual([]);
    const peak = Number(r.stderr.match(/peak memory (\d+) MB/)?.[1]);
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThan(1024);
  }, 180_000);

  test('SIGKILL at any moment leaves a valid answers file holding what was decided', async () => {
    const routes: Route[] = [
      ...Array.from({ length: 30 }, (_, i) => ({
        path: `/ok/${i}`,
        body: `<p>Fast page ${i} says hello.</p>`,
        headers: { 'content-type': 'text/html' },
        delayMs: 50 * i,
      })),
      ...Array.from({ length: 10 }, (_, i) => ({ path: `/slow/${i}`, hang: true as const })),
    ];
    const server = await serve(routes);
    const claims = [
      ...Array.from({ length: 30 }, (_, i) => ({
        id: `ok${i}`,
        quote: `Fast page ${i} says hello.`,
        url: `${server.origin}/ok/${i}`,
      })),
      ...Array.from({ length: 10 }, (_, i) => ({ id: `slow${i}`, quote: 'x', url: `${server.origin}/slow/${i}` })),
    ];
    const dir = tempDir();
    const out = join(dir, 'answers.json');
    let sawPartial = false;
    const r = await runCli(
      [
        'run',
        '--allow-private',
        '--claims',
        writeJson(join(dir, 'claims.json'), claims),
        '--out',
        out,
        '--timeout',
        '60',
        '--quiet',
      ],
      {
        onSpawn: async (child) => {
          // Read the file while the run writes it: every read is complete JSON with every id.
          for (let i = 0; i < 400; i++) {
            await sleep(10);
            if (!existsSync(out)) continue;
            const answers = JSON.parse(readFileSync(out, 'utf8')) as Record<string, string>;
            expect(Object.keys(answers)).toHaveLength(40);
            const decided = Object.entries(answers).filter(([id, l]) => id.startsWith('ok') && l === 'verbatim').length;
            if (decided >= 10 && decided < 30) {
              sawPartial = true;
              break;
            }
          }
          child.kill('SIGKILL');
        },
      },
    );
    expect(r.signal).toBe('SIGKILL');
    expect(sawPartial).toBe(true);
    const answers = JSON.parse(readFileSync(out, 'utf8')) as Record<string, string>;
    expect(Object.keys(answers)).toEqual(claims.map((c) => c.id));
    // What was decided before the kill is there; the rest is no_match.
    expect(
      Object.entries(answers).filter(([id, l]) => id.startsWith('ok') && l === 'verbatim').length,
    ).toBeGreaterThanOrEqual(10);
    expect(
      Object.entries(answers)
        .filter(([id]) => id.startsWith('slow'))
        .every(([, l]) => l === 'no_match'),
    ).toBe(true);
  }, 60_000);
});
