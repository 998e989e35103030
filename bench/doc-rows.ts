// The table rows of docs/performance.md that test/readme-figures.test.ts holds to bench/results.json, printed from
// that file: after a bench run, `node dist/bench/doc-rows.js` gives every row to paste, each as the documentation writes
// it (the prose around them is the writer's).
import { DEFAULT_OPTIONS } from '../src/config/defaults.js';
import { readResults } from './results-file.js';

/* The results are read as the bench wrote them: JSON, typed here only as far as the rows need. */
// biome-ignore lint/suspicious/noExplicitAny: the file's shape is bench.ts's figures(), checked by the figures test
type Results = any;

const f1 = (n: number): string => n.toFixed(1);
const f2 = (n: number): string => n.toFixed(2);
const list = (xs: readonly number[], d = 1): string => xs.map((x) => x.toFixed(d)).join(', ');
const bound = (b: Results): string => `${f2(b.bound_seconds)} s (${b.bound_kind})`;
const ms = (seconds: number): number => Math.round(seconds * 1000);

/** The main table: each profile's wall, bound, ideal and what it shows. */
function profileRows(r: Results): string[] {
  const t = r.task_profile;
  const f = t.flaky_host;
  const p = r.real_pages;
  const [l, n] = [p.latency, p.no_latency];
  const held = (x: Results) =>
    `; a wait holding its slots would allow ${f1(x.ideal_seconds_wait_holds_slots)} s at best`;
  const row = (label: string, x: Results, notes: string) =>
    `| ${label} | ${f1(x.seconds)} s (runs: ${list(x.runs_seconds)}) | ${bound(x)} | ${f1(x.ideal_seconds)} s | ${notes} |`;
  const ideal = (x: Results) => `${f2(x.ratio_to_bound)}x the bound; ${f2(x.ratio_vs_ideal)}x the ideal (target 1.15)`;
  const none =
    n.target_wall_per_cpu !== undefined
      ? `wall ${f2(n.wall_per_cpu)}x the CPU time (target ${n.target_wall_per_cpu}, the bound being CPU); ` +
        `${f2(n.ratio_to_bound)}x the bound`
      : `${f2(n.ratio_to_bound)}x the bound (target ${n.target_ratio}); wall ${f2(n.wall_per_cpu)}x the CPU time`;
  const cpu = (x: Results) => `CPU ${f1(x.cpu_seconds)} s (runs: ${list(x.cpu_runs_seconds)})`;
  return [
    row(
      `benchmark profile (${DEFAULT_OPTIONS.concurrency} at once, ${DEFAULT_OPTIONS.perHost} per host)`,
      { ...r, seconds: r.quotecheck_seconds, runs_seconds: r.quotecheck_runs_seconds },
      `${ideal(r)}; peak memory ${r.peak_rss_mb} MB (target 600)`,
    ),
    row(
      `task profile (${t.claims} claims, ${t.sources} sources, ${t.sources_with_retry_after} asking to wait)`,
      t,
      `${ideal(t)}; peak memory ${t.peak_rss_mb} MB${held(t)}`,
    ),
    row(
      `flaky-host profile (${f.claims} claims, ${f.sources} sources on ${f.hosts} hosts, ${f.sources_with_retry_after} asking to wait)`,
      f,
      `${ideal(f)}; peak memory ${f.peak_rss_mb} MB${held(f)}`,
    ),
    row(
      `real-pages profile, the real web's faults (${p.claims} claims, ${p.sources} sources, ${p.pdf_sources} PDF, ${p.sources_with_retry_after} asking to wait)`,
      l,
      `${cpu(l)}; ${f2(l.ratio_to_bound)}x the bound (target ${l.target_ratio}); peak memory ${l.peak_rss_mb} MB`,
    ),
    row(
      'real-pages profile, no latency and no waits (the same faults)',
      n,
      `${cpu(n)}; ${none}; peak memory ${n.peak_rss_mb} MB`,
    ),
    `| benchmark profile, concurrency 1 | ${f1(r.naive_seconds)} s | - | ${f1(r.naive_ideal_seconds)} s | ${f1(r.ratio_vs_naive)}x slower; same answers |`,
    `| plain script | ${f1(r.plain_seconds)} s | - | ${f1(r.naive_ideal_seconds)} s | ${f1(r.ratio_plain_vs_quotecheck)}x slower; agrees with quotecheck on ${f1(r.plain_agreement * 100)}% of claims |`,
  ];
}

