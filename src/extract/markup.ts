// What a page's markup says about it (challenge widgets, JSON-LD paywall flags, script-built shells, redirects): read
// element by element from the page's tree or the streaming pass's events, where the HTML is decoded, for diagnosis.
import { JS_SHELL_MAX_TEXT, SHELL_MAX_TEXT } from '../page-shell-limits.js';
import { isAsciiWhitespace } from './ascii-whitespace.js';
import { ELEMENT_NODE, TEXT_NODE, type LightDocument, type LightElement, type LightNode } from './lightdom/index.js';

/** Names of challenge and captcha widgets' scripts, classes and endpoints, found in an attribute or a script's text. */
const BOT_TOKENS = /challenge-platform|cf-turnstile|g-recaptcha|h-captcha|__cf_chl_/i;
/** A class naming a captcha (`g-captcha`, `hold-captcha`). */
const CAPTCHA_CLASS = /captcha/i;
/** Ids of a challenge page's form and stages (Cloudflare's interstitial). */
const BOT_IDS = /^challenge-(?:form|running|stage)/i;
/** JSON-LD (schema.org) saying the article is not free, in a script's text: publishers mark paywalled text this way. */
const NOT_FREE = /"isAccessibleForFree"\s*:\s*(false|"false"|"False")/;
/** Ids of the empty root element a single-page app renders everything into. */
const APP_ROOT_IDS: ReadonlySet<string> = new Set(['root', 'app', '__next', '__nuxt', 'svelte']);
/**
 * A <noscript> asking for JavaScript. Its text is the element's as parsed with scripting off (as jsdom parses): a
 * <noscript> in the head holds no text (the parser moves text to the body), one in the body does.
 */
const NEEDS_JAVASCRIPT = /(enable|turn on) javascript/i;
/** A <noscript>'s text is read this far for NEEDS_JAVASCRIPT: the request comes first when it is there. */
const NOSCRIPT_TEXT_MAX = 1_000;
/** Attribute values past this length are not searched for BOT_TOKENS (inline data, not a widget's name or URL). */
const ATTRIBUTE_SEARCH_MAX = 2_000;

/** A redirect the page itself asks for (not an HTTP redirect, which the fetch follows). */
interface MarkupRedirect {
  /** A `<meta http-equiv="refresh" content="N; url=...">`, or a one-line script that sets the location. */
  via: 'meta refresh' | 'script';
  /** The target as the page writes it (entities decoded): resolve it against `base`, then the page's URL. */
  target: string;
  /** The document's first `<base href>`, when it has one. */
  base?: string;
}

/** What the markup says, for shell detection (diagnose/shells.ts): read once, where the HTML is decoded. */
export interface MarkupSignals {
  /** Challenge or captcha markup found (kept only when the text is short enough for a shell). */
  botMarkup?: string;
  /** JSON-LD says the article is not free. */
  notFree: boolean;
  /** An app root or scripts (kept only when the page is all but empty). */
  scripted: boolean;
  /**
   * The page sends the reader elsewhere: a meta refresh with a URL (kept only when the text is short enough for a
   * shell), or a one-line script redirect (only when the page is all but empty).
   */
  redirect?: MarkupRedirect;
}

/**
 * An element's attributes as the reader takes them: the tree's element's own list, or the parser's attribs as one (the
 * first of each name, as both keep it).
 */
type Attributes = readonly { readonly name: string; readonly value: string }[];

/** The value of the attribute `name`, or undefined. */
function attribute(attributes: Attributes, name: string): string | undefined {
  for (const a of attributes) if (a.name === name) return a.value;
  return undefined;
}

/**
 * Reads the markup signals from a page's elements and text in document order: open, text, close, as the tree walk
 * (signalsFromTree) or the streaming pass (streamed-text.ts) give them, so both read a page the same way. What it
 * finds is kept whatever the page's length; `signals` keeps only what could make a page of that text a shell.
 */
export class MarkupReader {
  #bot: string | undefined;
  #notFree = false;
  #scripts = false;
  #appRoot = false;
  #base: string | undefined;
  #refresh: string | undefined;
  #scriptRedirect: string | undefined;
  /** The text of the <script> open now (inline), or undefined. */
  #script: string[] | undefined;
  #scriptInline = false;
  /** The text of the <noscript> open now, or undefined. */
  #noscript: string | undefined;
  /** The element just opened while it may still be an empty app root (nothing in it yet). */
  #emptyCandidate: string | undefined;

