// What a page's markup says about it (challenge widgets, JSON-LD paywall flags, script-built shells, redirects): read where the HTML is decoded, for diagnosis to classify.
import { Parser } from 'htmlparser2';
import { JS_SHELL_MAX_TEXT, SHELL_MAX_TEXT } from '../page-shell-limits.js';
import { isAsciiWhitespace } from './ascii-whitespace.js';
import { HTML_PARSER_OPTIONS } from './streamed-text.js';

/** Markup of challenge and captcha widgets. */
const BOT_MARKUP =
  /challenge-platform|cf-turnstile|g-recaptcha|h-captcha|class="?[^"]*captcha|__cf_chl_|id="?challenge-(form|running|stage)/i;
/** JSON-LD (schema.org) saying the article is not free; publishers mark paywalled text this way for search engines. */
const NOT_FREE = /"isAccessibleForFree"\s*:\s*(false|"false"|"False")/;
/** Markup of single-page apps that render everything with JavaScript. */
const APP_ROOT =
  /<div[^>]+id=["']?(root|app|__next|__nuxt|svelte)["']?[^>]*>\s*<\/div>|<app-root[^>]*>\s*<\/app-root>|<noscript>[^<]*(enable|turn on) javascript/i;
const SCRIPT_TAG = /<script\b/i;
/** A cheap look before parsing for a redirect: a refresh pragma, or a short inline script that names the location. */
const REFRESH_HINT = /http-equiv\s*=\s*["']?refresh/i;
const SCRIPT_HINT = /<script\b[^>]*>[\s\S]{0,300}?\blocation\b/i;

/** A redirect the page itself asks for (not an HTTP redirect, which the fetch follows). */
export interface MarkupRedirect {
  /** A `<meta http-equiv="refresh" content="N; url=...">`, or a one-line script that sets the location. */
  via: 'meta refresh' | 'script';
  /** The target as the page writes it (entities decoded): resolve it against `base`, then the page's URL. */
  target: string;
  /** The document's first `<base href>`, when it has one. */
  base?: string;
}

/** What the markup says, for shell detection (diagnose/shells.ts): read once, where the HTML is decoded. */
export interface MarkupSignals {
  /** Challenge or captcha markup found (checked only when the text is short enough for a shell). */
  botMarkup?: string;
  /** JSON-LD says the article is not free. */
  notFree: boolean;
  /** An app root or scripts (checked only when the page is all but empty). */
  scripted: boolean;
  /**
   * The page sends the reader elsewhere: a meta refresh with a URL (looked for only when the text is short
   * enough for a shell), or a one-line script redirect (only when the page is all but empty).
   */
  redirect?: MarkupRedirect;
}

/**
 * Reads the markup signals of a page whose normalized text is `textLength` characters long. Only pages short
 * enough to be a shell are searched for widgets, scripts and redirects: on a long page they could not make it
 * one, and the search would cost time on every page.
 */
export function markupSignals(html: string, textLength: number): MarkupSignals {
  const signals: MarkupSignals = {
    botMarkup: textLength < SHELL_MAX_TEXT ? BOT_MARKUP.exec(html)?.[0] : undefined,
    notFree: NOT_FREE.test(html),
    scripted: textLength < JS_SHELL_MAX_TEXT && (APP_ROOT.test(html) || SCRIPT_TAG.test(html)),
  };
  if (textLength < SHELL_MAX_TEXT) {
    const redirect = markupRedirect(html, textLength < JS_SHELL_MAX_TEXT);
    if (redirect) signals.redirect = redirect;
  }
  return signals;
}

/**
 * The page's own redirect: its first meta refresh that names a URL, else (when `scripts` is set: the page is all
 * but empty) the first short inline script that sends the location to a literal URL. Read with the extraction's
 * parser options (streamed-text.ts), so comments, attribute quoting, entities and script text are read as a browser does.
 */
export function markupRedirect(html: string, scripts: boolean): MarkupRedirect | undefined {
  const lookForRefresh = REFRESH_HINT.test(html);
  const lookForScript = scripts && SCRIPT_HINT.test(html);
  if (!lookForRefresh && !lookForScript) return undefined;
  let refresh: string | undefined;
  let scripted: string | undefined;
  let base: string | undefined;
  let inScript = false;
  let script = '';
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (name === 'base' && base === undefined && attribs.href !== undefined) base = attribs.href;
        else if (
          name === 'meta' &&
          refresh === undefined &&
          lookForRefresh &&
          attribs['http-equiv']?.toLowerCase() === 'refresh' &&
          attribs.content !== undefined
        ) {
          // The standard acts on the first refresh that parses; one without a URL reloads the page itself.
          const parsed = parseRefresh(attribs.content);
          if (parsed !== null) refresh = parsed.url ?? '';
        } else if (name === 'script' && lookForScript && attribs.src === undefined) {
          inScript = true;
          script = '';
        }
      },
      ontext(text) {
        // Past the limit the script is a program, whatever follows: scriptRedirect turns it down by its length.
        if (inScript && script.length <= SCRIPT_REDIRECT_MAX) script += text;
      },
      onclosetag(name) {
        if (name !== 'script' || !inScript) return;
        inScript = false;
        scripted ??= scriptRedirect(script);
      },
    },
    HTML_PARSER_OPTIONS,
  );
  parser.end(html);
  if (refresh) return { via: 'meta refresh', target: refresh, ...(base !== undefined ? { base } : {}) };
  if (scripted) return { via: 'script', target: scripted, ...(base !== undefined ? { base } : {}) };
  return undefined;
}

