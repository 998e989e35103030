// The MCP tools' inputs and outputs as zod schemas (what the protocol shows an agent), and their bounds: pages,
// results, listed claims and warnings, passages and evidence strings.
// A namespace import: a build keeps only the parts of zod the schemas use (`import { z }` keeps all of it, four times
// as much).
import * as z from 'zod';
import { thousands } from '../messages.js';
import { WAYBACK_MODES, type WaybackMode } from '../config/settings.js';
import { FETCH_OPTIONS } from '../config/fetch-options.js';
import { LabelSchema, VerifyResultSchema } from '../contract.js';
import {
  MAX_CLAIMS_PER_CALL,
  MAX_PATH_CHARS,
  MAX_QUERY_CHARS,
  MAX_QUOTE_CHARS,
  MAX_URL_CHARS,
  capped,
  oneOf,
  wholeNumber,
} from './bounds.js';

/** read_source's page when none is asked for: about five pages of prose, well inside a model's context. */
export const DEFAULT_PAGE_CHARS = 20_000;
/** The largest page read_source hands out. */
const MAX_PAGE_CHARS = 100_000;
/** search_source's results when none is asked for, and at most. */
export const DEFAULT_RESULTS = 5;
const MAX_RESULTS = 20;
/** The longest as_of taken: an ISO date-time with fractions and an offset is about 35 characters. */
const MAX_AS_OF_CHARS = 64;
/**
 * check_claims lists at most this many claims in its result (and fewer when their text passes PART_BYTES); the answers
 * file has them all.
 */
export const MAX_LISTED_CLAIMS = 200;
/** check_claims lists at most this many of the claims file's warnings. */
export const MAX_LISTED_WARNINGS = 20;
/** A passage's text or raw wording longer than this is given shortened (a hostile page can make a raw span huge). */
export const MAX_PASSAGE_CHARS = 4_000;
/** verify_quote's evidence strings (nearest.raw, a redirect's target) longer than this are given shortened. */
export const MAX_EVIDENCE_CHARS = 2 * MAX_QUOTE_CHARS;

const views = ['article', 'full', 'text'] as const;

// ---- schemas -------------------------------------------------------------------------------

// Each field's refusals name it and say what to give (bounds.ts): what the field holds is the `what` of its messages.
const url = capped('url', MAX_URL_CHARS, "the source's http(s) URL", 1).describe(
  `http(s) URL of the source (at most ${thousands(MAX_URL_CHARS)} characters)`,
);

export const verifyInput = {
  url,
  quote: capped('quote', MAX_QUOTE_CHARS, 'the passage claimed to occur in the source', 1).describe(
    `the passage claimed to occur in the source, as the claim gives it (at most ${thousands(MAX_QUOTE_CHARS)} ` +
      `characters)`,
  ),
  // As `verify --html-view` (the table of src/config/fetch-options.ts): the same choices, wording and default.
  html_view: oneOf('html_view', FETCH_OPTIONS.htmlView.choices)
    .optional()
    .describe(`${FETCH_OPTIONS.htmlView.help} (default ${FETCH_OPTIONS.htmlView.default})`),
  as_of: capped('as_of', MAX_AS_OF_CHARS, 'an ISO date or date-time, or leave it out')
    .optional()
    .describe(
      'judge the quote as of this ISO date or date-time, as `quotecheck run` judges a claim with this verify_date',
    ),
  evidence: capped('evidence', MAX_AS_OF_CHARS * 2, "the source's sha256 as labelled (64 hex digits), or leave it out")
    .optional()
    .describe("sha256 of the source as labelled (a claim's evidence.sha256): a capture hashing to it decides alone"),
  wayback: oneOf('wayback', WAYBACK_MODES as unknown as [WaybackMode, ...WaybackMode[]])
    .optional()
    .describe(
      'when Wayback captures are looked up, as `run --wayback`: auto (default: with evidence, when the source ' +
        "changed and the quote is not in today's text), always (also without evidence when the quote is not in " +
        "today's text), strict (also when it is: for re-deriving labels), off",
    ),
};

const nullableString = z.string().nullable();

