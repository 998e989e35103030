// `npm run bench`: quotecheck at benchmark scale (1,405 claims over 500 sources, loopback with injected latency)
// against the network-bound ideal, a concurrency-1 run and a plain script; CPU per stage; alignment speed.
// Prints a table and writes bench/results.json.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { goldenDir, projectRoot, startServer } from '../golden/server.js';
import { DEFAULT_OPTIONS } from '../src/defaults.js';
import { alignBenchmark } from './align.js';
import { cpuBenchmark } from './cpu.js';
import { DEFAULT_WORKLOAD, buildWorkload, idealSeconds } from './workload.js';

const run = promisify(execFile);
/** quotecheck runs at the default concurrency; the median is reported. */
const QUICK_RUNS = 3;
/** Stands for the server's port in the workload's URLs until each server has one. */
const PORT_PLACEHOLDER = 1;

interface PipelineRun {
  seconds: number;
  peakRssMb?: number;
  answers: Record<string, string>;
}

/** Runs the quotecheck CLI on the workload; wall time from outside, peak memory from its summary line. */
async function runQuotecheck(claims: string, out: string, args: string[]): Promise<PipelineRun> {
  const t = performance.now();
  const { stderr } = await run(process.execPath, [join(projectRoot(), 'bin', 'quotecheck.js'), 'run', '--quiet', '--claims', claims, '--out', out, ...args], { maxBuffer: 1 << 26 });
  const seconds = (performance.now() - t) / 1000;
  const peak = stderr.match(/peak memory (\d+) MB/);
  return { seconds, peakRssMb: peak ? Number(peak[1]) : undefined, answers: JSON.parse(readFileSync(out, 'utf8')) };
}

async function runPlain(claims: string, out: string): Promise<PipelineRun> {
  const t = performance.now();
  await run(process.execPath, [join(projectRoot(), 'dist', 'bench', 'plain.js'), claims, out], { maxBuffer: 1 << 26 });
  return { seconds: (performance.now() - t) / 1000, answers: JSON.parse(readFileSync(out, 'utf8')) };
}

function agreement(a: Record<string, string>, b: Record<string, string>): number {
  const ids = Object.keys(b);
  return ids.filter((id) => a[id] === b[id]).length / ids.length;
}

const fmt = (n: number, d = 2) => n.toFixed(d);

