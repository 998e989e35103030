// What a task tells its agent (instruction.md, task.md's body): the task, the exact label rule, the answer format, and
// what the dated claims, a frozen edition's archive and a variant's tool add.
import { TASK_ARCHIVE, TASK_SKILLS_DIR, WARC_READER_COMMAND } from './paths.js';
import { givesTool, QUOTECHECK_MCP_SERVER, type TaskVariant } from './variant.js';

interface InstructionOptions {
  /** The claims carry verify dates (and evidence hashes): tell the agent to judge as of them. */
  asOf?: boolean;
  /** Where the Wayback Machine is, when it is not https://web.archive.org (a local one, such as the Wayback stub). */
  waybackUrl?: string;
  /** The task ships its sources as /app/sources.warc.gz. */
  archive?: boolean;
  /** What the task gives the agent: the instruction says so when it is quotecheck. */
  variant?: TaskVariant;
  /** With `variant.skill`: the skill's name, its folder's (default quote-verification, quotecheck's own). */
  skillName?: string;
}

/**
 * The answers example's ids: made up (`claim-id-1`, `claim-id-2`), never one of the task's own `claimIds`, so the
 * example pairs no claim of the task with a label (issue 25: a real id labelled `verbatim` in the example was often its
 * gold).
 */
function exampleIds(claimIds: readonly string[]): [string, string] {
  const taken = new Set(claimIds);
  const ids: string[] = [];
  for (let n = 1; ids.length < 2; n++) if (!taken.has(`claim-id-${n}`)) ids.push(`claim-id-${n}`);
  return [ids[0]!, ids[1]!];
}

/**
 * What the agent is told: the task, the exact label rule, the answer format. A plain task never names quotecheck.
 * `claimIds` are the task's ids: the answers example's placeholder ids are chosen to be none of them.
 */
export function instruction(
  claimCount: number,
  claimIds: readonly string[],
  about?: string,
  opts: InstructionOptions = {},
): string {
  const [first, second] = exampleIds(claimIds);
  const example = `${JSON.stringify(first)}: "verbatim", ${JSON.stringify(second)}: "no_match"`;
  return `# Check quotes against their sources

\`/app/claims.json\` holds ${claimCount} claims. Each one has an \`id\`, a \`quote\`, the \`url\` of the source
the quote is attributed to, and usually a \`claim\` sentence.

Fetch every source URL (each URL once is enough) and decide for every claim whether its quote occurs
**verbatim** in the source's text:

- the text of a PDF is what \`pdftotext -enc UTF-8 FILE -\` (poppler, default mode) outputs;
- the text of an HTML page is its visible text (body text without script, style, noscript and template;
  block elements and \`<br>\` separated by whitespace, inline elements not), or the article view that
  Mozilla Readability extracts from it;
- decode HTML as a browser does (HTML standard §13.2.3): the BOM, then the charset of the Content-Type
  header, then a \`<meta charset>\` or \`http-equiv\` Content-Type declaration in the head before any body
  content, wherever it sits in the bytes (not inside a comment or a script; a UTF-16 label means UTF-8,
  \`x-user-defined\` means windows-1252), then UTF-8 when the bytes are valid UTF-8, then the legacy encoding
  the bytes look like (as browsers guess), windows-1252 when nothing fits.

Before comparing, normalize both the quote and the source text, in this order:

1. Unicode NFKC;
2. curly quotes to straight: U+2018 U+2019 U+201A U+201B U+2032 U+2035 to \`'\`, U+201C U+201D U+201E
   U+201F U+2033 U+2036 to \`"\`;
3. dashes U+2010 to U+2015, U+2212, U+FE58, U+FE63, U+FF0D to \`-\`;
4. every run of whitespace (JavaScript \`\\s\` plus U+001C to U+001F and U+0085) to one space, trimmed;
5. lower case.

Nothing else: soft hyphens, zero-width characters and ellipses stay as NFKC leaves them.
A claim is \`verbatim\` if and only if the normalized quote is a substring of the normalized source text;
otherwise, and whenever the source cannot be fetched or yields no text, it is \`no_match\`.

Write \`/app/answers.json\`: one JSON object mapping every claim id of \`/app/claims.json\` to \`"verbatim"\` or
\`"no_match"\`. Its shape, with made-up ids:

\`\`\`json
{ ${example} }
\`\`\`
${opts.asOf ? asOfSection(opts.waybackUrl, opts.archive === true) : ''}${opts.archive ? archiveSection() : ''}${toolSection(opts.variant ?? {}, opts.skillName, opts.archive === true)}${about ? `\nAbout these sources: ${about}\n` : ''}`;
}