/** VerifyResult (src/contract.ts), the record `verify --json` prints and verifyQuote returns. */
export const verifyOutput = {
  ...VerifyResultSchema.shape,
  redirect: VerifyResultSchema.shape.redirect.describe(
    'when the page is a redirect shell (a meta refresh or one-line script redirect and no text of its own): its ' +
      "target, fetched once, and whether the quote is there; the label stays the page's own",
  ),
};

export const readInput = {
  url,
  view: oneOf('view', views)
    .optional()
    .describe('which text: article or full (HTML), text (PDF, plain text); default the first the source has'),
  offset: wholeNumber('offset', 0).optional().describe('first character of the page (default 0)'),
  length: wholeNumber('length', 1, MAX_PAGE_CHARS)
    .optional()
    .describe(`characters in the page (default ${DEFAULT_PAGE_CHARS})`),
};

const viewInfo = z.object({ name: z.enum(views), extractor: z.string(), length: z.number() });

export const readOutput = {
  url: z.string(),
  final_url: z.string(),
  http_status: z.number(),
  content_type: nullableString,
  charset: nullableString.describe('the charset the bytes were decoded with (null for a PDF)'),
  charset_source: nullableString,
  views: z.array(viewInfo).describe('the texts this source has, with their lengths'),
  view: z.enum(views),
  offset: z.number(),
  total_length: z.number().describe('characters in the whole view'),
  next_offset: z.number().nullable().describe('offset of the next page, null at the end'),
  text: z.string().describe('the extracted text, as it is before normalization'),
  note: nullableString,
};

export const searchInput = {
  url,
  query: capped('query', MAX_QUERY_CHARS, 'the phrase to look for', 1).describe(
    `the phrase to look for, e.g. the quote or part of it (at most ${thousands(MAX_QUERY_CHARS)} characters)`,
  ),
  max_results: wholeNumber('max_results', 1, MAX_RESULTS)
    .optional()
    .describe(`passages returned (default ${DEFAULT_RESULTS})`),
};

const passage = z.object({
  view: z.enum(views),
  offset: z
    .number()
    .describe(
      "offset of the passage (the sentences around the closest span) in the view's normalized text, as a report's " +
        'nearest.offset',
    ),
  length: z.number(),
  span_offset: z
    .number()
    .describe("offset of the span closest to the query, inside the passage, in the view's normalized text"),
  span_length: z.number(),
  similarity: z.number().describe('of the span: 1 - edit distance / query length; 1 is the exact phrase'),
  text: z.string().describe('the passage normalized'),
  raw: z.string().describe("the passage in the page's own wording"),
});

export const searchOutput = {
  url: z.string(),
  final_url: z.string(),
  query: z.string(),
  exact: z.boolean().describe('whether the normalized query is in a view (what would make a quote verbatim)'),
  results: z.array(passage),
  note: nullableString.describe(
    'why fewer passages than asked for are given: the answer had to be kept small, or the source has no more',
  ),
};

export const checkInput = {
  claims_path: capped(
    'claims_path',
    MAX_PATH_CHARS,
    "the path of a claims file under the server's root folder",
    1,
  ).describe(
    `a claims file under the server's root folder (a path relative to it, or absolute inside it): a JSON array of ` +
      `{id, quote, url} (or {"claims": [...]}), at most ${thousands(MAX_CLAIMS_PER_CALL)} claims`,
  ),
  answers_path: capped(
    'answers_path',
    MAX_PATH_CHARS,
    'a file path under the root folder, or leave it out for answers.json beside the claims',
    1,
  )
    .optional()
    .describe(
      'where the answers go, under the root folder: a plain file name in an existing folder (default answers.json ' +
        'beside the claims file)',
    ),
};

export const checkOutput = {
  answers_path: z.string(),
  claims: z.number(),
  verbatim: z.number(),
  no_match: z.number(),
  diagnoses: z.record(z.string(), z.number()),
  results: z.array(z.object({ id: z.string(), label: LabelSchema, diagnosis: z.string(), note: nullableString })),
  listed: z
    .number()
    .describe(`claims listed in results (at most ${MAX_LISTED_CLAIMS}, fewer when their ids and notes are long)`),
  warnings: z.array(z.string()),
  ms: z.number(),
};

export type Infer<S extends z.ZodRawShape> = z.infer<z.ZodObject<S>>;
