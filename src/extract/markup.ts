// What a page's markup says about it (challenge widgets, JSON-LD paywall flags, script-built shells): read where the HTML is decoded, for diagnosis to classify.
import { JS_SHELL_MAX_TEXT, SHELL_MAX_TEXT } from '../shell-limits.js';

/** Markup of challenge and captcha widgets. */
const BOT_MARKUP = /challenge-platform|cf-turnstile|g-recaptcha|h-captcha|class="?[^"]*captcha|__cf_chl_|id="?challenge-(form|running|stage)/i;
/** JSON-LD (schema.org) saying the article is not free; publishers mark paywalled text this way for search engines. */
const NOT_FREE = /"isAccessibleForFree"\s*:\s*(false|"false"|"False")/;
/** Markup of single-page apps that render everything with JavaScript. */
const APP_ROOT = /<div[^>]+id=["']?(root|app|__next|__nuxt|svelte)["']?[^>]*>\s*<\/div>|<app-root[^>]*>\s*<\/app-root>|<noscript>[^<]*(enable|turn on) javascript/i;
const SCRIPT_TAG = /<script\b/i;

/** What the markup says, for shell detection (diagnose/shells.ts): read once, where the HTML is decoded. */
export interface MarkupSignals {
  /** Challenge or captcha markup found (checked only when the text is short enough for a shell). */
  botMarkup?: string;
  /** JSON-LD says the article is not free. */
  notFree: boolean;
  /** An app root or scripts (checked only when the page is all but empty). */
  scripted: boolean;
}

/**
 * Reads the markup signals of a page whose normalized text is `textLength` characters long. Only pages short
 * enough to be a shell are searched for widgets and scripts: on a long page they could not make it one, and
 * the search would cost time on every page.
 */
export function markupSignals(html: string, textLength: number): MarkupSignals {
  return {
    botMarkup: textLength < SHELL_MAX_TEXT ? BOT_MARKUP.exec(html)?.[0] : undefined,
    notFree: NOT_FREE.test(html),
    scripted: textLength < JS_SHELL_MAX_TEXT && (APP_ROOT.test(html) || SCRIPT_TAG.test(html)),
  };
}
