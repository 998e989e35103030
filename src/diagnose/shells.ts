// Pages that stand in for the document: bot checks, login, subscription and consent walls, JS-only app shells, redirect
// shells. Recognised by their headers, markup and text, never by site names. Classification only: the markup and text
// are read where the page is decoded (extract/).
import { JS_SHELL_MAX_TEXT, SHELL_MAX_TEXT } from '../page-shell-limits.js';
import type { MarkupSignals } from '../source-record.js';

/** A redirect the page's markup asks for (extract/markup.ts), target as written. */
type MarkupRedirect = NonNullable<MarkupSignals['redirect']>;

export { JS_SHELL_MAX_TEXT, SHELL_MAX_TEXT } from '../page-shell-limits.js';

type ShellKind = 'bot_check' | 'login' | 'subscription' | 'consent' | 'js_shell' | 'redirect';

export interface Shell {
  kind: ShellKind;
  /** The evidence: which header, markup or wording gave it away. */
  evidence: string;
  /** Strong evidence says the page is not the document at all; weak evidence says its text may be cut short. */
  strong: boolean;
  /**
   * A redirect shell's target, resolved against the page's URL (and its `<base href>`), and how the page sends the
   * reader there.
   */
  redirect?: { target: string; via: MarkupRedirect['via'] };
}

interface ShellInput {
  status?: number;
  headers?: Record<string, string>;
  /** What the markup says, read where the HTML was decoded (extract/markup.ts); absent for PDFs and text files. */
  markup?: MarkupSignals;
  /**
   * The page's normalized full text (docs/how-it-decides.md#normalization-and-the-label): the extracted full view, or
   * an error page's text.
   */
  text?: string;
  /** The page's URL (after HTTP redirects), to resolve a redirect target against. */
  url?: string;
}

/** One regular expression that matches where any of `parts` does (each alternative written on its own line). */
function anyOf(...parts: RegExp[]): RegExp {
  return new RegExp(parts.map((p) => p.source).join('|'));
}

/**
 * Wording that gives walls away. Each list is checked against the normalized page text
 * (lowercase, straight quotes), so patterns are lowercase.
 */
const WORDING: readonly (readonly [ShellKind, RegExp])[] = [
  [
    'bot_check',
    anyOf(
      /\bjust a moment\.\.\./,
      /checking (if the site connection is secure|your browser)/,
      /enable javascript and cookies to continue/,
      /verify(ing)? (that )?you are (a )?human/,
      /are you a robot/,
      /(unusual|suspicious|automated) (traffic|activity|requests?) from your/,
      /press (&|and) hold/,
      /please complete the security check/,
      /attention required!/,
      /access to this page has been denied/,
      /pardon our interruption/,
    ),
  ],
  [
    'subscription',
    anyOf(
      /subscribe (now )?to (continue|keep) reading/,
      /(subscribe|subscription) (is )?required to (read|continue|access)/,
      /this (article|story|content) is (only )?(available|reserved|exclusive) (to|for) (paying )?(subscribers|members)/,
      /already a (subscriber|member)\? (log|sign) in/,
      new RegExp(
        /you('ve| have) (reached|used|read) (your|all( of)? your|the) /.source +
          /(\w+ )?(limit of )?(free|complimentary) (articles|stories)/.source,
      ),
      /(free )?article limit/,
      /to continue reading,? (please )?(subscribe|log in|sign in|register)/,
      /become a (member|subscriber) to (read|continue)/,
      /create a free account to (continue|keep) reading/,
      /unlock (this|the full) (article|story)/,
    ),
  ],
  [
    'login',
    anyOf(
      /(sign|log) in to (continue|read|view|access)/,
      /please (sign|log) in (to|first)/,
      /you must be (signed|logged) in/,
      /(members|subscribers) only\. (sign|log) in/,
      /authentication required/,
      /login required/,
    ),
  ],
  [
    'consent',
    anyOf(
      /we value your privacy/,
      /(accept|reject|refuse) all( cookies)?\b.*\b(accept|reject|refuse) all/,
      /before you continue to/,
      /manage (your )?(privacy|cookie|consent) (choices|preferences|settings|options)/,
      /we and our (\d+ )?partners (use|store)/,
      /your privacy choices/,
    ),
  ],
];

/** Recognises a shell from the response; returns the strongest finding, or null for an ordinary page. */
export function detectShell({ status, headers, markup, text, url }: ShellInput): Shell | null {
  const mitigated = headers?.['cf-mitigated'];
  if (mitigated && /challenge/i.test(mitigated)) {
    return { kind: 'bot_check', evidence: `header cf-mitigated: ${mitigated}`, strong: true };
  }
  const textLength = text?.length ?? 0;
  const short = textLength < SHELL_MAX_TEXT;
  if (markup?.botMarkup && short) {
    return { kind: 'bot_check', evidence: `challenge markup (${markup.botMarkup})`, strong: true };
  }
  for (const [kind, pattern] of WORDING) {
    const found = text?.match(pattern);
    if (found) return { kind, evidence: `"${found[0]}"`, strong: short || kind === 'bot_check' };
  }
  if (status === 401) return { kind: 'login', evidence: 'HTTP 401 (authentication required)', strong: true };
  // A page that sends the reader elsewhere and has too little text to be the document itself (markup.ts reads
  // a meta refresh only below SHELL_MAX_TEXT, a script redirect only below JS_SHELL_MAX_TEXT).
  const redirect = markup?.redirect && short ? resolveRedirect(markup.redirect, url) : undefined;
  if (redirect) {
    return { kind: 'redirect', evidence: `${redirect.via} to ${redirect.target}`, strong: true, redirect };
  }
  if (markup?.notFree) {
    return { kind: 'subscription', evidence: 'JSON-LD "isAccessibleForFree": false', strong: short };
  }
  if (markup?.scripted && textLength < JS_SHELL_MAX_TEXT) {
    return {
      kind: 'js_shell',
      evidence: `${textLength} characters of text; the page is built by scripts`,
      strong: true,
    };
  }
  return null;
}

/**
 * A redirect's target as a browser would go there: resolved against the `<base href>` and the page's URL. None
 * when it is not an http(s) URL (`javascript:`, `data:`, unparsable) or is the page itself (a refresh that reloads).
 */
export function resolveRedirect(
  redirect: MarkupRedirect,
  pageUrl: string | undefined,
): { target: string; via: MarkupRedirect['via'] } | undefined {
  let target: URL;
  try {
    const base = redirect.base !== undefined && pageUrl !== undefined ? new URL(redirect.base, pageUrl) : pageUrl;
    target = new URL(redirect.target, base);
  } catch {
    return undefined;
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return undefined;
  if (pageUrl !== undefined) {
    const page = URL.canParse(pageUrl) ? new URL(pageUrl) : undefined;
    if (page && withoutHash(page) === withoutHash(target)) return undefined;
  }
  return { target: target.href, via: redirect.via };
}

function withoutHash(u: URL): string {
  return u.href.slice(0, u.href.length - u.hash.length);
}