/** An inline script longer than this is a program, not a one-line redirect: what it does with the location depends on more than one line. */
const SCRIPT_REDIRECT_MAX = 300;

/** A string literal in JavaScript, single, double or backquoted (a template without substitutions). */
const LITERAL = String.raw`(["'\x60])((?:\\.|(?!\1)[^\\\n])*)\1`;
/** The location set to a literal: `location = "..."`, `location.href = '...'`, `location.replace("...")`, `location.assign('...')` (on window, document, self or top). */
const SET_LOCATION = new RegExp(
  String.raw`(?:^|[^\w$.])(?:(?:window|document|self|top)\s*\.\s*)*location\s*(?:(?:\.\s*href\s*)?=(?!=)\s*${LITERAL}|\.\s*(?:replace|assign)\s*\(\s*${LITERAL.replaceAll('\\1', '\\3')}\s*\))\s*(?:;|\}|\n|$)`,
);

/** The literal target of a one-line script redirect, or undefined. */
export function scriptRedirect(script: string): string | undefined {
  const code = script
    .trim()
    .replace(/^<!--|-->$/g, '')
    .trim();
  if (code.length === 0 || code.length > SCRIPT_REDIRECT_MAX) return undefined;
  const m = SET_LOCATION.exec(code);
  if (!m) return undefined;
  const [quote, body] = m[1] !== undefined ? [m[1], m[2]!] : [m[3]!, m[4]!];
  if (quote === '`' && body.includes('${')) return undefined;
  const target = body.replace(/\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)/g, (_, e: string) =>
    e.length > 1 && (e[0] === 'u' || e[0] === 'x') ? String.fromCodePoint(parseInt(e.replace(/[ux{}]/g, ''), 16)) : e,
  );
  return target.trim() === '' ? undefined : target;
}

/**
 * A refresh pragma's content parsed as the HTML standard's "shared declarative refresh steps" do: optional
 * whitespace, a number (digits, then digits and dots), then `;` or `,` or whitespace, then an optional `url=`
 * (any case, whitespace around `=`) and an optionally quoted URL. Null when the content does not parse (the
 * browser ignores it); `url` is absent when it names none (a reload of the page itself).
 */
export function parseRefresh(content: string): { delay: number; url?: string } | null {
  let i = 0;
  const n = content.length;
  const skipWhitespace = () => {
    while (i < n && isAsciiWhitespace(content.charCodeAt(i))) i++;
  };
  skipWhitespace();
  const start = i;
  while (i < n && content[i]! >= '0' && content[i]! <= '9') i++;
  const digits = content.slice(start, i);
  if (digits === '' && content[i] !== '.') return null;
  const delay = digits === '' ? 0 : Number(digits);
  while (i < n && ((content[i]! >= '0' && content[i]! <= '9') || content[i] === '.')) i++;
  if (i < n) {
    const c = content[i];
    if (c !== ';' && c !== ',' && !isAsciiWhitespace(content.charCodeAt(i))) return null;
    skipWhitespace();
    if (content[i] === ';' || content[i] === ',') i++;
    skipWhitespace();
  }
  if (i >= n) return { delay };
  let urlStart = i;
  // "url" (any case), whitespace, "=", whitespace: each step may fail, leaving the URL where it was.
  if (/^url/i.test(content.slice(i, i + 3))) {
    let j = i + 3;
    while (j < n && isAsciiWhitespace(content.charCodeAt(j))) j++;
    if (content[j] === '=') {
      j++;
      while (j < n && isAsciiWhitespace(content.charCodeAt(j))) j++;
      urlStart = j;
    }
  }
  let url = content.slice(urlStart);
  const quote = url[0];
  if (quote === '"' || quote === "'") {
    url = url.slice(1);
    const end = url.indexOf(quote);
    if (end >= 0) url = url.slice(0, end);
  }
  return url.trim() === '' ? { delay } : { delay, url };
}