  open(name: string, attributes: Attributes): void {
    this.#emptyCandidate = undefined;
    if (this.#bot === undefined) this.#bot = botAttribute(attributes);
    if (name === 'script') {
      this.#scripts = true;
      this.#script = [];
      this.#scriptInline = attribute(attributes, 'src') === undefined;
    } else if (name === 'noscript') {
      this.#noscript = '';
    } else if (name === 'base') {
      this.#base ??= attribute(attributes, 'href');
    } else if (name === 'meta') {
      this.#meta(attributes);
    }
    if ((name === 'div' && APP_ROOT_IDS.has(attribute(attributes, 'id') ?? '')) || name === 'app-root')
      this.#emptyCandidate = name;
  }

  text(text: string): void {
    if (this.#emptyCandidate !== undefined && !isBlank(text)) this.#emptyCandidate = undefined;
    if (this.#script) this.#script.push(text);
    else if (this.#noscript !== undefined && this.#noscript.length < NOSCRIPT_TEXT_MAX) this.#noscript += text;
  }

  close(name: string): void {
    if (this.#emptyCandidate === name) this.#appRoot = true;
    this.#emptyCandidate = undefined;
    if (name === 'script' && this.#script) {
      this.#scriptText(this.#script.join(''));
      this.#script = undefined;
    } else if (name === 'noscript' && this.#noscript !== undefined) {
      if (NEEDS_JAVASCRIPT.test(this.#noscript)) this.#appRoot = true;
      this.#noscript = undefined;
    }
  }

  /**
   * The signals of a page whose normalized text is `textLength` characters long: widgets and refreshes only when
   * the text is short enough for a shell, scripts and script redirects only when the page is all but empty. On a
   * longer page they could not make it one.
   */
  signals(textLength: number): MarkupSignals {
    // A script that never closed (the page ended inside it) is read as it stands, as the parser ends it.
    if (this.#script) this.close('script');
    const shell = textLength < SHELL_MAX_TEXT;
    const empty = textLength < JS_SHELL_MAX_TEXT;
    const signals: MarkupSignals = {
      botMarkup: shell ? this.#bot : undefined,
      notFree: this.#notFree,
      scripted: empty && (this.#appRoot || this.#scripts),
    };
    const base = this.#base !== undefined ? { base: this.#base } : {};
    if (shell && this.#refresh) signals.redirect = { via: 'meta refresh', target: this.#refresh, ...base };
    else if (empty && this.#scriptRedirect) signals.redirect = { via: 'script', target: this.#scriptRedirect, ...base };
    return signals;
  }

  #meta(attributes: Attributes): void {
    if (this.#refresh !== undefined) return;
    const content = attribute(attributes, 'content');
    if (attribute(attributes, 'http-equiv')?.toLowerCase() !== 'refresh' || content === undefined) return;
    // The standard acts on the first refresh that parses; one without a URL reloads the page itself.
    const parsed = parseRefresh(content);
    if (parsed !== null) this.#refresh = parsed.url ?? '';
  }

  #scriptText(code: string): void {
    if (!this.#notFree && NOT_FREE.test(code)) this.#notFree = true;
    this.#bot ??= BOT_TOKENS.exec(code)?.[0].toLowerCase();
    // Past the limit the script is a program, whatever follows: scriptRedirect turns it down by its length.
    if (this.#scriptInline && this.#scriptRedirect === undefined) this.#scriptRedirect = scriptRedirect(code);
  }
}

/** The challenge markup an element's attributes show: a widget's name or URL, a captcha class, a challenge id. */
function botAttribute(attributes: Attributes): string | undefined {
  for (const { name, value } of attributes) {
    if (value.length > ATTRIBUTE_SEARCH_MAX) continue;
    const token = BOT_TOKENS.exec(value)?.[0];
    if (token) return token.toLowerCase();
    if (name === 'class' && CAPTCHA_CLASS.test(value)) return `class "${value}"`;
    if (name === 'id' && BOT_IDS.test(value)) return `id "${value}"`;
  }
  return undefined;
}

function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (!isAsciiWhitespace(text.charCodeAt(i))) return false;
  return true;
}

/**
 * The markup signals of a built page (before Readability rearranges it), its nodes walked in document order as
 * renderText walks them (render.ts): by first child, next sibling and parent, so a page nested as deep as the DOM caps
 * allow costs no stack and nothing is allocated per node.
 */
export function readTree(doc: LightDocument, reader: MarkupReader): void {
  for (const top of doc.childNodes) {
    let node: LightNode | null = top;
    while (node) {
      if (node.nodeType === TEXT_NODE) reader.text(node.textContent ?? '');
      else if (node.nodeType === ELEMENT_NODE) {
        reader.open((node as LightElement).localName, (node as LightElement).attributes);
        if (node.firstChild) {
          node = node.firstChild;
          continue;
        }
        reader.close((node as LightElement).localName);
      }
      // Climb until there is a next sibling, closing the elements left.
      while (node && node !== top && !node.nextSibling) {
        node = node.parentNode;
        if (node) reader.close((node as LightElement).localName);
      }
      node = node === top ? null : (node?.nextSibling ?? null);
    }
  }
}

/**
 * An inline script longer than this is a program, not a one-line redirect: what it does with the location depends on
 * more than one line.
 */
const SCRIPT_REDIRECT_MAX = 300;

/** A string literal in JavaScript, single, double or backquoted (a template without substitutions). */
const LITERAL = String.raw`(["'\x60])((?:\\.|(?!\1)[^\\\n])*)\1`;
/**
 * The location set to a literal: `location = "..."`, `location.href = '...'`, `location.replace("...")`,
 * `location.assign('...')` (on window, document, self or top).
 */
const SET_LOCATION = new RegExp(
  String.raw`(?:^|[^\w$.])(?:(?:window|document|self|top)\s*\.\s*)*location\s*` +
    String.raw`(?:(?:\.\s*href\s*)?=(?!=)\s*${LITERAL}|` +
    String.raw`\.\s*(?:replace|assign)\s*\(\s*${LITERAL.replaceAll('\\1', '\\3')}\s*\))\s*(?:;|\}|\n|$)`,
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
