// A dataset's card, README.md beside its tasks (docs/datasets.md#the-dataset-card): what the benchmark measures and
// its rule, its numbers (claims, tasks, sources, hosts, languages, content types, label balance, the no_match
// diagnoses, the verify dates), how it was made (the commands and every version), where it runs, the audit's result,
// its licence, and what it redistributes of other people's pages.
import { plural } from '../messages.js';
import type { LabelledClaim } from './export.js';
import type { Layout } from './layout.js';

/** A value and how many claims have it, most first. */
export interface Count {
  value: string;
  n: number;
}

/** The numbers of a dataset: what the card's tables say, computed from its labelled claims and tasks. */
export interface DatasetNumbers {
  claims: number;
  tasks: number;
  /** Sources: distinct URLs once their fragment is dropped (how export groups claims). */
  sources: number;
  hosts: number;
  verbatim: number;
  noMatch: number;
  /** Languages the claims give (`language` or `lang`); the claims without one are counted as `not given`. */
  languages: Count[];
  /** The writing system most of each quote's letters are in (Unicode scripts). */
  scripts: Count[];
  /** The evidence's content type (its media type alone), per claim. */
  contentTypes: Count[];
  /** The evidence's diagnosis of each no_match label. */
  diagnoses: Count[];
  /** The evidence's extractor, per claim. */
  extractors: Count[];
  /** The versions the evidence records: quotecheck's (every label), pdftotext's (PDF labels). */
  quotecheckVersions: Count[];
  pdftotextVersions: Count[];
  /** The first and last verify_date, and how many claims have none. */
  verifyDates: { first?: string; last?: string; missing: number };
}

const NOT_GIVEN = 'not recorded';

/** Values counted, most first, then by value. */
function counts(values: readonly string[]): Count[] {
  const m = new Map<string, number>();
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
  return [...m].map(([value, n]) => ({ value, n })).sort((a, b) => b.n - a.n || (a.value < b.value ? -1 : 1));
}

/** Scripts a quote's letters are counted in; anything else is `other`. */
const SCRIPTS = [
  'Latin',
  'Cyrillic',
  'Greek',
  'Arabic',
  'Hebrew',
  'Han',
  'Hiragana',
  'Katakana',
  'Hangul',
  'Devanagari',
  'Thai',
] as const;
const SCRIPT_RES = SCRIPTS.map((s) => [s, new RegExp(`\\p{Script=${s}}`, 'u')] as const);

/** The script most of a text's letters are in (Hiragana and Katakana as Japanese kana); `none` without letters. */
function mainScript(text: string): string {
  const tally = new Map<string, number>();
  for (const ch of text) {
    if (!/\p{L}/u.test(ch)) continue;
    const script = SCRIPT_RES.find(([, re]) => re.test(ch))?.[0] ?? 'other';
    const name = script === 'Hiragana' || script === 'Katakana' ? 'Japanese kana' : script;
    tally.set(name, (tally.get(name) ?? 0) + 1);
  }
  let best = 'none';
  let most = 0;
  for (const [name, n] of tally) if (n > most) [best, most] = [name, n];
  return best;
}

const evidenceText = (c: LabelledClaim, key: string): string | undefined => {
  const v = c.made?.evidence?.[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
};

/** A content type's media type alone, lower case (`text/html; charset=utf-8` to `text/html`). */
const mediaType = (type: string | undefined): string =>
  type === undefined ? NOT_GIVEN : (type.split(';')[0] ?? '').trim().toLowerCase() || NOT_GIVEN;

const version = (c: LabelledClaim, tool: 'quotecheck' | 'pdftotext'): string | undefined => {
  const v = (c.made?.evidence?.versions as Record<string, unknown> | undefined)?.[tool];
  return typeof v === 'string' && v !== '' ? v : undefined;
};

/** A URL's host name, lower case, without its port (the URL itself when it does not parse). */
const hostnameOf = (url: string): string => {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return url;
  }
};

/** The numbers of a dataset of `tasks` (each its labelled claims). */
export function datasetNumbers(tasks: readonly (readonly LabelledClaim[])[]): DatasetNumbers {
  const all = tasks.flat();
  const noMatch = all.filter((c) => c.label === 'no_match');
  const dates = all.flatMap((c) => (c.claim.verifyDate ? [new Date(c.claim.verifyDate).toISOString()] : [])).sort();
  const pdf = all.filter((c) => evidenceText(c, 'extractor') === 'pdftotext');
  return {
    claims: all.length,
    tasks: tasks.length,
    sources: new Set(all.map((c) => c.claim.fetchUrl)).size,
    hosts: new Set(all.map((c) => hostnameOf(c.claim.fetchUrl))).size,
    verbatim: all.length - noMatch.length,
    noMatch: noMatch.length,
    languages: counts(all.map((c) => c.made?.language ?? 'not given')),
    scripts: counts(all.map((c) => mainScript(c.claim.quote))),
    contentTypes: counts(all.map((c) => mediaType(evidenceText(c, 'content_type')))),
    diagnoses: counts(noMatch.map((c) => evidenceText(c, 'diagnosis') ?? NOT_GIVEN)),
    extractors: counts(all.map((c) => evidenceText(c, 'extractor') ?? NOT_GIVEN)),
    quotecheckVersions: counts(all.map((c) => version(c, 'quotecheck') ?? NOT_GIVEN)),
    pdftotextVersions: counts(pdf.map((c) => version(c, 'pdftotext') ?? NOT_GIVEN)),
    verifyDates: { first: dates[0], last: dates[dates.length - 1], missing: all.length - dates.length },
  };
}