function asOfSection(waybackUrl = 'https://web.archive.org', frozen = false): string {
  const where = frozen
    ? `use the
Wayback Machine's answers recorded in the archive (below): its lookups (\`/cdx/search/cdx?url=URL&...\`) and the
captures the labels were judged on (\`/web/TIMESTAMPid_/URL\`: a capture's original bytes, filed under URL at its date).`
    : `use the
Wayback Machine at \`${waybackUrl}\`: \`/cdx/search/cdx?url=URL&to=YYYYMMDDhhmmss&filter=statuscode:200&output=json&limit=-5\`
lists the captures up to a date, and \`/web/TIMESTAMPid_/URL\` serves a capture's original bytes.`;
  return `
## As of the verify date

Each claim was labelled on its \`verify_date\`. Judge it as of that date: sources change and disappear.
When a claim has \`evidence.sha256\`, that is the sha256 of the source's bytes (after Content-Encoding is
removed) when it was labelled. If today's source no longer hashes to it, or cannot be fetched, ${where} A capture whose
sha256 equals the evidence is the text that was labelled; otherwise take the latest capture at or before the date.
${frozen ? '' : "Keep to about 15 requests a minute to the archive, and wait as long as a 429's Retry-After asks.\n"}`;
}

function archiveSection(): string {
  return `
## The sources are in /app/${TASK_ARCHIVE}

This is a frozen edition: every source as it was recorded, in a WARC 1.1 file (ISO 28500, the format of the Internet
Archive): one record per HTTP request and response, every redirect hop and retry included, each record its own gzip
member, each response's body as it came over the wire (still content-encoded). Read the sources from it, not from the
live web, so that the answers do not depend on when the task is run:

- \`${WARC_READER_COMMAND} /app/${TASK_ARCHIVE} DIR\` writes every recorded response body, de-chunked and
  content-decoded, to \`DIR/bodies/\`, and an index of them to \`DIR/index.json\` (url, status, content type, file);
- any WARC reader opens it too (Python's \`warcio\`: \`warcio index\` lists the records), and \`zcat\` shows its
  headers as text.
`;
}

/**
 * What a variant that gives quotecheck tells the agent; nothing for a plain task. In a frozen edition the tool reads
 * the task's archive (the MCP server's --replay, the image's QUOTECHECK_REPLAY), as the instruction says the sources
 * are.
 */
function toolSection(variant: TaskVariant, skillName = 'quote-verification', archive = false): string {
  if (!givesTool(variant)) return '';
  const ways = [
    ...(variant.mcp
      ? [
          `its MCP server \`${QUOTECHECK_MCP_SERVER.name}\` (tools \`verify_quote\`, \`read_source\`, ` +
            `\`search_source\`, \`check_claims\`) and the \`${QUOTECHECK_MCP_SERVER.command}\` command`,
        ]
      : []),
    ...(variant.skill
      ? [
          `the skill \`${skillName}\` among your skills (in \`${TASK_SKILLS_DIR}\`), which carries the tool in its ` +
            `own folder and says how to use it`,
        ]
      : []),
  ];
  const replays = archive ? ` Here it reads every source from \`/app/${TASK_ARCHIVE}\`, never the live web.` : '';
  return `
## A tool is provided

This task gives you quotecheck, a tool that does this checking: ${ways.join('; and ')}. You may use it.${replays}
`;
}