async function main(): Promise<void> {
  const started = performance.now();
  const out = join(projectRoot(), 'bench', 'out');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const sources = join(goldenDir(), 'sources');

  // One server per pipeline, so each meets the same first-request 503s; each has its own claims file (its port).
  const workload = await buildWorkload(sources, PORT_PLACEHOLDER);
  const serve = async (name: string) => {
    const server = await startServer({ routes: workload.routes, hosts: workload.hosts });
    const claims = join(out, `claims-${name}.json`);
    writeFileSync(claims, JSON.stringify(workload.claims.map((c) => ({ ...c, url: c.url.replace(`:${PORT_PLACEHOLDER}/`, `:${server.port}/`) }))));
    return { server, claims };
  };
  const webs = await Promise.all([...Array.from({ length: QUICK_RUNS }, (_, i) => `quick-${i + 1}`), 'naive', 'plain'].map(serve));
  const quickWebs = webs.slice(0, QUICK_RUNS);
  const [naiveWeb, plainWeb] = webs.slice(QUICK_RUNS) as [(typeof webs)[number], (typeof webs)[number]];
  process.stdout.write(`workload: ${workload.claims.length} claims over ${workload.sources.length} sources (${workload.sources.filter((s) => s.kind === 'pdf').length} PDF), ${workload.hosts.length} hosts, latency ${DEFAULT_WORKLOAD.minDelayMs}-${DEFAULT_WORKLOAD.maxDelayMs} ms, ${workload.sources.filter((s) => s.flaky).length} sources answer 503 once\n`);

  const quickRuns: PipelineRun[] = [];
  let naive: PipelineRun;
  let plain: PipelineRun;
  try {
    // Three runs, one after the other, each against its own server; the median is reported (on a
    // shared machine one run can be a second or two off).
    for (const [i, web] of quickWebs.entries()) {
      process.stdout.write(`running quotecheck (default concurrency), run ${i + 1} of ${QUICK_RUNS}...\n`);
      quickRuns.push(await runQuotecheck(web.claims, join(out, 'answers.json'), ['--report', join(out, 'report.jsonl')]));
    }
    process.stdout.write('running quotecheck at concurrency 1 and the plain script, side by side (both wait on the network)...\n');
    [naive, plain] = await Promise.all([
      runQuotecheck(naiveWeb.claims, join(out, 'answers-naive.json'), ['--concurrency', '1', '--per-host', '1']),
      runPlain(plainWeb.claims, join(out, 'answers-plain.json')),
    ]);
  } finally {
    await Promise.all(webs.map((w) => w.server.close()));
  }
  const bySpeed = [...quickRuns].sort((a, b) => a.seconds - b.seconds);
  const quick = bySpeed[Math.floor(bySpeed.length / 2)]!;
  process.stdout.write('measuring CPU per stage...\n');
  const cpu = await cpuBenchmark(sources, workload);
  const align = alignBenchmark(join(sources, 'pdf'));

  const idealQuick = idealSeconds(workload.sources, DEFAULT_OPTIONS.concurrency, DEFAULT_OPTIONS.perHost, DEFAULT_OPTIONS.backoffMinMs);
  const idealNaive = idealSeconds(workload.sources, 1, 1, DEFAULT_OPTIONS.backoffMinMs);
  const results = {
    machine: { cpus: availableParallelism(), model: cpus()[0]?.model ?? 'unknown', node: process.version },
    workload: { claims: workload.claims.length, sources: workload.sources.length, pdf_sources: workload.sources.filter((s) => s.kind === 'pdf').length },
    quotecheck_seconds: Number(fmt(quick.seconds)),
    quotecheck_runs_seconds: quickRuns.map((r) => Number(fmt(r.seconds))),
    ideal_seconds: Number(fmt(idealQuick)),
    ratio_vs_ideal: Number(fmt(quick.seconds / idealQuick)),
    naive_seconds: Number(fmt(naive.seconds)),
    naive_ideal_seconds: Number(fmt(idealNaive)),
    ratio_vs_naive: Number(fmt(naive.seconds / quick.seconds)),
    plain_seconds: Number(fmt(plain.seconds)),
    ratio_plain_vs_quotecheck: Number(fmt(plain.seconds / quick.seconds)),
    plain_agreement: Number(fmt(agreement(plain.answers, quick.answers), 3)),
    naive_agreement: Number(fmt(agreement(naive.answers, quick.answers), 3)),
    runs_agreement: Number(fmt(Math.min(...quickRuns.map((r) => agreement(r.answers, quick.answers))), 3)),
    html_mb_per_s: cpu.html_mb_per_s,
    html_cold_mb_per_s: cpu.html_cold_mb_per_s,
    pdf_mb_per_s: cpu.pdf_mb_per_s,
    match_ms_p50: cpu.match_ms_p50,
    match_ms_p90: cpu.match_ms_p90,
    peak_rss_mb: Math.max(...quickRuns.map((r) => r.peakRssMb ?? Infinity)),
    align,
    bench_seconds: 0,
  };
  results.bench_seconds = Number(fmt((performance.now() - started) / 1000, 1));

  const check = (ok: boolean) => (ok ? 'ok' : 'MISSED');
  const rows: [string, string, string, string][] = [
    ['pipeline', 'wall s', 'ideal s', 'notes'],
    ['quotecheck, concurrency 16, 2 per host', fmt(quick.seconds, 1), fmt(idealQuick, 1), `median of ${QUICK_RUNS} runs (${bySpeed.map((r) => fmt(r.seconds, 1)).join(', ')} s): ratio ${fmt(results.ratio_vs_ideal)} (target <= 1.25: ${check(results.ratio_vs_ideal <= 1.25)}); peak ${results.peak_rss_mb} MB (target < 600: ${check(results.peak_rss_mb < 600)}); the runs agree on ${fmt(results.runs_agreement * 100, 1)}% of answers`],
    ['quotecheck, concurrency 1', fmt(naive.seconds, 1), fmt(idealNaive, 1), `${fmt(results.ratio_vs_naive, 1)}x slower than the default; same answers on ${fmt(results.naive_agreement * 100, 1)}%`],
    ['plain script: sequential fetch, pdftotext, tag strip, includes', fmt(plain.seconds, 1), fmt(idealNaive, 1), `${fmt(results.ratio_plain_vs_quotecheck, 1)}x slower; agrees with quotecheck on ${fmt(results.plain_agreement * 100, 1)}% of claims`],
  ];
  const w = rows.map((r) => r.map((c) => c.length)).reduce((a, b) => a.map((x, i) => Math.max(x, b[i]!)));
  process.stdout.write('\n');
  for (const r of rows) process.stdout.write(`${r[0].padEnd(w[0]!)}  ${r[1].padStart(w[1]!)}  ${r[2].padStart(w[2]!)}  ${r[3]}\n`);
  process.stdout.write(`
stage costs (one thread)
  HTML extraction (htmlparser2 + Readability)       ${fmt(cpu.html_mb_per_s)} MB/s per core over ${cpu.html_mb} MB, warm (target >= 5: ${check(cpu.html_mb_per_s >= 5)}); first pass, cold: ${fmt(cpu.html_cold_mb_per_s)} MB/s
  PDF extraction (pdftotext)                         ${fmt(cpu.pdf_mb_per_s)} MB/s over ${cpu.pdf_mb} MB
  matching + diagnosis per claim                     p50 ${fmt(cpu.match_ms_p50)} ms, p90 ${fmt(cpu.match_ms_p90)} ms over ${cpu.claims_timed} claims (target p50 < 5: ${check(cpu.match_ms_p50 < 5)})
  alignment, ${align.quote_chars}-char quote in ${align.text_mb} MB             median ${align.align_ms_p50} ms, slowest ${align.align_ms_max} ms

machine: ${results.machine.cpus} cores (${results.machine.model}), Node ${results.machine.node}; bench took ${results.bench_seconds} s
`);
  const file = join(projectRoot(), 'bench', 'results.json');
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`wrote ${file}\n`);
}

await main();