/** What an audit (quotecheck audit --json) said of the dataset, as the card gives it. */
export interface AuditSummary {
  ok: boolean;
  counts: Record<string, number>;
  failures: string[];
  harnessOnly: number;
}

/** How the dataset was made and where it runs: what the card's last sections say. */
export interface CardContext {
  /** `<org>/<name>`, or the task prefix without --org. */
  title: string;
  /** The export command as given (paths by their base names). */
  command: string;
  quotecheckVersion: string;
  frozen: boolean;
  /** The base image both Dockerfiles start from, and the Debian packages' pins. */
  baseImage: string;
  aptVersions: Readonly<Record<string, string>>;
  /** The prebuilt images task.toml names, when given: their repositories. */
  imageRepositories: { agent?: string; verifier?: string };
  /** SkillsBench 1.1's layout runs on its own harnesses, not on Harbor's providers. */
  layout: Layout;
  verifier: 'separate' | 'shared';
  agentNetwork: string;
  runsOn: readonly string[];
  notOn: readonly { name: string; why: string; fix: string }[];
  harborVersion: string;
  /** An SPDX expression, or undefined when none was given. */
  license?: string;
  audit?: AuditSummary;
  /** A frozen edition's archives: how many records and bytes in all. */
  archives?: { records: number; bytes: number };
}

const share = (n: number, of: number): string => (of ? `${((100 * n) / of).toFixed(1)}%` : '0.0%');
const list = (cs: readonly Count[], of?: number): string =>
  cs.map((c) => `${c.value} ${c.n}${of === undefined ? '' : ` (${share(c.n, of)})`}`).join(', ') || 'none';

/** The card's table of numbers: one row each, `| what | number |`, as the tests read them back. */
function numbersTable(n: DatasetNumbers): string {
  const dates =
    n.verifyDates.first === undefined
      ? 'none'
      : `${n.verifyDates.first.slice(0, 10)} to ${n.verifyDates.last!.slice(0, 10)}` +
        (n.verifyDates.missing ? ` (${plural(n.verifyDates.missing, 'claim')} without one)` : '');
  const rows: [string, string][] = [
    ['claims', String(n.claims)],
    ['tasks', String(n.tasks)],
    ['sources', String(n.sources)],
    ['hosts', String(n.hosts)],
    ['verbatim', `${n.verbatim} (${share(n.verbatim, n.claims)})`],
    ['no_match', `${n.noMatch} (${share(n.noMatch, n.claims)})`],
    ['no_match by diagnosis', list(n.diagnoses, n.noMatch)],
    ['languages', list(n.languages)],
    ["quotes' scripts", list(n.scripts)],
    ['content types', list(n.contentTypes)],
    ['extractors', list(n.extractors)],
    ['verify dates', dates],
  ];
  return ['| | |', '|---|---|', ...rows.map(([k, v]) => `| ${k} | ${v} |`)].join('\n');
}

/** What the benchmark measures, and the rule every label follows. */
function aboutSection(title: string, n: DatasetNumbers): string {
  return `# ${title}

A quote-grounding benchmark: ${plural(n.claims, 'claim')} in ${plural(n.tasks, 'task')}, each a quote attributed to
a source at a URL. An agent reads every source and answers, for every claim, whether its quote occurs **verbatim** in
the source's text, or not (**no_match**). The rule is mechanical and given in full in every task's instruction: the
text of a PDF is what \`pdftotext -enc UTF-8 FILE -\` prints, that of an HTML page its visible text or its Readability
article view; quote and text are normalized (NFKC, straight quotes, dashes, whitespace, lower case) and the quote must
be a substring. A source that cannot be read, or yields no text, makes the claim no_match. The reward of a task is
its correct answers over its claims (\`/logs/verifier/reward.txt\`), with \`reward.json\` also giving the share answered
and how the answers failed (\`overclaim\`: a no_match answered verbatim; \`missed\`: the reverse).
`;
}

/** The versions the labels' evidence records, in words: quotecheck's of every label, pdftotext's of the PDF ones. */
function labelVersions(n: DatasetNumbers): string {
  const recorded = (cs: readonly Count[]): Count[] => cs.filter((c) => c.value !== NOT_GIVEN);
  const named = (tool: string, cs: readonly Count[]): string =>
    cs.map((c) => `${tool} ${c.value} (${plural(c.n, 'label')})`).join(', ');
  const quotecheck = recorded(n.quotecheckVersions);
  const pdftotext = recorded(n.pdftotextVersions);
  const missing = n.claims - quotecheck.reduce((a, c) => a + c.n, 0);
  return (
    `their evidence records ${quotecheck.length ? named('quotecheck', quotecheck) : 'no versions'}` +
    (pdftotext.length ? `, and for the PDF sources ${named('pdftotext', pdftotext)}` : '') +
    (missing && quotecheck.length ? `; ${plural(missing, 'label')} record none` : '') +
    (quotecheck.length ? '' : ' (labelled before quotecheck recorded them)')
  );
}

