// The documented performance figures are bench/results.json's, rounded as the documentation shows them: a bench re-run
// without updating them fails here. They live in the Performance section (docs/performance.md); the test finds that
// section by its heading in README.md or docs/*.md, wherever it moves.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DEFAULT_OPTIONS } from '../src/config/defaults.js';
import { docSection } from './support/docs.js';
import { ROOT } from './support/helpers.js';

const { file: doc, text: readme } = docSection('Performance');
const results = JSON.parse(readFileSync(join(ROOT, 'bench', 'results.json'), 'utf8'));

/** The Performance section's table row that starts with `label` (the first cell, as written). */
function row(label: string): string {
  const line = readme.split('\n').find((l) => l.startsWith(`| ${label} |`));
  if (line === undefined) throw new Error(`${doc} has no table row starting "| ${label} |" under Performance`);
  return line;
}

/** The number the pattern's group captures in the row (thousands separators dropped). */
function figure(label: string, pattern: RegExp): number {
  const m = row(label).match(pattern);
  if (!m) throw new Error(`${doc}: row "${label}" has no figure matching ${pattern}`);
  return Number(m[1]!.replaceAll(',', ''));
}

/**
 * Asserts that the README's figure is `value` rounded to the README's `decimals`: within half a unit
 * of the last shown place (results.json keeps two decimals, so 12.45 may have been 12.452 and shown 12.5).
 */
function expectShown(readmeFigure: number, value: number, decimals: number): void {
  expect(Math.abs(readmeFigure - value), `${doc} shows ${readmeFigure}, results.json has ${value}`).toBeLessThanOrEqual(
    0.5 * 10 ** -decimals + 1e-9,
  );
}

const BENCH = `benchmark profile (${DEFAULT_OPTIONS.concurrency} at once, ${DEFAULT_OPTIONS.perHost} per host)`;
const TASK = 'task profile (560 claims, 130 sources, 17 asking to wait)';

/** The bound's figures (bench/bound.ts boundFigures) as bench/results.json keeps them with each profile. */
interface BoundFigures {
  bound_seconds: number;
  bound_kind: string;
  bound_parts_seconds: Record<'chain' | 'host' | 'global' | 'cpu' | 'startup', number>;
  ratio_to_bound: number;
}

/** A row's bound cell ("5.22 s (chain)") and its ratio ("1.13x the bound"). */
function expectBound(label: string, b: BoundFigures): void {
  expectShown(figure(label, /\| ([\d.]+) s \(\w+\) \|/), b.bound_seconds, 2);
  expect(row(label)).toContain(` s (${b.bound_kind}) |`);
  expectShown(figure(label, /([\d.]+)x the bound/), b.ratio_to_bound, 2);
}

/** The parts table's row for a profile: each part of its bound, in seconds. */
function expectParts(label: string, b: BoundFigures): void {
  const cells = row(label)
    .split('|')
    .slice(2, 7)
    .map((c) => Number(c.trim()));
  const p = b.bound_parts_seconds;
  const parts = [p.chain, p.host, p.global, p.cpu, p.startup];
  for (const [i, shown] of cells.entries()) expectShown(shown, parts[i]!, 2);
}

/** A profile's figures as bench/results.json keeps them (the benchmark profile's under other names, mapped below). */
interface ProfileFigures extends BoundFigures {
  seconds: number;
  runs_seconds: number[];
  ideal_seconds: number;
  ratio_vs_ideal: number;
  peak_rss_mb: number;
  ideal_seconds_wait_holds_slots?: number;
}

/**
 * A profile's row: the median wall, every run (rounded as shown), the bound, the ideal, the ratios, peak memory, and the
 * ideal had waits held their slots.
 */
function expectProfileRow(label: string, p: ProfileFigures): void {
  expectShown(figure(label, /\| ([\d.]+) s \(runs/), p.seconds, 1);
  expect(
    row(label)
      .match(/runs: ([\d., ]+)\)/)![1]!
      .split(', ')
      .map(Number),
  ).toEqual(p.runs_seconds.map((s) => Number(s.toFixed(1))));
  expectBound(label, p);
  expectShown(figure(label, /\| ([\d.]+) s \| [\d.]+x the bound/), p.ideal_seconds, 1);
  expectShown(figure(label, /([\d.]+)x the ideal/), p.ratio_vs_ideal, 2);
  expect(figure(label, /peak memory (\d+) MB/)).toBe(p.peak_rss_mb);
  if (p.ideal_seconds_wait_holds_slots !== undefined) {
    expectShown(figure(label, /would allow ([\d.]+) s at best/), p.ideal_seconds_wait_holds_slots, 1);
  }
}

