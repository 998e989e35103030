// A self-contained HTML report of a bench run: per task and per claim, with the evidence behind each answer.
import { normalize } from '../normalize.js';
import type { BenchReport, ClaimRow, TaskRun } from './bench.js';

function esc(s: unknown): string {
  return String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Only http(s) links are made clickable: a claim's URL is untrusted input. */
function link(url: string): string {
  return /^https?:\/\//i.test(url) ? `<a href="${esc(url)}" rel="noreferrer noopener">${esc(url)}</a>` : esc(url);
}

/** The matched context with the quote itself highlighted. */
function evidence(row: ClaimRow): string {
  if (row.context) {
    // The context is normalized text; so is the quote it contains.
    const q = normalize(row.quote);
    const i = q ? row.context.indexOf(q) : -1;
    const body = i >= 0 ? `${esc(row.context.slice(0, i))}<mark>${esc(q)}</mark>${esc(row.context.slice(i + q.length))}` : esc(row.context);
    return `<div class="ev match">found: …${body}…</div>`;
  }
  if (row.nearest) return `<div class="ev nearest">nearest (similarity ${row.nearest.similarity.toFixed(2)}): ${esc(row.nearest.text)}</div>`;
  return '';
}

/** Which text decided, when it was not simply today's page: a Wayback capture, or a recorded archive. */
function asOf(row: ClaimRow): string {
  const a = row.asOf;
  if (!a || (a.source === 'live' && row.drift !== 'changed')) return '';
  const proof = a.proof === 'sha256' ? 'its sha256 equals the evidence' : a.proof === 'nearest' ? 'nearest to the date' : 'not proven';
  const what = a.capture_url ? `the capture of ${esc(a.timestamp)} (${link(a.capture_url)})` : `${a.source === 'replay' ? 'the recorded' : 'today\'s'} text (${esc(a.timestamp)})`;
  return `<div class="ev asof">as of ${esc(a.date ?? 'today')}: judged on ${what}, ${proof}${row.drift ? `; drift ${esc(row.drift)}` : ''}</div>`;
}

function claimRow(row: ClaimRow): string {
  const cls = row.correct ? 'ok' : 'wrong';
  return `<tr class="claim ${cls}" data-correct="${row.correct}">
<td class="id">${esc(row.id)}</td>
<td class="quote"><q>${esc(row.quote)}</q>${row.claim ? `<div class="claimtext">${esc(row.claim)}</div>` : ''}<div class="src">${link(row.url)}</div></td>
<td class="label answer">${esc(row.answer ?? 'missing')}</td>
<td class="label gold">${esc(row.gold)}</td>
<td class="diag">${row.diagnosis ? `<span class="code ${esc(row.diagnosis)}">${esc(row.diagnosis)}</span>` : '<span class="code none">no report</span>'}${row.note ? `<div class="note">${esc(row.note)}</div>` : ''}${evidence(row)}${asOf(row)}</td>
</tr>`;
}

function taskSection(t: TaskRun): string {
  const wrong = t.rows.filter((r) => !r.correct).length;
  return `<details class="task" id="task-${esc(t.task)}"${wrong > 0 || t.problems.length > 0 ? ' open' : ''}>
<summary><span class="tname">${esc(t.task)}</span> <span class="reward">reward ${t.reward.toFixed(3)}</span> <span class="meta">${t.correct}/${t.claims} correct · floor ${t.floor.toFixed(3)} · ${t.seconds.toFixed(1)} s</span>${t.problems.length ? ` <span class="problem">${esc(t.problems.join('; '))}</span>` : ''}</summary>
<table class="claims"><thead><tr><th>id</th><th>quote and source</th><th>answer</th><th>gold</th><th>diagnosis and evidence</th></tr></thead>
<tbody>${t.rows.map(claimRow).join('\n')}</tbody></table>
</details>`;
}

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1200px;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.5rem}table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #ddd;padding:.35rem .5rem;text-align:left;vertical-align:top}
.summary td.num,.tasks td.num{text-align:right;font-variant-numeric:tabular-nums}
details.task{margin:.6rem 0;border:1px solid #ccc;border-radius:6px;padding:.3rem .6rem}
summary{cursor:pointer}.tname{font-weight:600}.reward{margin-left:.5rem}.meta{color:#666;margin-left:.5rem}.problem{color:#b00020;margin-left:.5rem}
tr.wrong{background:#fff2f2}td.id{white-space:nowrap;font-family:monospace}q{font-style:italic}.claimtext,.note,.src{color:#555;font-size:.9em}
.code{font-family:monospace;padding:0 .3rem;border-radius:3px;background:#eee}.code.verbatim{background:#e3f6e3}.code.not_found{background:#fde2e2}
.code.near_miss,.code.partial,.code.extraction_artifact{background:#fff1cc}.code.fetch_failed,.code.paywall,.code.empty{background:#e8e8ff}.code.drifted{background:#e0f0ff}
.ev{margin-top:.25rem;font-size:.9em;word-break:break-word}mark{background:#ffe066}
body.only-wrong tr.claim.ok{display:none}
`;

/** Renders the report: summary, confusion matrix, diagnoses, tasks, then each task's claims. No external resources. */
export function renderHtmlReport(r: BenchReport): string {
  const c = r.confusion;
  const diagnoses = Object.entries(r.diagnoses).sort((a, b) => b[1] - a[1]);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>quotecheck bench: ${esc(r.agent)} on ${esc(r.tasks_dir)}</title><style>${STYLE}</style></head>
<body>
<h1>quotecheck bench report</h1>
<table class="summary">
<tr><th>agent</th><td id="agent">${esc(r.agent)}</td></tr>
<tr><th>tasks</th><td>${esc(r.tasks_dir)} (${r.tasks.length} tasks, ${r.claims} claims)</td></tr>
<tr><th>mean reward</th><td class="num" id="mean-reward">${r.mean_reward.toFixed(3)}</td></tr>
<tr><th>baseline (all no_match)</th><td class="num" id="baseline-reward">${r.baseline_mean_reward.toFixed(3)}</td></tr>
<tr><th>claims correct</th><td class="num">${r.correct}/${r.claims}</td></tr>
<tr><th>paths</th><td>${r.isolation === 'namespace' ? 'container paths bind-mounted in a private mount namespace' : 'container paths overridden by environment variables'}</td></tr>
<tr><th>time</th><td class="num">${r.seconds.toFixed(1)} s</td></tr>
</table>
<h2>Confusion matrix</h2>
<table class="confusion" id="confusion"><thead><tr><th>gold \\ answered</th><th>verbatim</th><th>no_match</th><th>missing</th><th>invalid</th></tr></thead><tbody>
<tr><th>verbatim</th><td class="num">${c.verbatim.verbatim}</td><td class="num">${c.verbatim.no_match}</td><td class="num">${c.verbatim.missing}</td><td class="num">${c.verbatim.invalid}</td></tr>
<tr><th>no_match</th><td class="num">${c.no_match.verbatim}</td><td class="num">${c.no_match.no_match}</td><td class="num">${c.no_match.missing}</td><td class="num">${c.no_match.invalid}</td></tr>
</tbody></table>
<h2>Diagnoses</h2>
${diagnoses.length ? `<table class="diagnoses" id="diagnoses"><tbody>${diagnoses.map(([d, n]) => `<tr><td><span class="code ${esc(d)}">${esc(d)}</span></td><td class="num">${n}</td></tr>`).join('')}</tbody></table>` : '<p>The agent wrote no evidence report (the oracle writes /logs/agent/report.jsonl).</p>'}
<h2>Tasks</h2>
<table class="tasks" id="tasks"><thead><tr><th>task</th><th>claims</th><th>reward</th><th>baseline</th><th>problems</th></tr></thead><tbody>
${r.tasks.map((t) => `<tr><td><a href="#task-${esc(t.task)}">${esc(t.task)}</a></td><td class="num">${t.claims}</td><td class="num">${t.reward.toFixed(3)}</td><td class="num">${t.floor.toFixed(3)}</td><td>${esc(t.problems.join('; '))}</td></tr>`).join('\n')}
</tbody></table>
<p><label><input type="checkbox" id="only-wrong" onchange="document.body.classList.toggle('only-wrong', this.checked)"> show only wrong answers</label></p>
${r.tasks.map(taskSection).join('\n')}
</body></html>
`;
}
