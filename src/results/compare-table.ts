// A comparison as people and CI read it: the table (its layouts, narrowest to a terminal's width) and the JSON.
import { type AgentScore, type Comparison, type GroupScore, pct } from './compare.js';

/** "40% (2/5)" for a cell, "-" where the agent has no such claims. */
function cell(g: GroupScore | undefined): string {
  return g ? `${pct(g.correct, g.claims)} (${g.correct}/${g.claims})` : '-';
}

/** A cell of a missing or invalid column, "2/5", "-" where the agent has no such claims. */
const countCell = (
  g: { claims: number; missing: number; invalid: number } | undefined,
  kind: 'missing' | 'invalid',
): string => (g ? `${g[kind]}/${g.claims}` : '-');

/** The widest a comparison table may be, in columns: a terminal's 100, for six agents with long names and all. */
export const MAX_TABLE_COLUMNS = 100;

/**
 * How the table is laid out: agents named in the header or by a key ([1], [2], ...) with a legend, cells with their
 * counts ("60% (3/5)") or the share alone ("60%"), and each agent's missing and invalid answers in columns of their own
 * or only in its legend line and the sentences. The first that fits MAX_TABLE_COLUMNS is used.
 */
interface Layout {
  keyed: boolean;
  counts: boolean;
  gapColumns: boolean;
}

const LAYOUTS: readonly Layout[] = [
  { keyed: false, counts: true, gapColumns: true },
  { keyed: true, counts: true, gapColumns: true },
  { keyed: true, counts: true, gapColumns: false },
  { keyed: true, counts: false, gapColumns: false },
];

/** One column of the table: its header, and its cells for the totals and for each group. */
interface Column {
  head: string;
  total: (a: AgentScore) => string;
  summary: (a: AgentScore) => string;
  /** A failure-shape share of the agent's (its own column only). */
  shape: (a: AgentScore, key: 'answered' | 'overclaim' | 'missed') => string;
  group: (g: GroupScore | undefined) => string;
  agent: AgentScore;
}

/** An agent's key in a keyed table. */
const agentKey = (i: number): string => `[${i + 1}]`;

/** The columns of a layout: each agent's own, and (when laid out so) its missing and invalid columns beside it. */
function columnsOf(c: Comparison, layout: Layout): Column[] {
  const share = (g: GroupScore | undefined) => (g ? pct(g.correct, g.claims) : '-');
  return c.agents.flatMap((a, i) => {
    const head = layout.keyed ? agentKey(i) : a.label;
    const own: Column = {
      head,
      agent: a,
      total: (x) => x.mean_reward.toFixed(3),
      summary: (x) =>
        layout.counts ? `${pct(x.correct, x.claims)} (${x.correct}/${x.claims})` : pct(x.correct, x.claims),
      shape: (x, key) => (x.shape ? `${Math.round(100 * x.shape[key])}%` : '-'),
      group: layout.counts ? cell : share,
    };
    if (!layout.gapColumns || (a.missing === 0 && a.invalid === 0)) return [own];
    return [
      own,
      ...(['missing', 'invalid'] as const).map(
        (kind): Column => ({
          head: `${head} ${kind}`,
          agent: a,
          total: () => '',
          summary: (x) => countCell(x, kind),
          shape: () => '',
          group: (g) => countCell(g, kind),
        }),
      ),
    ];
  });
}