describe('the documented Performance figures agree with bench/results.json', () => {
  test('the three profiles: wall, every run, ideal, ratio, peak memory', () => {
    expectProfileRow(BENCH, {
      ...results,
      seconds: results.quotecheck_seconds,
      runs_seconds: results.quotecheck_runs_seconds,
    });
    const task = results.task_profile;
    expectProfileRow(TASK, task);
    expect(row(TASK)).toContain(
      `${task.claims} claims, ${task.sources} sources, ${task.sources_with_retry_after} asking to wait`,
    );
    const f = task.flaky_host;
    expectProfileRow(
      `flaky-host profile (${f.claims} claims, ${f.sources} sources on ${f.hosts} hosts, ${f.sources_with_retry_after} asking to wait)`,
      f,
    );
  });

  test("the parts of each profile's bound", () => {
    const r = results.real_pages;
    expectParts('benchmark profile', results);
    expectParts('task profile', results.task_profile);
    expectParts('flaky-host profile', results.task_profile.flaky_host);
    expectParts("real-pages profile, the real web's faults", r.latency);
    expectParts('real-pages profile, no latency and no waits', r.no_latency);
    expectParts("a task's oracle", r.oracle);
    expect(readme).toContain(`on ${r.cores} cores`);
  });

  test("the real-pages profile: each run's wall and CPU, the bound, the ideal, the ratios; a task's oracle", () => {
    const r = results.real_pages;
    const runs = (label: string, pattern: RegExp) => row(label).match(pattern)![1]!.split(', ').map(Number);
    const shown = (xs: number[], d = 1) => xs.map((x) => Number(x.toFixed(d)));
    const latency =
      `real-pages profile, the real web's faults (${r.claims} claims, ${r.sources} sources, ${r.pdf_sources} PDF, ` +
      `${r.sources_with_retry_after} asking to wait)`;
    const none = 'real-pages profile, no latency and no waits (the same faults)';
    for (const [label, v] of [
      [latency, r.latency],
      [none, r.no_latency],
    ] as const) {
      expectShown(figure(label, /^\| [^|]+ \| ([\d.]+) s \(runs/), v.seconds, 1);
      expect(runs(label, /s \(runs: ([\d., ]+)\)/)).toEqual(shown(v.runs_seconds));
      expectBound(label, v);
      expectShown(figure(label, /\| ([\d.]+) s \| CPU/), v.ideal_seconds, 1);
      expectShown(figure(label, /CPU ([\d.]+) s/), v.cpu_seconds, 1);
      expect(runs(label, /CPU [\d.]+ s \(runs: ([\d., ]+)\)/)).toEqual(shown(v.cpu_runs_seconds));
      expect(figure(label, /peak memory (\d+) MB/)).toBe(v.peak_rss_mb);
    }
    expect(row(latency)).toContain(`x the bound (target ${r.latency.target_ratio})`);
    expectShown(figure(none, /wall ([\d.]+)x the CPU time/), r.no_latency.wall_per_cpu, 2);
    if (r.no_latency.target_wall_per_cpu !== undefined)
      expect(row(none)).toContain(`CPU time (target ${r.no_latency.target_wall_per_cpu}, the bound being CPU)`);
    else expect(row(none)).toContain(`x the bound (target ${r.no_latency.target_ratio})`);
    for (const [key, what] of [
      ['sources_asking_to_wait_twice_or_more', 'twice or more'],
      ['sources_on_slow_host', 'on a slow host'],
      ['sources_cut_short', 'cut short'],
      ['sources_redirected', 'redirect to another host'],
      ['sources_behind_cookie_wall', 'behind a cookie wall'],
    ] as const)
      expect(readme).toContain(`${r[key]} ${what}`);
    const o = r.oracle;
    const oracle = `a task's oracle, cold (${o.claims} claims, ${o.sources} sources, ${o.pdf_sources} PDF)`;
    expectShown(figure(oracle, /\| ([\d.]+) s wall/), o.seconds, 2);
    expect(runs(oracle, /wall \(runs: ([\d., ]+)\)/)).toEqual(shown(o.runs_seconds, 2));
    expectShown(figure(oracle, /network alone ([\d.]+) s/), o.ideal_seconds, 2);
    expectShown(figure(oracle, /CPU ([\d.]+) s/), o.cpu_seconds, 2);
    expect(runs(oracle, /CPU [\d.]+ s \(runs: ([\d., ]+)\)/)).toEqual(shown(o.cpu_runs_seconds, 2));
    expectShown(figure(oracle, /\(`--version`\) ([\d.]+) s/), o.startup_cpu_seconds, 2);
    expectShown(figure(oracle, /bound ([\d.]+) s/), o.bound_seconds, 2);
    expect(row(oracle)).toContain(`s (${o.bound_kind}),`);
    expectShown(figure(oracle, /([\d.]+)x the bound/), o.ratio_to_bound, 2);
  });

  test('concurrency 1 and the plain script', () => {
    const naive = 'benchmark profile, concurrency 1';
    expectShown(figure(naive, /^\| [^|]+ \| ([\d.]+) s/), results.naive_seconds, 1);
    expectShown(figure(naive, /\| ([\d.]+) s \| [\d.]+x/), results.naive_ideal_seconds, 1);
    expectShown(figure(naive, /([\d.]+)x slower/), results.ratio_vs_naive, 1);
    expectShown(figure('plain script', /^\| [^|]+ \| ([\d.]+) s/), results.plain_seconds, 1);
    expectShown(figure('plain script', /([\d.]+)x slower/), results.ratio_plain_vs_quotecheck, 1);
    expectShown(figure('plain script', /on ([\d.]+)% of claims/), results.plain_agreement * 100, 1);
  });

  test('stage costs', () => {
    const html = 'HTML extraction (decode, one htmlparser2 pass, Readability)';
    expectShown(figure(html, /([\d.]+) MB\/s per core warm/), results.html_mb_per_s, 1);
    expectShown(figure(html, /([\d.]+) MB\/s on the first pass/), results.html_cold_mb_per_s, 1);
    expectShown(figure('PDF extraction (pdftotext)', /([\d.]+) MB\/s/), results.pdf_mb_per_s, 1);
    expectShown(figure('matching and diagnosis per claim', /p50 ([\d.]+) ms/), results.match_ms_p50, 2);
    expectShown(figure('matching and diagnosis per claim', /p90 ([\d.]+) ms/), results.match_ms_p90, 1);
    expectShown(figure('alignment, 300-character quote in 5 MB', /\| (\d+) ms/), results.align.align_ms_p50, 0);
  });

  test('record, replay and the drifted workload', () => {
    const record = '`--record bench.warc.gz`';
    expectShown(figure(record, /^\| [^|]+ \| ([\d.]+) s/), results.record.seconds, 1);
    expectShown(figure(record, /\+(\d+)% over/), results.record.overhead_vs_quick * 100, 0);
    expectShown(figure(record, /archive ([\d.]+) MB/), results.record.archive_mb, 1);
    expect(figure(record, /([\d,]+) records/)).toBe(results.record.warc_records);
    expect(figure(record, /peak memory (\d+) MB/)).toBe(results.record.peak_rss_mb);
    const replay = '`--replay bench.warc.gz`, inside `unshare --net` (no network at all)';
    expectShown(figure(replay, /^\| [^|]+ \| ([\d.]+) s/), results.replay.seconds, 1);
    expectShown(figure(replay, /([\d.]+)x the live median/), results.replay.speedup_vs_quick, 2);
    expectShown(figure(replay, /own clock: ([\d.]+) s/), results.replay.run_seconds, 1);
    expect(figure(replay, /peak memory (\d+) MB/)).toBe(results.replay.peak_rss_mb);
    const d = results.drift;
    const auto = `drifted workload (${d.drifted_sources} of ${results.workload.sources} sources serve another document today), \`--wayback auto\``;
    expectShown(figure(auto, /^\| [^|]+ \| ([\d.]+) s/), d.auto_seconds, 1);
    expectShown(figure(auto, /on (\d+)% of/), d.auto_agreement * 100, 0);
    expect(figure(auto, /(\d+) lookups/)).toBe(d.wayback_lookups);
    expect(figure(auto, /(\d+) requests/)).toBe(d.wayback_requests);
    expectShown(figure(auto, /\(([\d.]+) a drifted source/), d.requests_per_drifted_source, 0);
    expectShown(figure(auto, /, ([\d.]+) a claim judged/), d.requests_per_capture_claim, 2);
    const off = 'the same, `--wayback off`';
    expectShown(figure(off, /^\| [^|]+ \| ([\d.]+) s/), d.off_seconds, 1);
    expectShown(figure(off, /on ([\d.]+)%/), d.off_agreement * 100, 1);
    expect(figure(off, /all (\d+) verbatim claims/)).toBe(d.drifted_verbatim_as_labelled);
  });

  test('the scale phase: both scales, time per claim against 1x and the targets', () => {
    const s = results.scale;
    const big = `${s.factor}x`;
    for (const [label, r] of [
      ['1x', s.one_x],
      [big, s.scaled],
    ] as const) {
      expect(figure(label, /^\| [^|]+ \| ([\d,]+) \|/)).toBe(r.claims);
      expect(figure(label, /^\| [^|]+ \| [\d,]+ \| ([\d,]+) \|/)).toBe(r.sources);
      expectShown(figure(label, /^(?:\| [^|]+ ){3}\| ([\d.]+) s/), r.wall_seconds, 1);
      expectShown(figure(label, /\| ([\d.]+) ms \|/), r.ms_per_claim, 2);
      expectShown(figure(label, /\| ([\d.]+) s \([\d.]+x\) \|/), r.ideal_seconds, 1);
      expectShown(figure(label, / s \(([\d.]+)x\) \|/), r.ratio_vs_ideal, 2);
      expectShown(figure(label, /\| ([\d.]+) s \(\w+, [\d.]+x\) \|/), r.bound_seconds, 1);
      expect(row(label)).toContain(` s (${r.bound_kind}, `);
      expectShown(figure(label, / s \(\w+, ([\d.]+)x\) \|/), r.ratio_to_bound, 2);
      expect(figure(label, /\| ([\d,]+) MB \|/)).toBe(r.peak_rss_mb);
    }
    // 1x is the mean of the two runs around the scaled one, as the README says.
    expect(s.one_x_wall).toMatch(/^mean of the two 1x runs/);
    expect(readme).toContain('the 1x figures are the mean of the two 1x runs');
    expect(
      row('1x')
        .match(/\(mean of ([\d., ]+)\)/)![1]!
        .split(', ')
        .map(Number),
    ).toEqual(s.one_x.runs_seconds.map((x: number) => Number(x.toFixed(1))));
    expectShown(figure(big, /([\d.]+)x the 1x time per claim/), s.ms_per_claim_ratio, 2);
    expect(row(big)).toContain(
      `per claim (target ${s.target_ms_per_claim_ratio}: ${s.ms_per_claim_target_met ? 'met' : 'missed'})`,
    );
    expect(row(big)).toContain(
      `peak memory target ${s.target_peak_rss_mb} MB: ${s.peak_rss_target_met ? 'met' : 'missed'}`,
    );
    expect(s.replica_disagreements + s.one_x_runs_disagreements).toBe(0);
    expect(row(big)).toContain("every replica's answers are the 1x answers");
  });

  test('the shipped build: its size, and its start-up against the installed CLI and the ideal', () => {
    const st = results.startup;
    const size = "the whole command line's build (`dist/bundle/quotecheck/`)";
    expectShown(figure(size, /\| ([\d.]+) MB in \d+ files/), st.bundle_total_mb, 1);
    expect(figure(size, /MB in (\d+) files/)).toBe(st.bundle_files);
    const mb = (path: string) => st.bundle_bytes[path] / 1e6;
    expectShown(figure(size, /`quotecheck.mjs` ([\d.]+) MB/), mb('quotecheck/quotecheck.mjs'), 2);
    expectShown(figure(size, /needs them ([\d.]+) MB/), mb('quotecheck/chunk-*.mjs'), 2);
    expectShown(figure(size, /`html-worker.mjs` ([\d.]+) MB/), mb('quotecheck/html-worker.mjs'), 2);
    expectShown(figure(size, /`warc-extract.mjs` ([\d.]+) MB/), mb('quotecheck/warc-extract.mjs'), 2);
    expect(figure(size, /`grade.mjs` (\d+) KB/)).toBe(Math.round(st.bundle_bytes['quotecheck/grade.mjs'] / 1e3));
    const ms = (seconds: number) => Math.round(seconds * 1000);
    const first = 'start-up, `run` of one claim, spawn to its first request';
    expect(figure(first, /\| (\d+) ms \(installed/)).toBe(ms(st.first_request_bundle_seconds));
    expect(figure(first, /installed CLI: (\d+) ms/)).toBe(ms(st.first_request_installed_seconds));
    expect(figure(first, /ideal: (\d+) ms/)).toBe(ms(st.first_request_ideal_seconds));
    expect(row(first)).toContain(
      `target ${ms(st.first_request_target_seconds)} ms: ${st.first_request_target_met ? 'met' : 'missed'}`,
    );
    const task = '`run` of one claim, end to end';
    expect(figure(task, /\| (\d+) ms \(installed/)).toBe(ms(st.one_task_bundle_seconds));
    expect(figure(task, /installed CLI: (\d+) ms/)).toBe(ms(st.one_task_installed_seconds));
    expect(figure(task, /ideal: (\d+) ms/)).toBe(ms(st.one_task_ideal_seconds));
    expectShown(figure(task, /; ([\d.]+)x the ideal/), st.one_task_ratio_vs_ideal, 2);
    expect(st.one_task_answers_right).toBe(true);
    const run = 'start-up, `run --baseline` of one claim';
    expect(figure(run, /\| (\d+) ms \(installed/)).toBe(ms(st.run_bundle_seconds));
    expect(figure(run, /installed CLI: (\d+) ms/)).toBe(ms(st.run_installed_seconds));
    expectShown(figure(run, /; ([\d.]+)x/), st.run_speedup, 2);
    const version = 'start-up, `--version`';
    expect(figure(version, /\| (\d+) ms \(installed/)).toBe(ms(st.version_bundle_seconds));
    expect(figure(version, /installed CLI: (\d+) ms/)).toBe(ms(st.version_installed_seconds));
    expect(figure('start-up, `node -e 0` (Node.js alone)', /\| (\d+) ms/)).toBe(ms(st.node_bare_seconds));
    expect(readme).toContain(`the median of ${st.runs} runs`);
  });
});

describe("the DOM caps (src/extract/html.ts DOM_LIMITS) against bench/results.json's long_pages", () => {
  // What DOM_LIMITS's comment says of each measured page: within every cap (a tree, and Readability's article), or past one.
  const FITS = ['chapter-20k-p', 'chapter-20k-br', 'chapter-60k-p', 'report-24', 'wide-100k'];
  const PAST = ['report-48', 'wrapped-10k-x20', 'dense-300k', 'chains-50x400', 'deep-400'];
  const pages = new Map<string, { withDomLimits: string; readabilityMs: number; minHeapMb: number | null }>(
    (results.long_pages?.pages ?? []).map((p: { page: string }) => [p.page, p]),
  );

  test('every page the comment names was measured; those it says fit have a tree inside the limits, the rest none', async () => {
    const { DOM_LIMITS } = await import('../src/extract/html.js');
    expect([...pages.keys()].sort()).toEqual([...FITS, ...PAST].sort());
    for (const name of FITS) {
      const p = pages.get(name)!;
      expect(p.withDomLimits, name).toBe('tree');
      // Inside the default extraction limit and the worker's heap, on the machine that measured it.
      expect(p.readabilityMs, name).toBeLessThan(60_000);
      expect(p.minHeapMb, name).not.toBeNull();
      expect(p.minHeapMb!, name).toBeLessThanOrEqual(512);
    }
    for (const name of PAST) expect(pages.get(name)!.withDomLimits, name).not.toBe('tree');
    expect(DOM_LIMITS.maxDepth).toBe(400);
  });
});

describe("the MCP server under load (docs/performance.md#mcp-server-under-load) against bench/results.json's mcp_load", () => {
  test('each load: calls answered, wall time and peak memory, as bench/mcp-load.ts makes the rows', async () => {
    const { mcpLoadRows } = await import('../bench/mcp-load.js');
    for (const cells of mcpLoadRows(results.mcp_load)) expect(row(cells[0]!)).toContain(`| ${cells.join(' | ')} |`);
    const load = results.mcp_load;
    expect(readme).toContain(`longest ${load.small_during_30mb_max_seconds.toFixed(2)} s`);
    expect(readme).toContain(
      `highest peak ${load.peak_rss_mb_max_30mb} MB (target under ${load.target_peak_rss_mb_30mb} MB, small calls ` +
        `within ${load.target_small_seconds} s: ${load.targets_met_30mb ? 'met' : 'missed'})`,
    );
    expect(readme).toContain(`RSS ${load.soak.rss_mb.join(' → ')} MB`);
    expect(readme).toContain(
      `${load.cancel.before_mb} MB before, ${load.cancel.peaks_mb.join(', ')} MB at their peaks`,
    );
    expect(readme).toContain(`${load.cancel.after_mb} MB after`);
  });
});