/** The commands and versions that made the dataset. */
function madeSection(n: DatasetNumbers, c: CardContext): string {
  const pins = Object.entries(c.aptVersions).map(([p, v]) => `${p}=${v}`);
  const images = [
    ...(c.imageRepositories.agent ? [`the agent's from \`${c.imageRepositories.agent}\``] : []),
    ...(c.imageRepositories.verifier ? [`the verifier's from \`${c.imageRepositories.verifier}\``] : []),
  ];
  return `## How it was made

The labels: \`quotecheck label\`, one label per claim from its source as read on its verify date, with the sha256 of the
bytes it was judged on; ${labelVersions(n)}.

The tasks: quotecheck ${c.quotecheckVersion},

\`\`\`sh
${c.command}
\`\`\`

${c.frozen ? `A frozen edition: every task ships its own sources, recorded (\`environment/sources.warc.gz\`${c.archives ? `, ${plural(c.archives.records, 'record')} in all` : ''}), and its oracle replays them with no network; the export ran every task's oracle on its archive and kept the dataset only where it gave every label.` : "A live edition: the agent reads today's web, judged as of each claim's verify date (the Wayback Machine has the older texts)."}
Both images start from \`${c.baseImage}\`${c.baseImage.includes('@sha256:') ? ' (pinned by digest)' : ' (by tag: its bytes are whatever the tag names when built)'}; the agent's installs poppler-utils, ca-certificates and curl from Debian${pins.length ? ` (${pins.join(', ')})` : ' (their versions of the day it is built)'}.${images.length ? ` Prebuilt images: ${images.join(', ')} (\`build-images.sh\` builds and pushes them).` : ''}
`;
}

/** Where it runs: Harbor's providers, as their code says. */
function runsSection(c: CardContext): string {
  const not = c.notOn.map((p) => `- ${p.name}: ${p.why}${p.fix === p.why ? '' : ` (${p.fix})`}`).join('\n');
  return `## Where it runs

Each task's verifier runs ${c.verifier === 'separate' ? "in a container of its own, built from its tests/ folder, which gets only the agent's `/app/answers.json`" : "in the agent's container, after the agent"}; the agent's run has the ${c.agentNetwork === 'public' ? 'public network' : 'network off (`[agent] network_mode = "no-network"`; its setup, installing the agent, keeps it)'}.
${c.layout === 'harbor' ? `On Harbor ${c.harborVersion}'s providers it runs on ${c.runsOn.join(', ') || 'none'}${not ? `, and not on:\n\n${not}` : '.'}` : "Its tasks are in SkillsBench 1.1's layout (`task.md`), which its harnesses run (EvalScope, AgentCompass), not Harbor."}
`;
}

/** The audit's result, when one was given. */
function auditSection(a: AuditSummary | undefined): string {
  if (!a)
    return `## Audit

No audit was given (\`quotecheck audit DATASET --json audit.json\`, then \`export --audit audit.json\`).
`;
  const counts = Object.entries(a.counts)
    .filter(([, v]) => v > 0)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const failures = a.failures.length ? `\n\n${a.failures.map((f) => `- ${f}`).join('\n')}` : '';
  return `## Audit

\`quotecheck audit\`: ${a.ok ? 'passed' : '**failed**'} (${counts}${a.harnessOnly ? `; ${plural(a.harnessOnly, 'attack')} only a harness can stop worked in shared mode` : ''}).${failures}
`;
}

/** The licence, and what is not the dataset's to license: the pages it cites or redistributes. */
function rightsSection(n: DatasetNumbers, c: CardContext): string {
  const licence = c.license
    ? `The claims, labels and task files are licensed under \`${c.license}\` (SPDX); its text is in \`LICENSE\`.`
    : 'No licence was given (`export --license SPDX`): without one, no one else may reuse the dataset.';
  const pages = c.frozen
    ? `This edition redistributes copies of other people's pages: the ${plural(n.sources, 'source')} of \
${plural(n.hosts, 'host')}, as recorded, in each task's \`environment/sources.warc.gz\`. Their rights stay with their \
owners, and the licence above does not cover them. Publish it only where you may redistribute them (their owners' \
permission, their terms, or an exception for research or text and data mining where you publish); otherwise \
publish the live edition, which ships only URLs and quotes.`
    : 'This edition ships URLs and the quotes attributed to them, not the pages: the agent fetches each page from ' +
      "its owner's site.";
  return `## Licence and rights

${licence}

${pages}
`;
}

/** README.md: the dataset's card. */
export function datasetCard(n: DatasetNumbers, c: CardContext): string {
  return [
    aboutSection(c.title, n),
    `## Numbers\n\n${numbersTable(n)}\n`,
    madeSection(n, c),
    runsSection(c),
    auditSection(c.audit),
    rightsSection(n, c),
  ].join('\n');
}