/** The parts table: each profile's bound, part by part. */
function partRows(r: Results): string[] {
  const p = r.real_pages;
  const parts: [string, Results][] = [
    ['benchmark profile', r],
    ['task profile', r.task_profile],
    ['flaky-host profile', r.task_profile.flaky_host],
    ["real-pages profile, the real web's faults", p.latency],
    ['real-pages profile, no latency and no waits', p.no_latency],
    ["a task's oracle", p.oracle],
  ];
  return parts.map(([label, b]) => {
    const q = b.bound_parts_seconds;
    return `| ${label} | ${[q.chain, q.host, q.global, q.cpu, q.startup].map(f2).join(' | ')} | ${bound(b)} |`;
  });
}

/** The stage costs, a task's oracle, the shipped build, record and replay, the drifted workload. */
function otherRows(r: Results): string[] {
  const o = r.real_pages.oracle;
  const st = r.startup;
  const mb = (path: string) => f2(st.bundle_bytes[path] / 1e6);
  const d = r.drift;
  return [
    `| HTML extraction (decode, one htmlparser2 pass, Readability) | ${f1(r.html_mb_per_s)} MB/s per core warm (target 5); ${f1(r.html_cold_mb_per_s)} MB/s on the first pass, cold code |`,
    `| PDF extraction (pdftotext) | ${f1(r.pdf_mb_per_s)} MB/s |`,
    `| matching and diagnosis per claim | p50 ${f2(r.match_ms_p50)} ms, p90 ${f1(r.match_ms_p90)} ms (target p50 5 ms) |`,
    `| alignment, 300-character quote in 5 MB | ${Math.round(r.align.align_ms_p50)} ms (median of runs; varies with the machine's load) |`,
    `| a task's oracle, cold (${o.claims} claims, ${o.sources} sources, ${o.pdf_sources} PDF) | ${f2(o.seconds)} s wall (runs: ${list(o.runs_seconds, 2)}); its network alone ${f2(o.ideal_seconds)} s; CPU ${f2(o.cpu_seconds)} s (runs: ${list(o.cpu_runs_seconds, 2)}); start-up alone (\`--version\`) ${f2(o.startup_cpu_seconds)} s; bound ${bound(o)}, ${f2(o.ratio_to_bound)}x the bound |`,
    `| shipped build (\`solution/quotecheck/\`) | ${f2(st.bundle_total_mb)} MB in ${st.bundle_files} files: \`quotecheck.mjs\` ${mb('quotecheck/quotecheck.mjs')} MB and the chunks it loads as a command needs them ${mb('quotecheck/chunk-*.mjs')} MB, \`html-worker.mjs\` ${mb('quotecheck/html-worker.mjs')} MB, \`warc-extract.mjs\` ${mb('quotecheck/warc-extract.mjs')} MB, \`grade.mjs\` ${Math.round(st.bundle_bytes['quotecheck/grade.mjs'] / 1e3)} KB |`,
    `| start-up, \`run\` of one claim, spawn to its first request | ${ms(st.first_request_bundle_seconds)} ms (installed CLI: ${ms(st.first_request_installed_seconds)} ms; ideal: ${ms(st.first_request_ideal_seconds)} ms; target ${ms(st.first_request_target_seconds)} ms: ${st.first_request_target_met ? 'met' : 'missed'}) |`,
    `| \`run\` of one claim, end to end | ${ms(st.one_task_bundle_seconds)} ms (installed CLI: ${ms(st.one_task_installed_seconds)} ms; ideal: ${ms(st.one_task_ideal_seconds)} ms; ${f2(st.one_task_ratio_vs_ideal)}x the ideal) |`,
    `| start-up, \`run --baseline\` of one claim | ${ms(st.run_bundle_seconds)} ms (installed CLI: ${ms(st.run_installed_seconds)} ms; ${f2(st.run_speedup)}x faster) |`,
    `| start-up, \`--version\` | ${ms(st.version_bundle_seconds)} ms (installed CLI: ${ms(st.version_installed_seconds)} ms) |`,
    `| start-up, \`node -e 0\` (Node.js alone) | ${ms(st.node_bare_seconds)} ms |`,
    `| \`--record bench.warc.gz\` | ${f1(r.record.seconds)} s | ${r.record.overhead_vs_quick >= 0 ? '+' : ''}${Math.round(r.record.overhead_vs_quick * 100)}% over the live median (one run); archive ${f1(r.record.archive_mb)} MB, ${r.record.warc_records.toLocaleString('en-US')} records; peak memory ${r.record.peak_rss_mb} MB; same answers |`,
    `| \`--replay bench.warc.gz\`, inside \`unshare --net\` (no network at all) | ${f1(r.replay.seconds)} s | ${f2(r.replay.speedup_vs_quick)}x the live median's speed (its own clock: ${f1(r.replay.run_seconds)} s against ${f1(r.record.run_seconds)} s for the recorded run; the rest is start-up and reading the archive); answers identical to the recorded run; peak memory ${r.replay.peak_rss_mb} MB |`,
    `| drifted workload (${d.drifted_sources} of ${r.workload.sources} sources serve another document today), \`--wayback auto\` | ${f1(d.auto_seconds)} s | agrees with the as-labelled answers on ${Math.round(d.auto_agreement * 100)}% of ${r.workload.claims.toLocaleString('en-US')} claims; ${d.wayback_lookups} lookups, ${d.wayback_requests} requests (${Math.round(d.requests_per_drifted_source)} a drifted source, ${f2(d.requests_per_capture_claim)} a claim judged on a capture) |`,
    `| the same, \`--wayback off\` | ${f1(d.off_seconds)} s | agrees on ${f1(d.off_agreement * 100)}%: all ${d.drifted_verbatim_as_labelled} verbatim claims on drifted sources lost |`,
  ];
}

