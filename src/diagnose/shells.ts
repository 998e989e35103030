// Pages that stand in for the document: bot checks, login, subscription and consent walls, JS-only app shells.
// Recognised by their headers, markup and text, never by site names.

export type ShellKind = 'bot_check' | 'login' | 'subscription' | 'consent' | 'js_shell';

export interface Shell {
  kind: ShellKind;
  /** The evidence: which header, markup or wording gave it away. */
  evidence: string;
  /** Strong evidence says the page is not the document at all; weak evidence says its text may be cut short. */
  strong: boolean;
}

export interface ShellInput {
  status?: number;
  headers?: Record<string, string>;
  /** The decoded HTML, when the body is HTML (or its signals, below, read where it was decoded). */
  html?: string;
  markup?: MarkupSignals;
  /** The page's normalized full text (design.md §3), when it was extracted. */
  text?: string;
}

/**
 * Wording that gives walls away. Each list is checked against the normalized page text
 * (lowercase, straight quotes), so patterns are lowercase.
 */
const WORDING: readonly (readonly [ShellKind, RegExp])[] = [
  ['bot_check', /\bjust a moment\.\.\.|checking (if the site connection is secure|your browser)|enable javascript and cookies to continue|verify(ing)? (that )?you are (a )?human|are you a robot|(unusual|suspicious|automated) (traffic|activity|requests?) from your|press (&|and) hold|please complete the security check|attention required!|access to this page has been denied|pardon our interruption/],
  ['subscription', /subscribe (now )?to (continue|keep) reading|(subscribe|subscription) (is )?required to (read|continue|access)|this (article|story|content) is (only )?(available|reserved|exclusive) (to|for) (paying )?(subscribers|members)|already a (subscriber|member)\? (log|sign) in|you('ve| have) (reached|used|read) (your|all( of)? your|the) (\w+ )?(limit of )?(free|complimentary) (articles|stories)|(free )?article limit|to continue reading,? (please )?(subscribe|log in|sign in|register)|become a (member|subscriber) to (read|continue)|create a free account to (continue|keep) reading|unlock (this|the full) (article|story)/],
  ['login', /(sign|log) in to (continue|read|view|access)|please (sign|log) in (to|first)|you must be (signed|logged) in|(members|subscribers) only\. (sign|log) in|authentication required|login required/],
  ['consent', /we value your privacy|(accept|reject|refuse) all( cookies)?\b.*\b(accept|reject|refuse) all|before you continue to|manage (your )?(privacy|cookie|consent) (choices|preferences|settings|options)|we and our (\d+ )?partners (use|store)|your privacy choices/],
];

/** Markup of challenge and captcha widgets. */
const BOT_MARKUP = /challenge-platform|cf-turnstile|g-recaptcha|h-captcha|class="?[^"]*captcha|__cf_chl_|id="?challenge-(form|running|stage)/i;
/** JSON-LD (schema.org) saying the article is not free; publishers mark paywalled text this way for search engines. */
const NOT_FREE = /"isAccessibleForFree"\s*:\s*(false|"false"|"False")/;
/** Markup of single-page apps that render everything with JavaScript. */
const APP_ROOT = /<div[^>]+id=["']?(root|app|__next|__nuxt|svelte)["']?[^>]*>\s*<\/div>|<app-root[^>]*>\s*<\/app-root>|<noscript>[^<]*(enable|turn on) javascript/i;
const SCRIPT_TAG = /<script\b/i;

/** Pages with less text than this (normalized characters) cannot be the article they stand for. */
export const SHELL_MAX_TEXT = 2_500;
/** Pages with less text than this are empty for a reader, whatever their markup. */
export const JS_SHELL_MAX_TEXT = 200;

/** What the markup says, for detectShell: read once, where the HTML is decoded (the extraction worker). */
export interface MarkupSignals {
  /** Challenge or captcha markup found (checked only when the text is short enough for a shell). */
  botMarkup?: string;
  /** JSON-LD says the article is not free. */
  notFree: boolean;
  /** An app root or scripts (checked only when the page is all but empty). */
  scripted: boolean;
}

/** Reads the markup signals of a page whose normalized text is `textLength` characters long. */
export function markupSignals(html: string, textLength: number): MarkupSignals {
  return {
    botMarkup: textLength < SHELL_MAX_TEXT ? BOT_MARKUP.exec(html)?.[0] : undefined,
    notFree: NOT_FREE.test(html),
    scripted: textLength < JS_SHELL_MAX_TEXT && (APP_ROOT.test(html) || SCRIPT_TAG.test(html)),
  };
}

/** Recognises a shell from the response; returns the strongest finding, or null for an ordinary page. */
export function detectShell({ status, headers, html, markup, text }: ShellInput): Shell | null {
  const mitigated = headers?.['cf-mitigated'];
  if (mitigated && /challenge/i.test(mitigated)) {
    return { kind: 'bot_check', evidence: `header cf-mitigated: ${mitigated}`, strong: true };
  }
  const textLength = text?.length ?? 0;
  const short = textLength < SHELL_MAX_TEXT;
  const signals = markup ?? (html !== undefined ? markupSignals(html, textLength) : undefined);
  if (signals?.botMarkup && short) {
    return { kind: 'bot_check', evidence: `challenge markup (${signals.botMarkup})`, strong: true };
  }
  for (const [kind, pattern] of WORDING) {
    const found = text?.match(pattern);
    if (found) return { kind, evidence: `"${found[0]}"`, strong: short || kind === 'bot_check' };
  }
  if (status === 401) return { kind: 'login', evidence: 'HTTP 401 (authentication required)', strong: true };
  if (signals?.notFree) {
    return { kind: 'subscription', evidence: 'JSON-LD "isAccessibleForFree": false', strong: short };
  }
  if (signals?.scripted && textLength < JS_SHELL_MAX_TEXT) {
    return { kind: 'js_shell', evidence: `${textLength} characters of text; the page is built by scripts`, strong: true };
  }
  return null;
}
