// A self-contained HTML report of an evaluation run: per task and per claim, with the evidence behind each answer.
import { normalize } from '../normalize.js';
import { shellQuote } from '../sh-quote.js';
import { groupName, SOURCE_DRIFTED, type AgentScore, type Comparison, type GroupScore } from './compare.js';
import type { EvaluationReport, ClaimRow, OracleEvidence, TaskRun } from './evaluation-report.js';
import type { DiffRun, ReportLine } from '../contract.js';
import { isolationSummary } from './isolations.js';

/**
 * Where the quote was found, in the page's own wording (the report's TextQuoteSelector, as readReportLine takes it).
 */
type MatchSelector = NonNullable<NonNullable<ReportLine['match']>['selector']>;

/** The context a TextQuoteSelector keeps on each side (src/match.ts): a side this long was cut there. */
const SELECTOR_CONTEXT_CHARS = 32;

/**
 * The same name everywhere (table header, task summary, terminal table): what answering no_match for every claim
 * scores.
 */
export const BASELINE_NAME = 'baseline';

function esc(s: unknown): string {
  return String(s ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** Only http(s) links are made clickable: a claim's URL is untrusted input. */
function link(url: string): string {
  return /^https?:\/\//i.test(url) ? `<a href="${esc(url)}" rel="noreferrer noopener">${esc(url)}</a>` : esc(url);
}

/** The element id of a task's section, and the link to it (a task name may hold any character). */
const taskId = (task: string): string => `task-${task}`;
const taskHref = (task: string): string => `#${encodeURIComponent(taskId(task))}`;

/** A selector's context, cut back to whole words where the selector cut it mid-word; says whether it was cut. */
function wholeWords(side: string, keep: 'end' | 'start'): { text: string; cut: boolean } {
  if (side.length < SELECTOR_CONTEXT_CHARS) return { text: side, cut: false };
  if (keep === 'end') {
    const i = side.search(/\s/);
    return { text: i >= 0 ? side.slice(i) : '', cut: true };
  }
  const m = /\s\S*$/.exec(side);
  return { text: m ? side.slice(0, m.index) : '', cut: true };
}

/** The match in the page's own wording: the selector's prefix, the quote as the page writes it (marked), the suffix. */
function selectorEvidence(s: MatchSelector): string {
  const prefix = wholeWords(s.prefix, 'end');
  const suffix = wholeWords(s.suffix, 'start');
  const before = `${prefix.cut ? '…' : ''}${esc(prefix.text)}`;
  const after = `${esc(suffix.text)}${suffix.cut ? '…' : ''}`;
  return `${before}<mark>${esc(s.exact)}</mark>${after}`;
}

/** The normalized context (older reports): the quote, normalized the same way, marked in it. */
function contextEvidence(context: string, quote: string): string {
  const q = normalize(quote);
  const i = q ? context.indexOf(q) : -1;
  const body =
    i >= 0 ? `${esc(context.slice(0, i))}<mark>${esc(q)}</mark>${esc(context.slice(i + q.length))}` : esc(context);
  return `…${body}…`;
}

/**
 * The word-level difference of quote and span: missing words (in the quote only) struck, extra words (in the source
 * only) inserted.
 */
function diffHtml(diff: readonly DiffRun[]): string {
  return diff
    .map((d) =>
      d.op === 'missing'
        ? `<del>${esc(d.text)}</del>`
        : d.op === 'extra'
          ? `<ins>${esc(d.text)}</ins>`
          : `<span>${esc(d.text)}</span>`,
    )
    .join(' ');
}

/**
 * The evidence behind the answer: where the quote was found, or the nearest span and how it differs (the agent's own,
 * or the oracle's).
 */
function evidence(ev: OracleEvidence, quote: string): string {
  if (ev.selector) return `<div class="ev match">found: ${selectorEvidence(ev.selector)}</div>`;
  if (ev.context) return `<div class="ev match">found: ${contextEvidence(ev.context, quote)}</div>`;
  if (!ev.nearest) return '';
  const n = ev.nearest;
  const diff = n.diff
    ? `<div class="diff" title="struck: in the quote, not in the source; inserted: in the source, not in the ` +
      `quote">difference: ${diffHtml(n.diff)}</div>`
    : '';
  return (
    `<div class="ev nearest">nearest (similarity ${n.similarity.toFixed(2)}): <q ` +
    `class="span">${esc(n.raw ?? n.text)}</q>${diff}</div>`
  );
}

/** Which text decided, when it was not simply today's page: a Wayback capture, or a recorded archive. */
function asOf(ev: Pick<OracleEvidence, 'asOf' | 'drift'>): string {
  const a = ev.asOf;
  if (!a || (a.source === 'live' && ev.drift !== 'changed')) return '';
  const proof =
    a.proof === 'sha256'
      ? 'its sha256 equals the evidence'
      : a.proof === 'nearest'
        ? 'nearest to the date'
        : 'not proven';
  const what = a.capture_url
    ? `the capture of ${esc(a.timestamp)} (${link(a.capture_url)})`
    : `${a.source === 'replay' ? 'the recorded' : "today's"} text (${esc(a.timestamp)})`;
  return (
    `<div class="ev asof">as of ${esc(a.date ?? 'today')}: judged on ${what}, ` +
    `${proof}${ev.drift ? `; drift ${esc(ev.drift)}` : ''}</div>`
  );
}

/**
 * What a report page knows of the oracle: where its run is (rows then carry its evidence), and whether this agent
 * reported any evidence itself.
 */
interface EvidenceContext {
  oracleRun?: string;
  agentReported: boolean;
}

/** A diagnosis code, its note and its evidence. */
function diagnosed(ev: OracleEvidence, quote: string): string {
  const note = ev.note ? `<div class="note">${esc(ev.note)}</div>` : '';
  return `<span class="code ${esc(ev.diagnosis)}">${esc(ev.diagnosis)}</span>${note}${evidence(ev, quote)}${asOf(ev)}`;
}

/** A link to the oracle run's own report, relative to this one. */
const oracleReportHref = (run: string): string => `${run.split('/').map(encodeURIComponent).join('/')}/report.html`;

/**
 * The diagnosis cell: the agent's own evidence; the oracle's, marked as such, where the agent has none or answered
 * wrongly and the oracle ran beside it; else, where the agent has none, what it lacks and how to get the oracle's.
 */
function diagnosisCell(row: ClaimRow, ctx: EvidenceContext): string {
  const own = row.diagnosis
    ? diagnosed(row, row.quote)
    : `${row.note ? `<div class="note">${esc(row.note)}</div>` : ''}${evidence(row, row.quote)}`;
  if (row.oracle?.diagnosis && (!row.diagnosis || !row.correct)) {
    const from = ctx.oracleRun ? ` (<a href="${esc(oracleReportHref(ctx.oracleRun))}">its report</a>)` : '';
    return (
      `${own}<div class="oracle-ev"><div class="by">the oracle's ` +
      `evidence${from}:</div>${diagnosed(row.oracle, row.quote)}</div>`
    );
  }
  if (row.diagnosis) return own;
  const lacks = ctx.agentReported
    ? "this agent's evidence report has no line for this claim"
    : 'this agent wrote no evidence report';
  return (
    `<span class="code none">no evidence</span><div class="note">${lacks}: <a href="#oracle-evidence">how to ` +
    `see the oracle's here</a></div>${own}`
  );
}

function claimRow(row: ClaimRow, ctx: EvidenceContext): string {
  const cls = row.correct ? 'ok' : 'wrong';
  return `<tr class="claim ${cls}" data-correct="${row.correct}">
<td class="id">${esc(row.id)}</td>
<td class="quote"><q>${esc(row.quote)}</q>${row.claim ? `<div class="claimtext">${esc(row.claim)}</div>` : ''}<div class="src">${link(row.url)}</div></td>
<td class="label answer">${esc(row.answer ?? 'missing')}</td>
<td class="label gold">${esc(row.gold)}</td>
<td class="diag">${diagnosisCell(row, ctx)}</td>
</tr>`;
}

/**
 * Where rows have no evidence of their own and none of the oracle's: how to get the oracle's, with this run's dataset
 * and agent in the commands (evaluate runs the oracle beside it; compare writes this page again with the oracle's
 * evidence).
 */
function oracleEvidenceHelp(r: EvaluationReport): string {
  const evaluate =
    `quotecheck evaluate --tasks ${shellQuote(r.tasks_dir)} --agent oracle --agent ` + `${shellQuote(r.agent)}`;
  const compare = 'quotecheck compare THIS_RUN --oracle ORACLE_RUN --out DIR';
  return `<div class="help" id="oracle-evidence"><p>Claims this agent reported no evidence on can show the oracle's, marked as such: run the oracle beside it, and each agent's report shows it,</p>
<pre><code>${esc(evaluate)}</code></pre>
<p>or compare this run (its folder, THIS_RUN) with a finished oracle run of the same tasks; DIR/evidence/NAME/report.html is then this page with the oracle's evidence:</p>
<pre><code>${esc(compare)}</code></pre></div>`;
}

function taskSection(t: TaskRun, ctx: EvidenceContext): string {
  const wrong = t.rows.filter((r) => !r.correct).length;
  return `<details class="task" id="${esc(taskId(t.task))}" data-wrong="${wrong}"${wrong > 0 || t.problems.length > 0 ? ' open' : ''}>
<summary><span class="tname">${esc(t.task)}</span> <span class="reward">reward ${t.reward.toFixed(3)}</span> <span class="meta">${t.correct}/${t.claims} correct · ${BASELINE_NAME} ${t.baseline.toFixed(3)} · ${t.seconds.toFixed(1)} s</span>${t.problems.length ? ` <span class="problem">${esc(t.problems.join('; '))}</span>` : ''}</summary>
<table class="claims"><thead><tr><th>id</th><th>quote and source</th><th>answer</th><th>gold</th><th>diagnosis and evidence</th></tr></thead>
<tbody>${t.rows.map((row) => claimRow(row, ctx)).join('\n')}</tbody></table>
</details>`;
}

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1200px;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.5rem}table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #ddd;padding:.35rem .5rem;text-align:left;vertical-align:top}
table.summary,table.confusion,table.diagnoses{width:auto}
th.num,td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.summary td{font-variant-numeric:tabular-nums}
.advice{border:1px solid #b00020;background:#fff2f2;border-radius:6px;padding:.4rem .8rem}.advice li{margin:.2rem 0}
details.task{margin:.6rem 0;border:1px solid #ccc;border-radius:6px;padding:.3rem .6rem}
summary{cursor:pointer}.tname{font-weight:600}.reward{margin-left:.5rem}.meta{color:#666;margin-left:.5rem}.problem{color:#b00020;margin-left:.5rem}
tr.wrong{background:#fff2f2}td.id{white-space:nowrap;font-family:monospace}q{font-style:italic}.claimtext,.note,.src{color:#555;font-size:.9em}
td.quote,td.diag,.note,.src,.ev,.asof{overflow-wrap:anywhere}
.code{font-family:monospace;padding:0 .3rem;border-radius:3px;background:#eee}.code.verbatim{background:#e3f6e3}.code.not_found{background:#fde2e2}
.oracle-ev{margin-top:.4rem;border-left:3px solid #8a8aff;padding-left:.5rem}.oracle-ev .by{color:#555;font-size:.9em}
.help{border:1px solid #ccc;border-radius:6px;padding:.2rem .8rem;margin:.6rem 0}.help pre{white-space:pre-wrap;overflow-wrap:anywhere}
.code.near_miss,.code.partial,.code.extraction_artifact{background:#fff1cc}.code.fetch_failed,.code.paywall,.code.empty{background:#e8e8ff}.code.drifted{background:#e0f0ff}
.ev{margin-top:.25rem;font-size:.9em;word-break:break-word}mark{background:#ffe066}
.diff{margin-top:.15rem}del{color:#b00020;background:#fde2e2}ins{color:#0a6b2a;background:#e3f6e3;text-decoration:none;border-bottom:1px solid #0a6b2a}
body.only-wrong tr.claim.ok,body.only-wrong details.task[data-wrong="0"]{display:none}
`;

/**
 * Following a link to a task opens its section (a closed <details> shows only its summary), as does
 * arriving with its fragment or going back to it; ticking "show only wrong answers" opens every task
 * that has one, so what the filter leaves is on screen. A reload may restore the tick: it is applied at once.
 */
const SCRIPT = `
(function () {
  function openTask(id) {
    var el = id && document.getElementById(id);
    if (el && el.tagName === 'DETAILS') el.open = true;
  }
  function fromHash(hash) {
    try { return decodeURIComponent(hash.replace(/^#/, '')); } catch (e) { return ''; }
  }
  document.addEventListener('click', function (e) {
    var a = e.target && e.target.closest ? e.target.closest('a[href^="#task-"]') : null;
    if (a) openTask(fromHash(a.getAttribute('href')));
  });
  window.addEventListener('hashchange', function () { openTask(fromHash(location.hash)); });
  openTask(fromHash(location.hash));
  var box = document.getElementById('only-wrong');
  function filter() {
    document.body.classList.toggle('only-wrong', box.checked);
    if (!box.checked) return;
    document.querySelectorAll('details.task').forEach(function (d) { if (d.getAttribute('data-wrong') !== '0') d.open = true; });
  }
  box.addEventListener('change', filter);
  filter();
})();
`;

const num = (v: string | number): string => `<td class="num">${esc(v)}</td>`;

/**
 * Renders the report: summary, advice, confusion matrix, diagnoses, tasks, then each task's claims. No external
 * resources.
 */
export function renderHtmlReport(r: EvaluationReport): string {
  const c = r.confusion;
  const rows = r.tasks.flatMap((t) => t.rows);
  const ctx: EvidenceContext = {
    ...(r.oracle_run !== undefined ? { oracleRun: r.oracle_run } : {}),
    agentReported: rows.some((row) => row.diagnosis),
  };
  const needHelp = rows.some((row) => !row.diagnosis && !row.oracle?.diagnosis);
  const diagnoses = Object.entries(r.diagnoses).sort((a, b) => b[1] - a[1]);
  const advice = r.advice ?? [];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>quotecheck evaluate: ${esc(r.agent)} on ${esc(r.tasks_dir)}</title><style>${STYLE}</style></head>
<body>
<h1>quotecheck evaluate report</h1>
<table class="summary">
<tr><th>agent</th><td id="agent">${esc(r.agent)}</td></tr>
<tr><th>tasks</th><td>${esc(r.tasks_dir)} (${r.tasks.length} ${r.tasks.length === 1 ? 'task' : 'tasks'}, ${r.claims} ${r.claims === 1 ? 'claim' : 'claims'})</td></tr>
<tr><th>mean reward</th><td id="mean-reward">${r.mean_reward.toFixed(3)}</td></tr>
<tr><th>${BASELINE_NAME} (all no_match)</th><td id="baseline-reward">${r.baseline_mean_reward.toFixed(3)}</td></tr>
<tr><th>claims correct</th><td>${r.correct}/${r.claims}</td></tr>
<tr><th>isolation</th><td id="isolation">${esc(isolationSummary(r.isolation))}${(r.isolation_limits ?? []).length ? `<ul class="limits">${(r.isolation_limits ?? []).map((l) => `<li>${esc(l)}</li>`).join('')}</ul>` : ''}</td></tr>
<tr><th>time</th><td>${r.seconds.toFixed(1)} s</td></tr>
${r.oracle_run !== undefined ? `<tr><th>oracle's evidence</th><td id="oracle-run">from <a href="${esc(oracleReportHref(r.oracle_run))}">${esc(r.oracle_run)}</a>, on each claim this agent reported no evidence on or answered wrongly</td></tr>` : ''}
</table>
${advice.length ? `<div class="advice" id="advice"><ul>${advice.map((a) => `<li>${esc(a)}</li>`).join('')}</ul></div>` : ''}
<h2>Confusion matrix</h2>
<table class="confusion" id="confusion"><thead><tr><th>gold \\ answered</th><th class="num">verbatim</th><th class="num">no_match</th><th class="num">missing</th><th class="num">invalid</th></tr></thead><tbody>
<tr><th>verbatim</th>${num(c.verbatim.verbatim)}${num(c.verbatim.no_match)}${num(c.verbatim.missing)}${num(c.verbatim.invalid)}</tr>
<tr><th>no_match</th>${num(c.no_match.verbatim)}${num(c.no_match.no_match)}${num(c.no_match.missing)}${num(c.no_match.invalid)}</tr>
</tbody></table>
<h2>Diagnoses</h2>
${diagnoses.length ? `<table class="diagnoses" id="diagnoses"><thead><tr><th>diagnosis</th><th class="num">claims</th></tr></thead><tbody>${diagnoses.map(([d, n]) => `<tr><td><span class="code ${esc(d)}">${esc(d)}</span></td>${num(n)}</tr>`).join('')}</tbody></table>` : `<p>The agent wrote no evidence report (the oracle writes /logs/agent/report.jsonl)${r.oracle_run !== undefined ? "; each claim below shows the oracle's" : needHelp ? `: <a href="#oracle-evidence">how to see the oracle's evidence here</a>` : ''}.</p>`}
<h2>Tasks</h2>
<p class="legend">${BASELINE_NAME}: the reward of answering no_match for every claim, i.e. the task's share of gold no_match labels.</p>
<table class="tasks" id="tasks"><thead><tr><th>task</th><th class="num">claims</th><th class="num">correct</th><th class="num">reward</th><th class="num">${BASELINE_NAME}</th><th class="num">secs</th><th>problems</th></tr></thead><tbody>
${r.tasks.map((t) => `<tr><td><a href="${esc(taskHref(t.task))}">${esc(t.task)}</a></td>${num(t.claims)}${num(t.correct)}${num(t.reward.toFixed(3))}${num(t.baseline.toFixed(3))}${num(t.seconds.toFixed(1))}<td>${esc(t.problems.join('; '))}</td></tr>`).join('\n')}
</tbody></table>
<p><label><input type="checkbox" id="only-wrong"> show only wrong answers</label></p>
${needHelp ? `${oracleEvidenceHelp(r)}\n` : ''}${r.tasks.map((t) => taskSection(t, ctx)).join('\n')}
<script>${SCRIPT}</script>
</body></html>
`;
}

const percent = (n: number, d: number): string => `${d ? Math.round((100 * n) / d) : 0}%`;

/**
 * What an agent did with one group, for its cell's tooltip, in the words of compare's sentences: how often it answered
 * verbatim, over the claims it answered (valid labels only) when it left some unanswered or gave an invalid label, and
 * left out when it answered none; then how many it did not answer, and how many got a label other than verbatim or
 * no_match.
 */
function groupTooltip(agent: string, diagnosis: string, g: GroupScore): string {
  const name = groupName(diagnosis);
  if (g.missing === 0 && g.invalid === 0)
    return (
      `${agent} answers verbatim on ${percent(g.answered_verbatim, g.claims)} of ${name} ` +
      `(${g.answered_verbatim}/${g.claims})`
    );
  const answered = g.claims - g.missing - g.invalid;
  const parts: string[] = [];
  if (answered > 0)
    parts.push(
      `${agent} answers verbatim on ${percent(g.answered_verbatim, answered)} of the ${name} it answered ` +
        `(${g.answered_verbatim}/${answered})`,
    );
  if (g.missing > 0)
    parts.push(`${agent} gives no answer for ${percent(g.missing, g.claims)} of ${name} (${g.missing}/${g.claims})`);
  if (g.invalid > 0)
    parts.push(
      `${agent} gives an invalid answer (neither verbatim nor no_match) for ${percent(g.invalid, g.claims)} of ` +
        `${name} (${g.invalid}/${g.claims})`,
    );
  return parts.join('; ');
}

/**
 * One agent's cell for one diagnosis: accuracy and counts (missing and invalid answers count as not right); what it
 * answered in the tooltip.
 */
function groupCell(agent: string, diagnosis: string, g: GroupScore | undefined): string {
  if (!g) return '<td class="num">-</td>';
  return (
    `<td class="num" title="${esc(groupTooltip(agent, diagnosis, g))}">${percent(g.correct, g.claims)} ` +
    `(${g.correct}/${g.claims})</td>`
  );
}

type AnswerGap = 'missing' | 'invalid';
const GAPS: readonly AnswerGap[] = ['missing', 'invalid'];
/** What a missing or invalid column counts, for its header's tooltip and the legend. */
const GAP_MEANING: Record<AnswerGap, string> = {
  missing: 'claims with no answer',
  invalid: 'answers neither verbatim nor no_match',
};

/**
 * An agent with missing or invalid answers anywhere: it gets a missing and an invalid column beside its own, as in the
 * terminal table.
 */
const hasGaps = (a: AgentScore): boolean => a.missing > 0 || a.invalid > 0;

/** A cell of a missing or invalid column: "3/6", "-" where the agent has no such claims. */
function gapCell(kind: AnswerGap, g: GroupScore | undefined): string {
  return g ? `<td class="num ${kind}">${g[kind]}/${g.claims}</td>` : `<td class="num ${kind}">-</td>`;
}

/**
 * A link to an agent's own report, when its folder is known (relative to this report), and to its claims with the
 * oracle's evidence when written.
 */
function agentReportLink(a: AgentScore): string {
  const own = a.dir
    ? `<a href="${esc(`${a.dir.split('/').map(encodeURIComponent).join('/')}/report.html`)}">${esc(a.dir)}</a>`
    : '';
  if (!a.evidence_report) return own;
  const withOracle =
    `<a class="with-oracle" ` +
    `href="${esc(a.evidence_report.split('/').map(encodeURIComponent).join('/'))}">with the oracle's evidence</a>`;
  return own ? `${own} (${withOracle})` : withOracle;
}

/**
 * The side-by-side comparison of agents: mean reward, then accuracy split by the oracle's diagnosis of each claim. As
 * in the terminal table, an agent with missing or invalid answers has two more columns beside its own, "<name> missing"
 * and "<name> invalid", counting them; the agents' table then counts them for every agent. No external resources.
 */
export function renderComparisonHtml(c: Comparison): string {
  const advice = c.agents.flatMap((a) => a.advice.map((line) => `${a.label}: ${line}`));
  const anyGaps = c.agents.some(hasGaps);
  const gapHead = (a: (typeof c.agents)[number], k: (typeof GAPS)[number]): string =>
    `<th class="num ${k}" title="${esc(`${a.label}: ${GAP_MEANING[k]}`)}">${esc(`${a.label} ${k}`)}</th>`;
  const heads = c.agents
    .map(
      (a) =>
        `<th class="num" title="${esc(a.agent)}">${esc(a.label)}</th>` +
        (hasGaps(a) ? GAPS.map((k) => gapHead(a, k)).join('') : ''),
    )
    .join('');
  const cells = (diagnosis: string) =>
    c.agents
      .map((a) => {
        const g = a.by_diagnosis[diagnosis];
        return `${groupCell(a.label, diagnosis, g)}${hasGaps(a) ? GAPS.map((k) => gapCell(k, g)).join('') : ''}`;
      })
      .join('');
  const gapHeads = anyGaps
    ? GAPS.map((k) => `<th class="num ${k}" title="${esc(GAP_MEANING[k])}">${k}</th>`).join('')
    : '';
  const gapTotals = (a: AgentScore) =>
    anyGaps ? GAPS.map((k) => `<td class="num ${k}">${a[k]}/${a.claims}</td>`).join('') : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>quotecheck comparison: ${esc(c.agents.map((a) => a.label).join(', '))}</title><style>${STYLE}</style></head>
<body>
<h1>quotecheck comparison</h1>
<table class="summary" id="agents"><thead><tr><th>agent</th><th class="num">mean reward</th><th class="num">${BASELINE_NAME}</th><th class="num">claims right</th>${gapHeads}<th>report</th><th>command</th></tr></thead><tbody>
${c.agents.map((a) => `<tr><td>${esc(a.label)}</td>${num(a.mean_reward.toFixed(3))}${num(a.baseline_mean_reward.toFixed(3))}${num(`${percent(a.correct, a.claims)} (${a.correct}/${a.claims})`)}${gapTotals(a)}<td>${agentReportLink(a)}</td><td><code>${esc(a.agent)}</code></td></tr>`).join('\n')}
</tbody></table>
${advice.length ? `<div class="advice" id="advice"><ul>${advice.map((a) => `<li>${esc(a)}</li>`).join('')}</ul></div>` : ''}
<h2>Accuracy by the oracle's diagnosis</h2>
<p class="legend">Each claim is grouped by what the oracle's evidence report says about it (from ${esc(c.oracle)}); a cell is the share of those claims the agent answered right. Claims on drifted sources (${SOURCE_DRIFTED}: the live page no longer hashes to the claim's evidence) overlap the other rows.</p>
${anyGaps ? `<p class="legend" id="gaps-legend">missing: ${GAP_MEANING.missing}; invalid: ${GAP_MEANING.invalid} (both counted as not right). An agent with any has a missing and an invalid column beside its own.</p>\n` : ''}<table class="diagnoses" id="by-diagnosis"><thead><tr><th>diagnosis</th><th class="num">claims</th>${heads}</tr></thead><tbody>
${c.groups.map((g) => `<tr data-diagnosis="${esc(g.diagnosis)}"><td><span class="code ${esc(g.diagnosis)}">${esc(g.diagnosis)}</span></td>${num(g.claims)}${cells(g.diagnosis)}</tr>`).join('\n')}
</tbody></table>
<h2>In words</h2>
<ul id="sentences">${c.sentences.map((s) => `<li>${esc(s)}</li>`).join('')}</ul>
</body></html>
`;
}