/** The scale table's two rows. */
function scaleRows(r: Results): string[] {
  const s = r.scale;
  const cells = (label: string, x: Results, wall: string) =>
    `| ${label} | ${x.claims.toLocaleString('en-US')} | ${x.sources.toLocaleString('en-US')} | ${wall} | ` +
    `${f2(x.ms_per_claim)} ms | ${f1(x.ideal_seconds)} s (${f2(x.ratio_vs_ideal)}x) | ` +
    `${f1(x.bound_seconds)} s (${x.bound_kind}, ${f2(x.ratio_to_bound)}x) | ${x.peak_rss_mb.toLocaleString('en-US')} MB |`;
  return [
    `${cells('1x', s.one_x, `${f1(s.one_x.wall_seconds)} s (mean of ${list(s.one_x.runs_seconds)})`)} |`,
    `${cells(`${s.factor}x`, s.scaled, `${f1(s.scaled.wall_seconds)} s`)} ${f2(s.ms_per_claim_ratio)}x the 1x time per claim (target ${s.target_ms_per_claim_ratio}: ${s.ms_per_claim_target_met ? 'met' : 'missed'}); peak memory target ${s.target_peak_rss_mb} MB: ${s.peak_rss_target_met ? 'met' : 'missed'}; every replica's answers are the 1x answers |`,
  ];
}

/** The MCP load's phrases the documentation quotes. */
function mcpPhrases(r: Results): string[] {
  const m = r.mcp_load;
  if (!m) return [];
  return [
    `longest ${f2(m.small_during_30mb_max_seconds)} s`,
    `highest peak ${m.peak_rss_mb_max_30mb} MB (target under ${m.target_peak_rss_mb_30mb} MB, small calls within ${m.target_small_seconds} s: ${m.targets_met_30mb ? 'met' : 'missed'})`,
    `RSS ${m.soak.rss_mb.join(' → ')} MB`,
    `${m.cancel.before_mb} MB before, ${m.cancel.peaks_mb.join(', ')} MB at their peaks, ${m.cancel.after_mb} MB after`,
  ];
}

const r = readResults();
for (const [title, lines] of [
  ['profiles', profileRows(r)],
  ['parts of the bound', partRows(r)],
  ['stages, oracle, shipped build, record, replay, drift', otherRows(r)],
  ['scale', scaleRows(r)],
  ['MCP load (phrases; the table rows are bench/mcp-load.ts mcpLoadRows)', mcpPhrases(r)],
] as const) {
  process.stdout.write(`\n${title}\n${lines.join('\n')}\n`);
}