/** The table's lines in a layout: the header, the totals, the heading of the groups and a row for each group. */
function tableLines(c: Comparison, layout: Layout): { lines: string[]; columns: Column[] } {
  const columns = columnsOf(c, layout);
  const heads = columns.map((col) => col.head);
  const first = Math.max('mean reward'.length, ...c.groups.map((g) => `${g.diagnosis} (${g.claims})`.length));
  const min = layout.counts ? 10 : 5;
  const cols = columns.map((col, i) =>
    Math.max(
      heads[i]!.length,
      min,
      col.summary(col.agent).length,
      ...c.groups.map((g) => col.group(col.agent.by_diagnosis[g.diagnosis]).length),
    ),
  );
  const line = (label: string, cells: string[]) =>
    `${label.padEnd(first)}  ${cells.map((s, i) => s.padStart(cols[i]!)).join('  ')}`.trimEnd();
  const rule = '-'.repeat(first + cols.reduce((n, w) => n + w + 2, 0));
  const lines = [
    line('', heads),
    rule,
    line(
      'mean reward',
      columns.map((col) => col.total(col.agent)),
    ),
    line(
      'claims right',
      columns.map((col) => col.summary(col.agent)),
    ),
    // reward.json's failure shape: how the agent was wrong, not only how often.
    ...(['answered', 'overclaim', 'missed'] as const).map((key) =>
      line(
        key,
        columns.map((col) => col.shape(col.agent, key)),
      ),
    ),
    rule,
    `accuracy by the oracle's diagnosis of each claim (from ${c.oracle}):`,
    ...c.groups.map((g) =>
      line(
        `${g.diagnosis} (${g.claims})`,
        columns.map((col) => col.group(col.agent.by_diagnosis[g.diagnosis])),
      ),
    ),
  ];
  return { lines, columns };
}

/** The widest line of a table, its heading of the groups (prose, which a terminal wraps) aside. */
const tableWidth = (lines: readonly string[]): number =>
  Math.max(...lines.filter((l) => !l.startsWith('accuracy by')).map((l) => l.length));

/**
 * A keyed table's legend: each agent's key, name, totals (counts and, without gap columns, its missing and invalid
 * answers) and command.
 */
function legend(c: Comparison, layout: Layout): string[] {
  return c.agents.map((a, i) => {
    const gaps =
      !layout.gapColumns && (a.missing > 0 || a.invalid > 0)
        ? `, ${a.missing} with no answer, ${a.invalid} invalid`
        : '';
    const command = a.label !== a.agent ? `: ${a.agent}` : '';
    return `${agentKey(i)} ${a.label} (${a.correct}/${a.claims} right${gaps})${command}`;
  });
}

/**
 * The comparison for a terminal: one column per agent, mean reward then accuracy per oracle diagnosis, then the
 * sentences. An agent with missing or invalid answers gets two more columns beside its own, "<name> missing" and
 * "<name> invalid", counting them (its accuracy counts them as not right). When that is wider than
 * MAX_TABLE_COLUMNS (six agents with long names are 270), the agents are keyed [1], [2], ... with a legend under the
 * table, then the missing and invalid columns give way to the legend and the sentences, then the cells to their
 * shares alone (each group's row names its claim count). report.json is the same whatever the table's layout.
 */
export function comparisonTable(c: Comparison): string {
  const tables = LAYOUTS.map((layout) => ({ layout, ...tableLines(c, layout) }));
  const { layout, lines, columns } =
    tables.find((t) => tableWidth(t.lines) <= MAX_TABLE_COLUMNS) ?? tables[tables.length - 1]!;
  const out = [...lines];
  if (layout.keyed) out.push('', ...legend(c, layout));
  out.push('', ...c.sentences);
  if (columns.length > c.agents.length)
    out.push(
      '',
      'missing: claims with no answer; invalid: answers neither verbatim nor no_match (both counted as not right)',
    );
  const named = c.agents.filter((a) => a.label !== a.agent);
  if (!layout.keyed && named.length) out.push('', ...named.map((a) => `${a.label}: ${a.agent}`));
  const advice = c.agents.flatMap((a) => a.advice.map((line) => `${a.label}: ${line}`));
  if (advice.length) out.push('', ...advice);
  return out.join('\n');
}

/** report.json of a comparison: what the comparison was made of, then the comparison. */
export function comparisonJson(c: Comparison): string {
  return `${JSON.stringify({ kind: 'comparison', ...c }, null, 2)}\n`;
}
