// Deterministic generator of the golden diagnosis set: labelled `no_match` cases,
// each with the diagnosis code (design §5) it should get.
//
//   npx tsc -p tsconfig.json && node dist/golden/diagnosis/build.js
//
// Reads the real documents in golden/sources/ (copied from ../shared/realworld/ when
// missing), writes the documents this set adds (paywall/consent/bot-check shells,
// JavaScript app shells, soft-hyphenated copies of real pages, an image, a zip and a
// .docx) to golden/diagnosis/sources/, checks every fact each case rests on, and writes
//   golden/diagnosis/routes.json   route table; golden/server.ts serves it next to golden/routes.json
//   golden/diagnosis/claims.json   the claims as quotecheck reads them: [{id, claim, quote, url}]
//   golden/diagnosis/cases.jsonl   one line per case: {id, quote, url, expected, rule}
//
// Every case is mechanically `no_match` (design §3: the normalized quote is not a
// substring of the normalized source text, in any view) or its source is never served.
// The expected diagnosis comes from how the case was MADE (the kind of quote spec
// below), never from running quotecheck:
//   artifact   -> extraction_artifact   the passage as a reader sees it; the extracted text
//                                        differs only by extraction (glued/split words,
//                                        line-end hyphens, soft hyphens / zero-width
//                                        characters, page furniture inside the passage)
//   edits      -> near_miss             a 10-40 word span with 1-3 words changed, one word
//                                        added or dropped, or two adjacent words swapped
//   splice / tail / head -> partial     two spans joined by an ellipsis, or a span that runs
//                                        on into (or starts with) >= 8 invented words
//   fabricated / foreign -> not_found   no 4-word shingle of the quote occurs in the source
//   hidden     -> paywall               a sentence of the real article behind a shell
//   unreadable -> empty                 the document has no extractable text
//   unreachable -> fetch_failed         no usable response
//   opaque     -> unsupported           a content type that is not HTML, PDF or text
// golden/diagnosis/check.ts re-verifies the cases independently.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import { copyMissingSources, fail, findElement, findPdfSpan, findTextNode, fold, H1, H2, H3, type Host, HTML_UTF8 as HTML, htmlText, isPdf, lineBreaks, normalize, PDF, pdftotext, reEsc, U, wordRe, writeFile } from '../lib/builder.js';
import { SOURCES, type SrcKey } from '../sources.js';
import { isMain } from '../lib/main.js';
import { GOLDEN_PORT, goldenDir, projectRoot, type Route } from '../server.js';

export { normalize };

// ---------------------------------------------------------------------------
// Documents. `file` is relative to golden/ (the server's base folder).

interface RealDoc {
  file: string;
  pub: string;
}

/**
 * Real documents: golden/build.ts's sources (copied unchanged from ../shared/realworld/, origin and
 * license in its MANIFEST.json), under the name build.ts gives them or, for the PDFs, one that reads
 * well in this set's rules.
 */
const real = (k: SrcKey, pub: string = SOURCES[k].pub): RealDoc => ({ file: `sources/${SOURCES[k].file}`, pub });

const REAL = {
  bbc: real('bbc'),
  reuters: real('reuters'),
  politifact: real('politifact'),
  smithsonian: real('smithsonian'),
  aljazeera: real('aljazeera'),
  physorg: real('physorg'),
  sciencealert: real('sciencealert'),
  quanta: real('quanta'),
  spacereview: real('spacereview'),
  givewell: real('givewell'),
  verge: real('verge'),
  thehill: real('thehill'),
  cityam: real('cityam'),
  snopes: real('snopes'),
  panarmenian: real('panarmenian'),
  macrumors: real('macrumors'),
  realdeal: real('realdeal'),
  express: real('express'),
  s2orc: real('s2orc', 'the S2ORC paper (ACL 2020)'),
  tracemonkey: real('tracemonkey', 'the TraceMonkey paper (PLDI 2009)'),
  idp: real('idp', 'the Individual Differential Privacy preprint (IEEE TIFS)'),
  fedreg: real('fedreg', 'the Federal Register notice 2020-17221 (FAA, 737 MAX)'),
  scotus: real('scotus', 'the Supreme Court transcript (Knowles v. Mirzayance)'),
  googledoc: real('googledoc', 'a Google Docs export (the Zen of Python)'),
  scanRu: real('scanRu', 'a scanned Russian vehicle inspection card'),
  scanZh: real('scanZh', 'a scanned Chinese administrative penalty decision'),
  locked: real('locked', 'a LibreOffice document with a user password'),
} satisfies Record<string, RealDoc>;

type RealKey = keyof typeof REAL;

// ---------------------------------------------------------------------------
// Documents this set writes (golden/diagnosis/sources/). Shell markup imitates real
// walls but names no real site: brands are invented, vendor-specific ids and class
// names are avoided, so a classifier has to read the page, not recognize a vendor.

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

interface ShellArticle {
  /** the real article whose text the shell hides */
  article: RealKey;
  /** the article's headline, as on the real page */
  headline: string;
  /** paragraphs the shell shows, each a span of the real article */
  shown: string[];
}

interface Shell extends Partial<ShellArticle> {
  kind: 'paywall' | 'empty';
  /** what the shell is, for rules and the README */
  about: string;
  html: string;
}

interface Generated {
  file: string;
  pub: string;
  /** makes the bytes; `always` regenerates on every build (text), otherwise only when missing (binary) */
  make: () => Buffer;
  always: boolean;
  shell?: Shell;
  /** soft-hyphen / zero-width copy of a real page */
  copyOf?: RealKey;
}

function shellDoc(file: string, s: Shell): Generated {
  return { file: `diagnosis/sources/${file}`, pub: s.about, make: () => Buffer.from(s.html, 'utf8'), always: true, shell: s };
}

const jsonLd = (o: unknown): string => `<script type="application/ld+json">${JSON.stringify(o)}</script>`;

const SHELL_SUBSCRIBE = (a: ShellArticle): Shell => ({
  kind: 'paywall', ...a,
  about: 'a subscription wall: headline, the first paragraph, then "Subscribe to continue reading"; JSON-LD says isAccessibleForFree false',
  html: `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${esc(a.headline)} | Kestrel Review</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta property="og:type" content="article">
<meta property="og:title" content="${esc(a.headline)}">
<link rel="stylesheet" href="/assets/site.4e1f09.css">
${jsonLd({ '@context': 'https://schema.org', '@type': 'NewsArticle', headline: a.headline, datePublished: '2019-11-18T08:00:00Z', isAccessibleForFree: false, hasPart: { '@type': 'WebPageElement', isAccessibleForFree: false, cssSelector: '.article-body--locked' }, publisher: { '@type': 'Organization', name: 'Kestrel Review' } })}
</head>
<body class="article-page">
<header class="site-header">
  <a class="logo" href="/">Kestrel Review</a>
  <nav><a href="/space">Space</a> <a href="/policy">Policy</a> <a href="/opinion">Opinion</a></nav>
  <a class="btn btn-subscribe" href="/subscribe?ref=header">Subscribe</a>
</header>
<main>
<article class="story">
  <h1 class="story__headline">${esc(a.headline)}</h1>
  <p class="story__byline">By our space policy correspondent · November 18, 2019</p>
  <div class="article-body article-body--locked">
${(a.shown).map((p) => `    <p>${esc(p)}</p>`).join('\n')}
  </div>
  <div class="paywall" role="dialog" aria-labelledby="paywall-title">
    <h2 id="paywall-title">Subscribe to continue reading</h2>
    <p>You have read the opening of this article. Subscribe for unlimited access to our reporting and analysis.</p>
    <ul>
      <li>Unlimited articles on any device</li>
      <li>Subscriber-only newsletters and events</li>
      <li>Cancel anytime</li>
    </ul>
    <a class="btn btn-primary" href="/subscribe?ref=wall">Subscribe for $1 a week</a>
    <p class="paywall__login">Already a subscriber? <a href="/login?next=%2Fstory">Log in</a></p>
  </div>
</article>
</main>
<footer class="site-footer">© 2019 Kestrel Review. All rights reserved. <a href="/terms">Terms</a> · <a href="/privacy">Privacy</a></footer>
<script src="/assets/app.9c2b71.js" defer></script>
</body>
</html>
`,
});

const SHELL_SUBSCRIBERS_ONLY = (a: ShellArticle): Shell => ({
  kind: 'paywall', ...a,
  about: 'a subscribers-only article: headline and lead, then "This article is for subscribers only" with trial and sign-in links; JSON-LD isAccessibleForFree "False"',
  html: `<!doctype html>
<html lang="en-US">
<head>
<meta charset="UTF-8">
<title>${esc(a.headline)} – Meridian Courier</title>
<meta name="description" content="${esc(a.shown[0] ?? '')}">
${jsonLd({ '@context': 'http://schema.org', '@type': 'Article', mainEntityOfPage: '/2019/11/18/', headline: a.headline, isAccessibleForFree: 'False', author: { '@type': 'Person', name: 'Staff' } })}
</head>
<body>
<div id="page" class="site">
  <div class="top-bar"><a href="/">MERIDIAN COURIER</a> <a href="/newsletters">Newsletters</a> <a href="/account/signin">Sign in</a></div>
  <section class="post post-single">
    <h1 class="post-title">${esc(a.headline)}</h1>
    <div class="post-meta"><span class="post-date">Nov.18, 2019 09:45 AM</span></div>
    <div class="post-content">
${(a.shown).map((p) => `      <p>${esc(p)}</p>`).join('\n')}
      <div class="fade-out"></div>
    </div>
    <div class="premium-gate">
      <div class="premium-gate__badge">PREMIUM</div>
      <h3>This article is for subscribers only.</h3>
      <p>Get full access to our reporting, data and archives starting at $9.99 per month.</p>
      <a class="button" href="/subscribe?source=gate">Start your free trial</a>
      <p>Already a subscriber? <a href="/account/signin?redirect=%2F2019%2F11%2F18%2F">Sign in</a></p>
    </div>
  </section>
</div>
</body>
</html>
`,
});

const SHELL_SIGNIN = (a: ShellArticle): Shell => ({
  kind: 'paywall', ...a,
  about: 'a login wall: headline and first paragraph, then "Sign in to continue reading" with an email/password form',
  html: `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${esc(a.headline)} - Northvale Times</title>
<meta name="viewport" content="width=device-width">
</head>
<body>
<header><div class="masthead"><a href="/">The Northvale Times</a></div></header>
<main id="content">
  <h1>${esc(a.headline)}</h1>
  <div class="dek">Smart News · Science</div>
${(a.shown).map((p) => `  <p class="lede">${esc(p)}</p>`).join('\n')}
  <div class="regwall" id="regwall">
    <h3>Sign in to continue reading</h3>
    <p>Sign in with your Northvale Times account to keep reading this story.</p>
    <form action="/account/login" method="post">
      <label for="rw-email">Email address</label>
      <input id="rw-email" type="email" name="email" autocomplete="email">
      <label for="rw-password">Password</label>
      <input id="rw-password" type="password" name="password" autocomplete="current-password">
      <button type="submit">Sign in</button>
    </form>
    <p>New here? <a href="/account/register">Create a free account</a></p>
  </div>
</main>
</body>
</html>
`,
});

const SHELL_CONSENT = (a: ShellArticle): Shell => ({
  kind: 'paywall', ...a,
  about: 'a cookie/consent interstitial ("We value your privacy ... Reject all / Accept all") with no article text; the headline is only in <title>',
  html: `<!DOCTYPE html>
<html lang="en-GB">
<head>
<meta charset="utf-8">
<title>${esc(a.headline)}</title>
<meta name="robots" content="noindex">
<script src="/consent/loader.js"></script>
</head>
<body class="consent-open">
<div class="consent-overlay">
  <div class="consent-dialog" role="dialog" aria-modal="true" aria-labelledby="consent-title">
    <img class="consent-logo" src="/img/logo.svg" alt="">
    <h2 id="consent-title">We value your privacy</h2>
    <p>We and our partners store and/or access information on a device, such as cookies, and process personal data, such as unique identifiers and standard information sent by a device, for personalised ads and content, ad and content measurement, audience research and services development.</p>
    <p>With your permission we and our partners may use precise geolocation data and identification through device scanning. You may click to consent to our and our 843 partners' processing as described above. Alternatively you may access more detailed information and change your preferences before consenting or to refuse consenting.</p>
    <p>Please note that some processing of your personal data may not require your consent, but you have a right to object to such processing. Your preferences will apply to this website only.</p>
    <div class="consent-buttons">
      <button type="button" class="btn-secondary" data-action="reject">Reject all</button>
      <button type="button" class="btn-secondary" data-action="manage">Manage options</button>
      <button type="button" class="btn-primary" data-action="accept">Accept all</button>
    </div>
  </div>
</div>
</body>
</html>
`,
});

const SHELL_BEFORE_YOU_CONTINUE = (a: ShellArticle): Shell => ({
  kind: 'paywall', ...a,
  about: 'a "Before you continue" consent page (cookies and data; Reject all / Accept all / More options) with no article text',
  html: `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="initial-scale=1, maximum-scale=5, width=device-width">
<title>Before you continue</title>
</head>
<body>
<div class="consent-page">
  <h1>Before you continue to Lantern Post</h1>
  <p>We use cookies and data to</p>
  <ul>
    <li>Deliver and maintain services, like tracking outages and protecting against spam, fraud and abuse</li>
    <li>Measure audience engagement and site statistics to understand how our services are used and enhance the quality of those services</li>
  </ul>
  <p>If you choose to "Accept all", we will also use cookies and data to develop and improve new services, deliver and measure the effectiveness of ads, and show personalised content, depending on your settings.</p>
  <p>If you choose to "Reject all", we will not use cookies for these additional purposes.</p>
  <form action="/consent/save" method="POST">
    <input type="hidden" name="continue" value="/entertainment/2019/11/19/star-trek-4">
    <button type="submit" name="set_choice" value="reject">Reject all</button>
    <button type="submit" name="set_choice" value="accept">Accept all</button>
  </form>
  <a href="/consent/options?continue=%2Fentertainment">More options</a>
  <p class="small"><a href="/privacy">Privacy</a> · <a href="/terms">Terms</a></p>
</div>
</body>
</html>
`,
});

const SHELL_CHALLENGE = (a: ShellArticle, host: string): Shell => ({
  kind: 'paywall', ...a,
  about: 'a bot-check interstitial ("Just a moment...", "Checking if the site connection is secure", "Enable JavaScript and cookies to continue"), served 403 with cf-mitigated: challenge',
  html: `<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title><meta http-equiv="Content-Type" content="text/html; charset=UTF-8"><meta http-equiv="X-UA-Compatible" content="IE=Edge"><meta name="robots" content="noindex,nofollow"><meta name="viewport" content="width=device-width,initial-scale=1"><style>*{box-sizing:border-box;margin:0;padding:0}html{line-height:1.15;color:#313131}body{display:flex;flex-direction:column;height:100vh;min-height:100vh}.main-content{margin:8rem auto;max-width:60rem;padding-left:1.5rem}.h2{font-size:1.5rem;font-weight:500;line-height:2.25rem}</style><meta http-equiv="refresh" content="390"></head><body class="no-js"><div class="main-wrapper" role="main"><div class="main-content"><h1 class="zone-name-title h1">${host}</h1><h2 class="h2" id="challenge-running">Checking if the site connection is secure</h2><noscript><div id="challenge-error-title"><div class="h2"><span class="icon-wrapper"><div class="heading-icon warning-icon"></div></span><span id="challenge-error-text">Enable JavaScript and cookies to continue</span></div></div></noscript><div id="challenge-body-text" class="core-msg spacer">${host} needs to review the security of your connection before proceeding.</div><form id="challenge-form" action="/diag/science/nasa-commercial-moon-shot?__chk=Zm9vYmFy" method="POST" enctype="application/x-www-form-urlencoded"><input type="hidden" name="md" value="2kT1eKqW9vXn0c3Q"></form></div></div><script>(function(){window._chlOpt={cvId: '2',cZone: '${host}',cType: 'managed',cNounce: '48213',cRay: '7c1e2f3a9b8d4e21',cHash: '1b0a6a2f31d7c4e',cUPMDTk: "\\/diag\\/science\\/nasa-commercial-moon-shot?__chk_tk=5d1c",cFPWv: 'b',cTTimeMs: '1000',cMTimeMs: '0',cTplV: 5,cTplB: 'cf',cRq: {ru: 'aHR0cDovLzEyNy4wLjAuMg==',ra: 'TW96aWxsYS81LjA=',rm: 'R0VU',d: 'c2VjcmV0',t: 'MTcwMDAwMDAwMA==',m: 'bWVzc2FnZQ==',i1: 'MQ==',i2: 'Mg==',zh: 'aG9zdA==',uh: 'dXJs',hh: 'aGFzaA=='}};var cpo=document.createElement('script');cpo.src='/diag-challenge/orchestrate/chl_page/v1?ray=7c1e2f3a9b8d4e21';window._cf_chl_opt.cOgUHash=location.hash===''&&location.href.indexOf('#')!==-1?'#':location.hash;document.getElementsByTagName('head')[0].appendChild(cpo);}());</script><div class="footer" role="contentinfo"><div class="footer-inner"><div class="clearfix diagnostic-wrapper"><div class="ray-id">Ray ID: <code>7c1e2f3a9b8d4e21</code></div></div><div class="text-center" id="footer-text">Performance &amp; security by the site's edge network</div></div></div></body></html>
`,
});

const SHELL_VERIFY_HUMAN = (a: ShellArticle): Shell => ({
  kind: 'paywall', ...a,
  about: 'a "Verify you are human" captcha page served with status 200',
  html: `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Security check</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:sans-serif;background:#f4f4f4}.box{max-width:28rem;margin:6rem auto;background:#fff;padding:2rem;border-radius:6px}</style>
</head>
<body>
<div class="box">
  <h1>Verify you are human</h1>
  <p>We need to make sure you are not a robot before you can continue to this page.</p>
  <form method="post" action="/__verify">
    <div class="captcha-widget" data-sitekey="6Lc0sAAAAAAAAB0v3rifyHum4n">
      <label><input type="checkbox" name="human" value="1"> I'm not a robot</label>
    </div>
    <button type="submit">Continue</button>
  </form>
  <details>
    <summary>Why am I seeing this page?</summary>
    <p>Our systems have detected unusual traffic from your computer network. This page checks whether the requests were sent by you, and not by an automated program.</p>
  </details>
  <p class="ref">Reference: 5f1c-9a7e-11d2-42b0</p>
</div>
</body>
</html>
`,
});

const SHELL_401 = (a: ShellArticle): Shell => ({
  kind: 'paywall', ...a,
  about: 'a login page served with status 401 ("This content is available to registered readers")',
  html: `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Log in | Harbor Ledger</title></head>
<body>
<div class="auth-page">
  <h1>Log in to your account</h1>
  <p>This content is available to registered readers. Please log in to view it.</p>
  <form action="/auth/session" method="post">
    <p><label>Email <input type="email" name="email"></label></p>
    <p><label>Password <input type="password" name="password"></label></p>
    <p><label><input type="checkbox" name="remember"> Keep me logged in</label></p>
    <p><button type="submit">Log in</button></p>
  </form>
  <p><a href="/auth/forgot">Forgotten your password?</a> · <a href="/auth/register">Register</a></p>
</div>
</body>
</html>
`,
});

const SHELL_METERED = (a: ShellArticle): Shell => ({
  kind: 'paywall', ...a,
  about: 'a metered paywall: headline, standfirst and first paragraph, then "You have reached your limit of free articles"',
  html: `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${esc(a.headline)} | Fieldnote Science</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
${jsonLd({ '@context': 'https://schema.org', '@type': 'NewsArticle', headline: a.headline, isAccessibleForFree: false, hasPart: [{ '@type': 'WebPageElement', isAccessibleForFree: false, cssSelector: '.post__body' }] })}
</head>
<body class="single-post">
<div class="nav"><a href="/">Fieldnote Science</a> <a href="/biology">Biology</a> <a href="/physics">Physics</a> <a href="/search">Search</a></div>
<article class="post">
  <h1 class="post__title">${esc(a.headline)}</h1>
${a.shown.map((p, i) => `  <p class="${i === 0 ? 'post__excerpt' : 'post__lead'}">${esc(p)}</p>`).join('\n')}
  <div class="post__body" data-locked="true"></div>
  <aside class="meter-wall">
    <h2>You have reached your limit of free articles</h2>
    <p>You have read 3 of 3 free articles this month. Subscribe now for unlimited access to our science journalism.</p>
    <a class="meter-wall__cta" href="/subscribe?src=meter">See subscription options</a>
    <p>Already a subscriber? <a href="/signin?src=meter">Sign in</a></p>
  </aside>
</article>
</body>
</html>
`,
});

const SHELL_REGISTER = (a: ShellArticle): Shell => ({
  kind: 'paywall', ...a,
  about: 'a registration wall: headline and lead, then "Create a free account to keep reading"; JSON-LD isAccessibleForFree false',
  html: `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${esc(a.headline)} | Civic Ledger</title>
${jsonLd({ '@context': 'https://schema.org', '@type': 'ReportageNewsArticle', headline: a.headline, isAccessibleForFree: false })}
</head>
<body>
<div class="page">
  <div class="brand"><a href="/">Civic Ledger</a> <span class="tagline">Fact-checking the debate</span></div>
  <div class="article">
    <h1 class="article__title">${esc(a.headline)}</h1>
${a.shown.map((p) => `    <p>${esc(p)}</p>`).join('\n')}
  </div>
  <div class="register-wall">
    <h2>Create a free account to keep reading</h2>
    <p>Registration is free and takes less than a minute. You will also get our weekly newsletter.</p>
    <a class="btn" href="/register?method=email">Continue with email</a>
    <p>Already registered? <a href="/signin">Sign in</a></p>
  </div>
</div>
</body>
</html>
`,
});

const SHELL_PRESS_AND_HOLD = (a: ShellArticle): Shell => ({
  kind: 'paywall', ...a,
  about: 'a bot-check block page ("Access to this page has been denied", "Press & Hold to confirm you are a human") served with status 403 and no cf-mitigated header',
  html: `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>Access to this page has been denied</title>
</head>
<body>
<section class="block-page">
  <h1>Access to this page has been denied</h1>
  <p>We believe you are using automation tools to browse the website.</p>
  <p>This may happen as a result of the following:</p>
  <ul>
    <li>JavaScript is disabled or blocked by an extension (ad blockers for example)</li>
    <li>Your browser does not support cookies</li>
  </ul>
  <p>Please make sure that JavaScript and cookies are enabled on your browser and that you are not blocking them from loading.</p>
  <div id="hold-captcha" class="hold-captcha"><p>Press &amp; Hold to confirm you are a human (and not a bot).</p></div>
  <p class="ref">Reference ID: 0b3f6a52-0c8e-11ee-9e5f-6b4c5a4d7a31</p>
</section>
<script src="/challenge/captcha.js" async></script>
</body>
</html>
`,
});

const EMPTY = (about: string, html: string): Shell => ({ kind: 'empty', about, html });

const APP_REACT = EMPTY(
  'a React (create-react-app) shell: <div id="root"></div>, script bundles, <noscript>You need to enable JavaScript to run this app.</noscript>',
  `<!doctype html><html lang="en"><head><meta charset="utf-8"/><link rel="icon" href="/favicon.ico"/><meta name="viewport" content="width=device-width,initial-scale=1"/><meta name="theme-color" content="#000000"/><meta name="description" content="Latest news and analysis"/><link rel="apple-touch-icon" href="/logo192.png"/><link rel="manifest" href="/manifest.json"/><title>Newsroom</title><script defer="defer" src="/static/js/main.7d3c1f0a.js"></script><link href="/static/css/main.1b6e2d4c.css" rel="stylesheet"></head><body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div></body></html>
`,
);

const APP_NEXT = EMPTY(
  'a Next.js-style shell: an empty <div id="__next"></div>, a __NEXT_DATA__ JSON script without page props, and chunk scripts',
  `<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width"/><title>Business | Market Pulse</title><meta name="next-head-count" content="3"/><link rel="preload" href="/_next/static/css/4c1f2a0e9b7d3e55.css" as="style"/><link rel="stylesheet" href="/_next/static/css/4c1f2a0e9b7d3e55.css" data-n-g=""/><noscript data-n-css=""></noscript><script defer="" nomodule="" src="/_next/static/chunks/polyfills-c67a75d1b6f99dc8.js"></script><script src="/_next/static/chunks/webpack-8fa1640cc84ba8fe.js" defer=""></script><script src="/_next/static/chunks/framework-2c79e2a64abdb08b.js" defer=""></script><script src="/_next/static/chunks/main-0ecb9ccfcb6c9b24.js" defer=""></script><script src="/_next/static/chunks/pages/%5Bsection%5D/%5Bslug%5D-5a1d3b2e4c6f7a8b.js" defer=""></script><script src="/_next/static/kTz3H0sYV1pQ8wC2nA1x/_buildManifest.js" defer=""></script><script src="/_next/static/kTz3H0sYV1pQ8wC2nA1x/_ssgManifest.js" defer=""></script></head><body><div id="__next"></div><script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{}},"page":"/[section]/[slug]","query":{},"buildId":"kTz3H0sYV1pQ8wC2nA1x","isFallback":true,"gsp":true,"scriptLoader":[]}</script></body></html>
`,
);

const APP_ANGULAR = EMPTY(
  'an Angular shell: <app-root></app-root>, module scripts and a <noscript> notice',
  `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Investigations</title>
  <base href="/">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="icon" type="image/x-icon" href="favicon.ico">
<link rel="stylesheet" href="styles.5f3a1c9e2b7d4f60.css" media="print" onload="this.media='all'"><noscript><link rel="stylesheet" href="styles.5f3a1c9e2b7d4f60.css"></noscript></head>
<body>
  <app-root></app-root>
  <noscript>Please enable JavaScript to continue using this application.</noscript>
<script src="runtime.8f2e4b1a9c3d5e77.js" type="module"></script><script src="polyfills.3c1d9a0f2e4b6c88.js" type="module"></script><script src="main.a91e7c3b5d2f4e10.js" type="module"></script>
</body>
</html>
`,
);

const APP_VUE = EMPTY(
  'a Vue shell: <div id="app"></div> and "We\'re sorry but this site doesn\'t work properly without JavaScript enabled" in <noscript>',
  `<!DOCTYPE html>
<html lang="">
  <head>
    <meta charset="utf-8">
    <meta http-equiv="X-UA-Compatible" content="IE=edge">
    <meta name="viewport" content="width=device-width,initial-scale=1.0">
    <link rel="icon" href="/favicon.ico">
    <title>world-news</title>
    <script defer="defer" src="/js/chunk-vendors.1f6b4a2c.js"></script><script defer="defer" src="/js/app.9d3e7f21.js"></script><link href="/css/app.2b8c4d6e.css" rel="stylesheet">
  </head>
  <body>
    <noscript>
      <strong>We're sorry but world-news doesn't work properly without JavaScript enabled. Please enable it to continue.</strong>
    </noscript>
    <div id="app"></div>
  </body>
</html>
`,
);

const APP_GATSBY = EMPTY(
  'a Gatsby-style shell: an empty <div id="___gatsby"> focus wrapper and script bundles',
  `<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/><meta http-equiv="x-ua-compatible" content="ie=edge"/><meta name="viewport" content="width=device-width, initial-scale=1, shrink-to-fit=no"/><title>Science Desk</title><link as="script" rel="preload" href="/webpack-runtime-3b2f1e0d9c8a7b6c.js"/><link as="script" rel="preload" href="/framework-6a5b4c3d2e1f0a9b.js"/><link as="script" rel="preload" href="/app-0f1e2d3c4b5a6978.js"/></head><body><div id="___gatsby"><div style="outline:none" tabindex="-1" id="gatsby-focus-wrapper"></div><div id="gatsby-announcer" style="position:absolute;top:0;width:1px;height:1px;padding:0;overflow:hidden;clip:rect(0, 0, 0, 0);white-space:nowrap;border:0" aria-live="assertive" aria-atomic="true"></div></div><script id="gatsby-script-loader">/*<![CDATA[*/window.pagePath="/plague/";/*]]>*/</script><script src="/webpack-runtime-3b2f1e0d9c8a7b6c.js" async></script><script src="/framework-6a5b4c3d2e1f0a9b.js" async></script><script src="/app-0f1e2d3c4b5a6978.js" async></script></body></html>
`,
);

const APP_LOADING = EMPTY(
  'a single-page app that shows only a spinner and "Loading…" until its script runs',
  `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Loading…</title>
<style>.spinner{width:48px;height:48px;border:4px solid #ddd;border-top-color:#333;border-radius:50%;animation:spin 1s linear infinite}@keyframes spin{to{transform:rotate(360deg)}}</style>
<script type="module" src="/assets/index-4b7e2a91.js"></script>
</head>
<body>
<div id="app-shell"><div class="spinner" role="progressbar" aria-label="Loading"></div><p class="loading-text">Loading…</p></div>
</body>
</html>
`,
);

/**
 * A copy of a real page with soft hyphens (or zero-width spaces) put into words of one
 * paragraph, as CMS hyphenation filters do. `anchor` is the paragraph's text exactly as
 * it is in the page's markup; each word in `words` is written with "-" at the break points
 * ("res-pi-ra-to-ry") and gets `&shy;` (or U+200B) there inside the anchor only.
 */
function softCopy(file: string, from: RealKey, anchor: string, words: string[], mark: '&shy;' | '\u200b'): Generated {
  return {
    file: `diagnosis/sources/${file}`,
    pub: `a copy of ${REAL[from].pub}'s page with ${mark === '&shy;' ? 'soft hyphens' : 'zero-width spaces'} added`,
    always: true,
    copyOf: from,
    make: () => {
      const raw = fs.readFileSync(path.join(goldenDir(), REAL[from].file), 'utf8');
      const at = raw.indexOf(anchor);
      if (at < 0 || raw.indexOf(anchor, at + 1) >= 0) throw new Error(`${file}: anchor must occur exactly once in ${REAL[from].file}`);
      let para = anchor;
      for (const w of words) {
        const plain = w.replace(/-/g, '');
        const re = new RegExp(`\\b${plain}\\b`, 'g');
        if (!re.test(para)) throw new Error(`${file}: "${plain}" is not a word of the anchor`);
        para = para.replace(re, w.replace(/-/g, mark));
      }
      return Buffer.from(raw.slice(0, at) + para + raw.slice(at + anchor.length), 'utf8');
    },
  };
}

// --- binary documents (made once, when missing) -----------------------------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A minimal ZIP archive (deflate), with a fixed timestamp (2019-11-19 12:00) so it is reproducible. */
function makeZip(entries: { name: string; data: Buffer }[]): Buffer {
  const time = 12 << 11;
  const date = ((2019 - 1980) << 9) | (11 << 5) | 19;
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const data = zlib.deflateRawSync(e.data, { level: 9 });
    const crc = crc32(e.data);
    const lh = Buffer.alloc(30);
    lh.writeUInt32LE(0x04034b50, 0); lh.writeUInt16LE(20, 4); lh.writeUInt16LE(0, 6); lh.writeUInt16LE(8, 8);
    lh.writeUInt16LE(time, 10); lh.writeUInt16LE(date, 12); lh.writeUInt32LE(crc, 14);
    lh.writeUInt32LE(data.length, 18); lh.writeUInt32LE(e.data.length, 22); lh.writeUInt16LE(name.length, 26); lh.writeUInt16LE(0, 28);
    const ch = Buffer.alloc(46);
    ch.writeUInt32LE(0x02014b50, 0); ch.writeUInt16LE(20, 4); ch.writeUInt16LE(20, 6); ch.writeUInt16LE(0, 8); ch.writeUInt16LE(8, 10);
    ch.writeUInt16LE(time, 12); ch.writeUInt16LE(date, 14); ch.writeUInt32LE(crc, 16); ch.writeUInt32LE(data.length, 20);
    ch.writeUInt32LE(e.data.length, 24); ch.writeUInt16LE(name.length, 28); ch.writeUInt32LE(offset, 42);
    locals.push(lh, name, data);
    centrals.push(ch, name);
    offset += lh.length + name.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(entries.length, 8); end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12); end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

function makeDocx(paragraphs: string[]): Buffer {
  const x = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const ct = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
  const rels = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';
  const doc = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>' +
    paragraphs.map((p) => `<w:p><w:r><w:t xml:space="preserve">${x(p)}</w:t></w:r></w:p>`).join('') + '</w:body></w:document>';
  return makeZip([
    { name: '[Content_Types].xml', data: Buffer.from(ct) },
    { name: '_rels/.rels', data: Buffer.from(rels) },
    { name: 'word/document.xml', data: Buffer.from(doc) },
  ]);
}

function renderPng(src: RealKey, page: number, dpi: number): Buffer {
  const tmp = fs.mkdtempSync(path.join(projectRoot(), 'scratch', 'diag-png-'));
  try {
    execFileSync('pdftoppm', ['-png', '-r', String(dpi), '-f', String(page), '-l', String(page), '-singlefile', path.join(goldenDir(), REAL[src].file), path.join(tmp, 'page')]);
    return fs.readFileSync(path.join(tmp, 'page.png'));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------
// Hosts and URLs

/** a loopback port nothing listens on (the "discard" port): connection refused */
const REFUSED = 'http://127.0.0.1:9';

// The paragraphs shown by the shells come from the real articles; each is asserted.
const GEN = {
  'shy-smithsonian': softCopy('smithsonian-plague-soft-hyphens.html', 'smithsonian',
    'Pneumonic plague is the most deadly form of the disease. It is highly contagious, spreading from person to person via infected respiratory droplets.',
    ['Pneu-mo-nic', 'dead-ly', 'dis-ease', 'con-ta-gious', 'spread-ing', 'per-son', 'in-fect-ed', 'res-pi-ra-to-ry', 'drop-lets'], '&shy;'),
  'shy-physorg': softCopy('physorg-hibernation-soft-hyphens.html', 'physorg',
    'The study found the spacecraft mass could be reduced by a third by removing the crew quarters with a similar reduction in consumables, equivalent to several tons of saved mass.',
    ['space-craft', 're-duced', 're-mov-ing', 'quar-ters', 'sim-i-lar', 're-duc-tion', 'con-sum-ables', 'equiv-a-lent'], '&shy;'),
  'zw-givewell': softCopy('givewell-incubator-zero-width.html', 'givewell',
    'We believe that Evidence Action Beta is well-positioned to run this incubator because of its track record of scaling up cost-effective programs with high-quality monitoring.',
    ['Ev-i-dence', 'in-cu-ba-tor', 'pro-grams', 'mon-i-tor-ing'], '\u200b'),
  'pw-subscribe': shellDoc('paywall-subscribe.html', SHELL_SUBSCRIBE({
    article: 'spacereview', headline: 'Seeking a bigger role for a big rocket',
    shown: ['Earlier this month, NASA announced the newest milestone in the development of its long-awaited (and long-delayed) Space Launch System. At the Michoud Assembly Facility in New Orleans, workers completed installation of the four RS-25 engines into the rocket’s core stage. With those engines in place, the core stage will soon be ready for shipment to the nearby Stennis Space Center for testing, including a “Green Run” test around the middle of next year where those four engines will fire for eight minutes, just as they will on an SLS launch.'],
  })),
  'pw-subscribers-only': shellDoc('paywall-subscribers-only.html', SHELL_SUBSCRIBERS_ONLY({
    article: 'realdeal', headline: 'Major WeWork layoffs to begin today',
    shown: ['More than a third of WeWork’s 12,000 employees will likely receive notice this week that they no longer have a job. The layoffs are part of an effort by the struggling office-space company to cut costs, close ancillary businesses and narrow its offering to subletting office space.'],
  })),
  'pw-signin': shellDoc('login-wall.html', SHELL_SIGNIN({
    article: 'smithsonian', headline: 'Three Cases of Plague Diagnosed in China',
    shown: ['Three cases of plague have been diagnosed in China, sparking widespread fears about the spread of the disease, though officials say the risk of an outbreak is low.'],
  })),
  'pw-consent': shellDoc('consent-we-value-your-privacy.html', SHELL_CONSENT({
    article: 'bbc', headline: 'Julian Assange: Sweden drops rape investigation', shown: [],
  })),
  'pw-before-you-continue': shellDoc('consent-before-you-continue.html', SHELL_BEFORE_YOU_CONTINUE({
    article: 'verge', headline: 'Star Trek 4 eyes Fargo, Legion creator Noah Hawley to direct', shown: [],
  })),
  'pw-challenge': shellDoc('bot-check-just-a-moment.html', SHELL_CHALLENGE({
    article: 'aljazeera', headline: 'NASA’s commercial moon shot: Musk\'s and Bezos\'s firms to bid', shown: [],
  }, H2)),
  'pw-verify-human': shellDoc('captcha-verify-you-are-human.html', SHELL_VERIFY_HUMAN({
    article: 'physorg', headline: 'Hibernating astronauts would need smaller spacecraft', shown: [],
  })),
  'pw-401': shellDoc('login-401.html', SHELL_401({
    article: 'cityam', headline: 'Alibaba to raise up to $12.9bn in landmark Hong Kong listing', shown: [],
  })),
  'pw-metered': shellDoc('paywall-metered.html', SHELL_METERED({
    article: 'quanta', headline: 'Cells That ‘Taste’ Danger Set Off Immune Responses',
    shown: [
      'Cells with taste receptors sometimes develop inside the lungs of animals infected with influenza. By “tasting” the presence of certain pathogens, these cells may act as sentinels for the immune system.',
      'When the immunologist De’Broski Herbert at the University of Pennsylvania looked deep inside the lungs of mice infected with influenza, he thought he was seeing things.',
    ],
  })),
  'pw-register': shellDoc('register-wall.html', SHELL_REGISTER({
    article: 'politifact', headline: 'PolitiFact’s guide to understanding tariffs and international trade',
    shown: ['Breaking with decades of United States policy favoring free trade, President Donald Trump has pursued an agenda favoring tariffs as weapons in a widening trade war.'],
  })),
  'pw-press-and-hold': shellDoc('bot-check-press-and-hold.html', SHELL_PRESS_AND_HOLD({
    article: 'panarmenian', headline: 'Amnesty. More than 100 protesters killed in Iran unrest', shown: [],
  })),
  'app-react': shellDoc('app-react.html', APP_REACT),
  'app-next': shellDoc('app-next.html', APP_NEXT),
  'app-angular': shellDoc('app-angular.html', APP_ANGULAR),
  'app-vue': shellDoc('app-vue.html', APP_VUE),
  'app-gatsby': shellDoc('app-gatsby.html', APP_GATSBY),
  'app-loading': shellDoc('app-loading.html', APP_LOADING),
  'empty-body': { file: 'diagnosis/sources/empty-body.html', pub: 'a 200 response with an empty body (0 bytes)', always: true, make: () => Buffer.alloc(0) },
  png: {
    file: 'diagnosis/sources/tracemonkey-page1.png', pub: 'a PNG rendering (50 dpi, pdftoppm) of page 1 of the TraceMonkey paper', always: false,
    make: () => renderPng('tracemonkey', 1, 50),
  },
  zip: {
    file: 'diagnosis/sources/zen-of-python.zip', pub: 'a ZIP archive holding the Google Docs export of the Zen of Python (PDF)', always: false,
    make: () => makeZip([{ name: 'google-doc-document.pdf', data: fs.readFileSync(path.join(goldenDir(), REAL.googledoc.file)) }]),
  },
  docx: {
    file: 'diagnosis/sources/givewell-grant-summary.docx', pub: 'a Word document (.docx) holding two paragraphs of the GiveWell grant post', always: false,
    make: () => makeDocx([
      'In July 2018, we recommended a $5.1 million grant to Evidence Action Beta to create a program dedicated to developing potential GiveWell top charities by prototyping, testing, and scaling programs which have the potential to be highly impactful and cost-effective.',
      'This grant was made as part of GiveWell’s Incubation Grants program, which aims to support potential future GiveWell top charities and to help grow the pipeline of organizations we can consider for a recommendation. Funding for Incubation Grants comes from Good Ventures, a large foundation with which we work closely.',
    ]),
  },
} satisfies Record<string, Generated>;

type GenKey = keyof typeof GEN;
type DocKey = RealKey | GenKey;

const docOf = (k: DocKey): RealDoc & Partial<Generated> => (k in REAL ? REAL[k as RealKey] : GEN[k as GenKey]);

// ---------------------------------------------------------------------------
// Routes: every path under /diag/. Paths look like ordinary article URLs, so the
// URL never gives the answer away.

interface RouteSpec extends Omit<Route, 'file' | 'handler' | 'host' | 'body'> {
  host: Host;
  doc?: DocKey;
  body?: string;
  /** words for the rule text */
  note?: string;
}

const ROUTES: RouteSpec[] = [
  // real documents, served as themselves
  { host: H1, path: '/diag/papers/s2orc-acl2020.pdf', doc: 's2orc', headers: PDF },
  { host: H1, path: '/diag/papers/pldi09-tracemonkey.pdf', doc: 'tracemonkey', headers: PDF },
  { host: H3, path: '/diag/papers/individual-differential-privacy.pdf', doc: 'idp', headers: PDF },
  { host: H3, path: '/diag/records/2020-17221.pdf', doc: 'fedreg', headers: PDF },
  { host: H3, path: '/diag/records/07-1315-transcript.pdf', doc: 'scotus', headers: PDF },
  { host: H1, path: '/diag/world/europe-assange-sweden.html', doc: 'bbc', headers: HTML },
  { host: H1, path: '/diag/markets/oil-oversupply.html', doc: 'reuters', headers: HTML },
  { host: H1, path: '/diag/factcheck/tariffs-guide.html', doc: 'politifact', headers: HTML },
  { host: H2, path: '/diag/science/plague-china.html', doc: 'smithsonian', headers: HTML },
  { host: H2, path: '/diag/science/nasa-moon-landers.html', doc: 'aljazeera', headers: HTML },
  { host: H2, path: '/diag/science/hibernating-astronauts.html', doc: 'physorg', headers: HTML },
  { host: H2, path: '/diag/science/titan-map.html', doc: 'sciencealert', headers: HTML },
  { host: H3, path: '/diag/longform/tuft-cells.html', doc: 'quanta', headers: HTML },
  { host: H3, path: '/diag/longform/sls-bigger-role.html', doc: 'spacereview', headers: HTML },
  { host: H1, path: '/diag/blog/evidence-action-beta-grant.html', doc: 'givewell', headers: HTML },
  { host: H1, path: '/diag/film/star-trek-4-hawley.html', doc: 'verge', headers: HTML },
  { host: H1, path: '/diag/markets/alibaba-hong-kong.html', doc: 'cityam', headers: HTML },
  { host: H2, path: '/diag/tech/night-mode-iphone.html', doc: 'macrumors', headers: HTML },
  { host: H1, path: '/diag/realestate/wework-layoffs.html', doc: 'realdeal', headers: HTML },
  { host: H2, path: '/diag/science/third-plague-case.html', doc: 'express', headers: HTML },
  // copies of real pages with soft hyphens / zero-width spaces
  { host: H2, path: '/diag/smart-news/three-cases-plague-china.html', doc: 'shy-smithsonian', headers: HTML },
  { host: H2, path: '/diag/space/hibernation-smaller-spacecraft.html', doc: 'shy-physorg', headers: HTML },
  { host: H1, path: '/diag/blog/2018/10/evidence-action-beta.html', doc: 'zw-givewell', headers: HTML },
  // paywall, login, consent and bot-check shells
  { host: H3, path: '/diag/article/3834/1', doc: 'pw-subscribe', headers: HTML },
  { host: H1, path: '/diag/2019/11/18/thousands-of-wework-employees-to-be-laid-off', doc: 'pw-subscribers-only', headers: HTML },
  { host: H2, path: '/diag/smart-news/three-cases-plague-diagnosed-china-180973578/', doc: 'pw-signin', headers: HTML },
  { host: H1, path: '/diag/news/world-europe-50473792', doc: 'pw-consent', headers: HTML },
  { host: H1, path: '/diag/2019/11/19/noah-hawley-star-trek-4', doc: 'pw-before-you-continue', headers: HTML },
  { host: H2, path: '/diag/science/nasa-commercial-moon-shot', doc: 'pw-challenge', status: 403, headers: { 'content-type': 'text/html; charset=UTF-8', 'cf-mitigated': 'challenge', 'cache-control': 'private, max-age=0, no-store, no-cache, must-revalidate', 'x-frame-options': 'SAMEORIGIN', 'referrer-policy': 'same-origin' } },
  { host: H2, path: '/diag/news/2019-11-hibernating-astronauts-smaller-spacecraft.html', doc: 'pw-verify-human', headers: HTML },
  { host: H1, path: '/diag/alibaba-to-raise-up-to-12-9bn-in-landmark-hong-kong-listing/', doc: 'pw-401', status: 401, headers: { ...HTML, 'www-authenticate': 'Bearer realm="readers"' } },
  { host: H3, path: '/diag/tuft-cells-that-taste-danger-set-off-immune-responses-20191115/', doc: 'pw-metered', headers: HTML },
  { host: H1, path: '/diag/article/2019/nov/18/guide-understanding-tariffs/', doc: 'pw-register', headers: HTML },
  { host: H3, path: '/diag/eng/news/275221/', doc: 'pw-press-and-hold', status: 403, headers: HTML },
  // documents without extractable text
  { host: H2, path: '/diag/docs/inspection-card-2015.pdf', doc: 'scanRu', headers: PDF },
  { host: H2, path: '/diag/docs/penalty-decision-2019-13.pdf', doc: 'scanZh', headers: PDF },
  { host: H2, path: '/diag/docs/quarterly-report.pdf', doc: 'locked', headers: PDF },
  { host: H1, path: '/diag/news/2019/11/18/trade-war-tariffs', doc: 'app-react', headers: HTML },
  { host: H1, path: '/diag/business/2019/11/20/alibaba-listing-priced', doc: 'app-next', headers: HTML },
  { host: H3, path: '/diag/investigations/yovanovitch-net-worth', doc: 'app-angular', headers: HTML },
  { host: H3, path: '/diag/world/iran-protests-amnesty', doc: 'app-vue', headers: HTML },
  { host: H2, path: '/diag/plague/', doc: 'app-gatsby', headers: HTML },
  { host: H1, path: '/diag/story/omar-threat-guilty-plea', doc: 'app-loading', headers: HTML },
  { host: H1, path: '/diag/feeds/wework-tender-offer.html', doc: 'empty-body', headers: HTML },
  // failures
  { host: H1, path: '/diag/news/2019/11/19/iran-protesters-killed.html', status: 404, headers: HTML, body: '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Page not found</title></head><body><h1>Page not found</h1><p>Sorry, the page you requested could not be found. It may have been moved or deleted.</p><p><a href="/">Go to the home page</a></p></body></html>\n' },
  { host: H1, path: '/diag/realestate/wework-job-cuts.html', status: 410, headers: HTML, body: '<!DOCTYPE html>\n<html><head><title>410 Gone</title></head><body><h1>Gone</h1><p>The requested resource is no longer available on this server and there is no forwarding address.</p></body></html>\n' },
  { host: H3, path: '/diag/film/star-trek-fourth-film.html', status: 500, headers: HTML, body: '<!DOCTYPE html>\n<html><head><title>500 Internal Server Error</title></head><body><h1>Internal Server Error</h1><p>The server encountered an internal error and was unable to complete your request.</p></body></html>\n' },
  { host: H1, path: '/diag/politics/omar-threat-sentencing.html', status: 503, note: 'no Retry-After header', headers: HTML, body: '<!DOCTYPE html>\n<html><head><title>503 Service Unavailable</title></head><body><h1>Service Unavailable</h1><p>The server is temporarily unable to service your request due to maintenance downtime or capacity problems. Please try again later.</p></body></html>\n' },
  { host: H2, path: '/diag/story/alibaba-record-listing', redirect: { location: '/diag/story/alibaba-record-listing/', status: 301 } },
  { host: H2, path: '/diag/story/alibaba-record-listing/', redirect: { location: '/diag/story/alibaba-record-listing', status: 301 } },
  { host: H1, path: '/diag/go/yovanovitch-fact-check', redirect: { location: `http://${H2}:{port}/diag/fact-check/yovanovitch-net-worth`, status: 302 } },
  { host: H2, path: '/diag/fact-check/yovanovitch-net-worth', redirect: { location: '/diag/fact-check/marie-yovanovitch-net-worth/', status: 301 } },
  { host: H3, path: '/diag/science/titan-geology.html', status: 403, note: 'a plain nginx "403 Forbidden" page: no bot-check wording, no cf-mitigated header', headers: { 'content-type': 'text/html', server: 'nginx' }, body: '<html>\r\n<head><title>403 Forbidden</title></head>\r\n<body>\r\n<center><h1>403 Forbidden</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n' },
  { host: H1, path: '/diag/blog/incubation-grants.html', status: 429, note: 'no Retry-After header', headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'Too Many Requests\n' },
  { host: H2, path: '/diag/science/black-death-plague.html', status: 502, headers: { 'content-type': 'text/html', server: 'nginx' }, body: '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n' },
  { host: H3, path: '/diag/science/titan-dragonfly.html', redirect: { location: `${REFUSED}/diag/science/titan-dragonfly.html`, status: 301 } },
  // content types that are not HTML, PDF or text
  { host: H1, path: '/diag/media/tracemonkey-page1.png', doc: 'png', headers: { 'content-type': 'image/png' } },
  { host: H1, path: '/diag/downloads/zen-of-python.zip', doc: 'zip', headers: { 'content-type': 'application/zip' } },
  { host: H1, path: '/diag/downloads/grant-summary.docx', doc: 'docx', headers: { 'content-type': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' } },
];

// ---------------------------------------------------------------------------
// Cases

type ArtifactKind = 'split' | 'glued' | 'hyphen-dropped' | 'hyphen-kept' | 'soft-hyphen' | 'zero-width' | 'furniture';

type Edit =
  /** replace a word (or a few words) by another */
  | { swap: [string, string] }
  /** [after, word]: add `word` after the word `after` */
  | { insert: [string, string] }
  /** leave out one word from the middle */
  | { drop: string }
  /** "a b" -> "b a": two adjacent words swapped */
  | { transpose: [string, string] };

type QuoteSpec =
  /** extraction_artifact: the quote as a reader sees it; `near` is the extracted text (in the source) */
  | { artifact: string; near: string; kind: ArtifactKind; furniture?: string[]; why: string }
  /** near_miss: a 10-40 word span with small edits */
  | { span: string; edits: Edit[] }
  /** partial: two spans (>= 6 words each) from different places joined by `sep` */
  | { splice: [string, string]; sep: ' ... ' | ' […] ' | ' [...] ' | '… ' }
  /** partial: a span (>= 10 words) followed by >= 8 invented words */
  | { span: string; tail: string }
  /** partial: >= 8 invented words followed by a span (>= 10 words) */
  | { head: string; span: string }
  /** not_found: a made-up sentence (12-35 words); no 4-word shingle occurs in the source */
  | { fabricated: string }
  /** not_found: a real sentence of another document; no 4-word shingle occurs in the source */
  | { foreign: string; from: DocKey }
  /** paywall: a sentence of the real article that the served shell hides */
  | { hidden: string }
  /** empty: the served document has no extractable text; `from`: where the quote really is */
  | { unreadable: string; from?: DocKey; note?: string }
  /** fetch_failed: the URL never yields a usable response */
  | { unreachable: string; from: DocKey }
  /** unsupported: served with a content type that is not HTML, PDF or text */
  | { opaque: string; from: DocKey; note: string };

interface CaseSpec {
  url: string;
  claim: string;
  q: QuoteSpec;
}

const S2 = U(H1, '/diag/papers/s2orc-acl2020.pdf');
const TM = U(H1, '/diag/papers/pldi09-tracemonkey.pdf');
const IDP = U(H3, '/diag/papers/individual-differential-privacy.pdf');
const FR = U(H3, '/diag/records/2020-17221.pdf');
const SC = U(H3, '/diag/records/07-1315-transcript.pdf');

const CASES: CaseSpec[] = [
  // ===== extraction_artifact ===============================================
  // (a) words split or glued by pdftotext
  {
    url: S2, claim: 'The S2ORC paper found Science Parse better than GROBID for titles and authors.',
    q: { artifact: 'Our evaluations suggest Science Parse outperforms GROBID for title and author extraction.', near: 'Our evaluations suggest S CIENCE PARSE outperforms G ROBID for title and author extraction.', kind: 'split', why: 'the paper sets Science Parse and GROBID in small caps; pdftotext splits off the large initial capitals ("S CIENCE PARSE", "G ROBID")' },
  },
  {
    url: S2, claim: 'The S2ORC paper converts LaTeX source into XML.',
    q: { artifact: 'Inspired by Saier and Färber (2019), we first convert LaTeX source into XML documents and then extract structured information from the XML.', near: 'Inspired by Saier and Färber (2019), we first convert L AT E X source into XML documents and then extract structured information from the XML.', kind: 'split', why: 'the LaTeX logo is typeset from raised and lowered letters; pdftotext outputs it as "L AT E X"' },
  },
  {
    url: S2, claim: 'The S2ORC paper reports the vocabulary overlap of S2ORC-SciBERT and SciBERT.',
    q: { artifact: 'The Jaccard index between the S2ORC-SciBERT and SciBERT vocabularies is 0.536.', near: 'The Jaccard index between the S2ORC-S CI BERT and S CI BERT vocabularies is 0.536.', kind: 'split', why: 'SciBERT is set in small caps; pdftotext outputs "S CI BERT"' },
  },
  {
    url: TM, claim: 'The TraceMonkey paper says NANOJIT is separate from the VM.',
    q: { artifact: 'The trace compilation subsystem, NANOJIT, is separate from the VM and can be used for other applications.', near: 'The trace compilation subsystem, NANOJIT , is separate from the VM and can be used for other applications.', kind: 'split', why: 'NANOJIT is set in small caps; pdftotext puts a space between it and the following comma ("NANOJIT ,")' },
  },
  // (b) line-end hyphenation
  {
    url: TM, claim: 'The TraceMonkey abstract describes a mixed-mode execution approach.',
    q: { artifact: 'Our system uses a mixed-mode execution approach: the system starts running JavaScript in a fast-starting bytecode interpreter.', near: 'Our system uses a mixedmode execution approach: the system starts running JavaScript in a fast-starting bytecode interpreter.', kind: 'hyphen-dropped', why: 'the compound "mixed-mode" is broken after "mixed-" at a line end (pdftotext -bbox shows the word "mixed-"); pdftotext joins the lines and drops the hyphen' },
  },
  {
    url: TM, claim: 'The TraceMonkey paper describes its garbage collector.',
    q: { artifact: 'The garbage collector is an exact, non-generational, stop-the-world mark-and-sweep collector.', near: 'The garbage collector is an exact, non-generational, stop-theworld mark-and-sweep collector.', kind: 'hyphen-dropped', why: '"stop-the-world" is broken after "stop-the-" at a line end; pdftotext drops that hyphen ("stop-theworld")' },
  },
  {
    url: TM, claim: 'The TraceMonkey paper says transitions between interpreter and traces are costly.',
    q: { artifact: 'these steps have a non-negligible runtime cost, so minimizing the number of interpreter-to-trace and trace-to-interpreter transitions is essential for performance.', near: 'these steps have a nonnegligible runtime cost, so minimizing the number of interpreterto-trace and trace-to-interpreter transitions is essential for performance.', kind: 'hyphen-dropped', why: 'two compounds are broken at line ends ("non-|negligible", "interpreter-|to-trace"); pdftotext drops both hyphens' },
  },
  {
    url: S2, claim: 'The S2ORC paper says aggressively-cleaned body text still yields 16.5B tokens.',
    q: { artifact: 'aggressively-cleaned body text from the PDF-parsed subset of S2ORC still yields approximately 16.5B tokens.', near: 'aggressivelycleaned body text from the PDF-parsed subset of S2ORC still yields approximately 16.5B tokens.', kind: 'hyphen-dropped', why: '"aggressively-cleaned" is broken after "aggressively-" at a line end; pdftotext drops the hyphen' },
  },
  {
    url: FR, claim: 'The FAA notice requires more restrictive provisions in FAA-approved MELs.',
    q: { artifact: 'Finally, operators with an existing FAA-approved MEL would be required to incorporate more restrictive provisions to dispatch the airplane with certain inoperative equipment.', near: 'Finally, operators with an existing FAAapproved MEL would be required to incorporate more restrictive provisions to dispatch the airplane with certain inoperative equipment.', kind: 'hyphen-dropped', why: '"FAA-approved" is broken after "FAA-" at a column line end; pdftotext drops the hyphen here, while it keeps "FAA-approved" where the word is not broken' },
  },
  {
    url: IDP, claim: 'The preprint says a data-dependent noise may still permit accurate results.',
    q: { artifact: 'In these cases, the use of a noise calibrated to the global sensitivity may seriously and unjustifiedly damage data, but a data-dependent noise may still permit accurate results.', near: 'In these cases, the use of a noise calibrated to the global sensitivity may seriously and unjustiﬁedly damage data, but a datadependent noise may still permit accurate results.', kind: 'hyphen-dropped', why: '"data-dependent" is broken after "data-" at a line end and pdftotext drops the hyphen; "unjustiﬁedly" has the ﬁ ligature, which NFKC expands' },
  },
  {
    url: TM, claim: 'The TraceMonkey paper says researchers generate native code with better performance.',
    q: { artifact: 'Researchers have shown how to generate native code with nearly the same structure but better performance.', near: 'Researchers have shown how to gen- erate native code with nearly the same structure but better performance.', kind: 'hyphen-kept', why: '"gen-erate" is hyphenated at the bottom of the left column; pdftotext keeps "gen-" and puts "erate" after a blank line' },
  },
  {
    url: S2, claim: 'The S2ORC paper suggests using LaTeX tables for results extraction.',
    q: { artifact: 'There is an opportunity to use these tables for corpus-level results extraction and aggregation.', near: 'There is an opportunity to use these ta- bles for corpus-level results extraction and aggregation.', kind: 'hyphen-kept', why: '"ta-bles" is hyphenated at the bottom of a column; pdftotext keeps "ta-" and continues with "bles" after a blank line' },
  },
  // (c) soft hyphens and zero-width characters in HTML
  {
    url: U(H2, '/diag/tech/night-mode-iphone.html'), claim: 'MacRumors explained how night mode works on the iPhone 11.',
    q: { artifact: 'Night mode is an automatic setting which takes advantage of the new wide-angle camera that\'s in the iPhone 11 and 11 Pro models.', near: 'Night mode is an automatic setting which takes advantage of the new wide-angle camera that\'s in the \u200ciPhone 11\u200c and 11 Pro models.', kind: 'zero-width', why: 'the real page writes "\u200ciPhone 11\u200c" with zero-width non-joiners (U+200C) around the product name, invisible in a browser' },
  },
  {
    url: U(H2, '/diag/smart-news/three-cases-plague-china.html'), claim: 'Smithsonian described pneumonic plague as highly contagious.',
    q: { artifact: 'It is highly contagious, spreading from person to person via infected respiratory droplets.', near: 'It is highly con\u00adta\u00adgious, spread\u00ading from per\u00adson to per\u00adson via in\u00adfect\u00aded res\u00adpi\u00adra\u00adto\u00adry drop\u00adlets.', kind: 'soft-hyphen', why: 'the served page is a copy of the real Smithsonian page with &shy; inserted at the syllable breaks of the long words of its <p> #4 (as CMS hyphenation filters do); a browser shows no hyphens' },
  },
  {
    url: U(H2, '/diag/space/hibernation-smaller-spacecraft.html'), claim: 'Phys.org said hibernation could reduce spacecraft mass by a third.',
    q: { artifact: 'The study found the spacecraft mass could be reduced by a third by removing the crew quarters with a similar reduction in consumables', near: 'The study found the space\u00adcraft mass could be re\u00adduced by a third by re\u00admov\u00ading the crew quar\u00adters with a sim\u00adi\u00adlar re\u00adduc\u00adtion in con\u00adsum\u00adables', kind: 'soft-hyphen', why: 'the served page is a copy of the real Phys.org page with &shy; inserted at syllable breaks in one paragraph; a browser shows no hyphens' },
  },
  {
    url: U(H1, '/diag/blog/2018/10/evidence-action-beta.html'), claim: 'GiveWell said Evidence Action Beta is well-positioned to run the incubator.',
    q: { artifact: 'We believe that Evidence Action Beta is well-positioned to run this incubator because of its track record of scaling up cost-effective programs with high-quality monitoring.', near: 'We believe that Ev\u200bi\u200bdence Action Beta is well-positioned to run this in\u200bcu\u200bba\u200btor because of its track record of scaling up cost-effective pro\u200bgrams with high-quality mon\u200bi\u200btor\u200bing.', kind: 'zero-width', why: 'the served page is a copy of the real GiveWell post with zero-width spaces (U+200B) inserted at syllable breaks of four words of one paragraph; a browser shows nothing there (and may break the line)' },
  },
  // (d) page furniture inside the passage
  {
    url: IDP, claim: 'The preprint says the poor accuracy of DP mechanisms hampers deployment.',
    q: { artifact: 'Even though DP is appreciated for the strong privacy guarantees it offers, its practical deployment is hampered by the poor accuracy offered by differentially private mechanisms.', near: 'Even though DP is appreciated for the strong privacy guarantees it oﬀers, its practical deployment is hampered IEEE TRANSACTIONS ON INFORMATION FORENSICS AND SECURITY, VOL. X, NO. X, JULY 2016 by the poor accuracy oﬀered by diﬀerentially private mechanisms.', kind: 'furniture', furniture: ['IEEE TRANSACTIONS ON INFORMATION FORENSICS AND SECURITY, VOL. X, NO. X, JULY 2016'], why: 'the sentence runs over a page break and pdftotext puts the next page\'s running header inside it (ligatures ﬀ are expanded by NFKC)' },
  },
  {
    url: IDP, claim: 'The preprint states the axiom of transformation invariance.',
    q: { artifact: 'Suppose we have a privacy definition, a privacy mechanism M that satisfies this definition, and a randomized algorithm A whose input space is the output space of M', near: 'Suppose we have a privacy deﬁnition, a privacy mechanism M IEEE TRANSACTIONS ON INFORMATION FORENSICS AND SECURITY, VOL. X, NO. X, JULY 2016 that satisﬁes this deﬁnition, and a randomized algorithm A whose input space is the output space of M', kind: 'furniture', furniture: ['IEEE TRANSACTIONS ON INFORMATION FORENSICS AND SECURITY, VOL. X, NO. X, JULY 2016'], why: 'the definition runs over a page break and the running header of the next page sits inside it' },
  },
  {
    url: FR, claim: 'The FAA notice says the checklist gives information for use in flight.',
    q: { artifact: 'The checklist provides additional information for the flightcrew to use if the airplane is in flight.', near: 'The checklist provides additional VerDate Sep<11>2014 16:21 Aug 05, 2020 Jkt 250001 information for the flightcrew to use if the airplane is in flight.', kind: 'furniture', furniture: ['VerDate Sep<11>2014 16:21 Aug 05, 2020 Jkt 250001'], why: 'the Federal Register\'s printing slug ("VerDate ... Jkt 250001", at the foot of the page) comes between two lines of a column in pdftotext\'s reading order' },
  },
  {
    url: FR, claim: 'The FAA notice cites Boeing Special Attention Service Bulletin 737-27-1318.',
    q: { artifact: 'in accordance with, the Accomplishment Instructions of Boeing Special Attention Service Bulletin 737-27-1318, Revision 1, dated June 24, 2020.', near: 'in accordance with, the Accomplishment VerDate Sep<11>2014 16:21 Aug 05, 2020 Jkt 250001 Instructions of Boeing Special Attention Service Bulletin 737–27–1318, Revision 1, dated June 24, 2020.', kind: 'furniture', furniture: ['VerDate Sep<11>2014 16:21 Aug 05, 2020 Jkt 250001'], why: 'the printing slug sits between "Accomplishment" and "Instructions" in pdftotext\'s output (the quote\'s hyphens stand for the notice\'s en dashes, which normalization maps to "-")' },
  },
  {
    url: SC, claim: 'The transcript lists Steven E. Mercer as counsel for the Petitioner.',
    q: { artifact: 'STEVEN E. MERCER, ESQ., Deputy Attorney General, Los Angeles, Cal.; on behalf of the Petitioner.', near: 'STEVEN E. MERCER, ESQ., Deputy Attorney General, Los 17 18 19 Angeles, Cal.; on behalf of the Petitioner.', kind: 'furniture', furniture: ['17 18 19'], why: 'the transcript\'s margin line numbers 17, 18 and 19 come between "Los" and "Angeles" in pdftotext\'s output' },
  },
  {
    url: S2, claim: 'The S2ORC paper lists other tasks that leverage citation contexts.',
    q: { artifact: 'Other tasks that leverage citation contexts include classifying citation intent (Teufel et al., 2006; Jurgens et al., 2018; Cohan et al., 2019)', near: 'Other tasks that leverage citation contexts in4975 clude classifying citation intent (Teufel et al., 2006; Jurgens et al., 2018; Cohan et al., 2019)', kind: 'furniture', furniture: ['4975'], why: '"in-clude" is hyphenated at the end of page 7; pdftotext takes the page number 4975 for the rest of the word ("in4975"), drops the hyphen and continues with "clude" on the next page' },
  },
  {
    url: TM, claim: 'The TraceMonkey paper says JavaScript runs browser-based productivity applications.',
    q: { artifact: 'is the de facto standard for client-side web programming and is used for the application logic of browser-based productivity applications such as Google Mail, Google Docs and Zimbra Collaboration Suite.', near: 'is the de facto standard for client-side web programming Permission to make digital or hard copies of all or part of this work for personal or classroom use is granted without fee provided that copies are not made or distributed for profit or commercial advantage and that copies bear this notice and the full citation on the first page. To copy otherwise, to republish, to post on servers or to redistribute to lists, requires prior specific permission and/or a fee. PLDI’09, June 15–20, 2009, Dublin, Ireland. Copyright c 2009 ACM 978-1-60558-392-1/09/06. . . $5.00 and is used for the application logic of browser-based productivity applications such as Google Mail, Google Docs and Zimbra Collaboration Suite.', kind: 'furniture', furniture: ['Permission to make digital or hard copies of all or part of this work for personal or classroom use is granted without fee provided that copies are not made or distributed for profit or commercial advantage and that copies bear this notice and the full citation on the first page. To copy otherwise, to republish, to post on servers or to redistribute to lists, requires prior specific permission and/or a fee. PLDI’09, June 15–20, 2009, Dublin, Ireland. Copyright c 2009 ACM 978-1-60558-392-1/09/06. . . $5.00'], why: 'the ACM permission/copyright box at the foot of the left column of page 1 comes inside the sentence in pdftotext\'s reading order' },
  },

  // ===== near_miss ==========================================================
  {
    url: U(H1, '/diag/world/europe-assange-sweden.html'), claim: 'The BBC said Assange was jailed for 52 weeks.',
    q: { span: 'The 48-year-old Australian was evicted in April and sentenced to 50 weeks in jail for breaching his bail conditions.', edits: [{ swap: ['50', '52'] }] },
  },
  {
    url: U(H1, '/diag/markets/oil-oversupply.html'), claim: 'Reuters said Iran was unlikely to agree to cut output further.',
    q: { span: 'Oil fell after sources told Reuters that Russia is unlikely to agree to cut its oil output further at a meeting with fellow exporters next month.', edits: [{ swap: ['Russia', 'Iran'] }] },
  },
  {
    url: U(H1, '/diag/factcheck/tariffs-guide.html'), claim: 'PolitiFact said importers may absorb modest tariffs.',
    q: { span: 'When the tariff is small, an importer may elect to keep its prices stable rather than pass the tariff cost along to the consumer.', edits: [{ swap: ['small', 'modest'] }] },
  },
  {
    url: U(H2, '/diag/science/plague-china.html'), claim: 'Smithsonian said the third plague case was reported on November 18.',
    q: { span: 'On November 16, a third case of plague was reported in a 55-year-old man, also from Inner Mongolia.', edits: [{ swap: ['16', '18'] }] },
  },
  {
    url: U(H2, '/diag/science/nasa-moon-landers.html'), claim: 'Al Jazeera said nine US companies are eligible to bid.',
    q: { span: 'A year ago, NASA announced that nine US companies were eligible to bid for contracts to regularly launch spacecraft carrying instruments and experiments', edits: [{ swap: ['were', 'are'] }] },
  },
  {
    url: U(H2, '/diag/science/hibernating-astronauts.html'), claim: 'Phys.org described the hibernation pods on the Mars cruise.',
    q: { span: 'Their soft-shell pods would be darkened and their temperature greatly reduced to cool their occupants during their projected 180-day Earth-Mars cruise.', edits: [{ drop: 'greatly' }] },
  },
  {
    url: U(H2, '/diag/science/titan-map.html'), claim: 'ScienceAlert said Dragonfly will send a robotic drone to Titan.',
    q: { span: 'The map was created seven years before the US space agency is set to launch its Dragonfly mission to dispatch a multi-rotor drone to study Titan\'s chemistry and suitability for life.', edits: [{ insert: ['multi-rotor', 'robotic'] }] },
  },
  {
    url: U(H3, '/diag/longform/tuft-cells.html'), claim: 'Quanta said Howitt found 18 times more tuft cells than reported.',
    q: { span: 'when he inspected a small sample of intestinal tissue from the mice, Howitt found that they had 18 times the number of tuft cells previously reported.', edits: [{ transpose: ['previously', 'reported'] }] },
  },
  {
    url: U(H3, '/diag/longform/sls-bigger-role.html'), claim: 'The Space Review said Stafford cited Young’s testimony on mission success.',
    q: { span: 'He then referred to Cooke’s earlier testimony that concluded there was only a 50 percent chance of mission success with the current multiple-launch approach.', edits: [{ swap: ['Cooke’s', 'Young’s'] }] },
  },
  {
    url: U(H1, '/diag/markets/alibaba-hong-kong.html'), claim: 'City A.M. reported Alibaba’s New York closing price on Monday.',
    q: { span: 'Alibaba shares closed in New York on Tuesday at $185.25, up 0.35%.', edits: [{ swap: ['Tuesday', 'Monday'] }] },
  },
  {
    url: TM, claim: 'The TraceMonkey abstract says traditional compilers emit general code.',
    q: { span: 'Since no concrete type information is available, traditional compilers need to emit generic code that can handle all possible type combinations at runtime.', edits: [{ swap: ['generic', 'general'] }] },
  },
  {
    url: FR, claim: 'The FAA notice dates the Lion Air accident to October 28, 2018.',
    q: { span: 'On October 29, 2018, a Boeing Model 737–8 airplane operated by Lion Air (Lion Air Flight 610) was involved in an accident', edits: [{ swap: ['29', '28'] }] },
  },
  {
    url: S2, claim: 'The S2ORC paper reports its publisher-provided abstract coverage.',
    q: { span: 'The resulting corpus consists of 81.1M papers. Our publisher-provided abstract coverage is 90.4%, or 73.4M papers.', edits: [{ swap: ['90.4%', '94.0%'] }] },
  },

  // ===== partial ===========================================================
  {
    url: U(H1, '/diag/world/europe-assange-sweden.html'), claim: 'The BBC linked the Swedish decision to the US charges.',
    q: { splice: ['Prosecutors told reporters the decision to drop the inquiry had been taken after interviews with seven witnesses in the case.', 'Now Assange faces 18 criminal charges in the US, including conspiring to hack government computers'], sep: ' ... ' },
  },
  {
    url: U(H3, '/diag/longform/tuft-cells.html'), claim: 'Quanta said tuft cells act as sentinels.',
    q: { splice: ['Scientists are only just beginning to understand them', 'tuft cells might act as sentinels, using their abundant chemosensory receptors to sniff out the presence of these intruders.'], sep: ' […] ' },
  },
  {
    url: U(H3, '/diag/longform/sls-bigger-role.html'), claim: 'The Space Review said fewer launches mean a higher chance of success.',
    q: { splice: ['NASA is relying too much on those commercial options in its current exploration architecture', 'the higher the probability of mission success'], sep: '… ' },
  },
  {
    url: TM, claim: 'The TraceMonkey paper explains guards and object shapes.',
    q: { splice: ['Every compiled trace contains all the guards (checks) required to validate the speculation.', 'Thus, the guard is a simple equality check on the object shape.'], sep: ' ... ' },
  },
  {
    url: FR, claim: 'The FAA notice says it may change the NPRM because of comments.',
    q: { splice: ['The FAA is proposing this AD to address the unsafe condition on these products.', 'The FAA may change this NPRM because of those comments.'], sep: ' [...] ' },
  },
  {
    url: U(H1, '/diag/markets/oil-oversupply.html'), claim: 'Reuters said carmakers led European stocks higher.',
    q: { span: 'Hopes of a trade truce earlier in the day drove European stocks to a four-year high', tail: ', led by carmakers and luxury goods groups that depend heavily on Chinese demand.' },
  },
  {
    url: U(H2, '/diag/science/plague-china.html'), claim: 'Smithsonian said China punished the doctors who warned about SARS.',
    q: { span: 'In 2003, authorities there were accused of concealing the true extent of the country’s SARS outbreak', tail: ' and of punishing the doctors who first tried to warn the public about it.' },
  },
  {
    url: U(H1, '/diag/film/star-trek-4-hawley.html'), claim: 'The Verge said Hawley’s debut premiered in Toronto.',
    q: { span: 'Lucy in the Sky, his debut, is a slightly more grounded story about a NASA astronaut dealing with life on Earth', tail: ' after a long mission, and it premiered at the Toronto International Film Festival in September.' },
  },
  {
    url: U(H1, '/diag/realestate/wework-layoffs.html'), claim: 'The Real Deal said new management shared layoff figures with staff.',
    q: { head: 'According to internal figures shared with staff on Sunday night by the new management team, ', span: 'more than 4,000 people are expected to receive notice in the coming weeks, according to multiple people familiar with the matter.' },
  },
  {
    url: U(H2, '/diag/science/hibernating-astronauts.html'), claim: 'Phys.org said the mission would need autonomous operations because of communication delays.',
    q: { head: 'Because no ground controller could respond in time over such vast distances, ', span: 'the mission would have to be designed for largely autonomous operations, with optimum use of artificial intelligence' },
  },
  {
    url: S2, claim: 'The S2ORC paper says all of S2ORC is downloadable without registration.',
    q: { span: 'S2ORC consists of 81.1M papers, 380.5M resolved citation links, and structured full text from 8.1M open-access PDFs', tail: ', and every one of them can be downloaded freely without registration or a license agreement.' },
  },
  {
    url: IDP, claim: 'The preprint says every national statistical office has adopted differential privacy.',
    q: { span: 'Diﬀerential privacy is a popular privacy model within the research community because of the strong privacy guarantee it oﬀers', tail: ', and it has since been adopted by nearly every national statistical office in Europe.' },
  },

  // ===== not_found =========================================================
  {
    url: U(H1, '/diag/world/europe-assange-sweden.html'), claim: 'The BBC said Sweden would apologise to Assange.',
    q: { fabricated: 'Swedish officials confirmed that Assange would be offered a formal apology and compensation for the years he spent inside the embassy.' },
  },
  {
    url: U(H1, '/diag/markets/oil-oversupply.html'), claim: 'Reuters quoted Frankfurt analysts on metal prices.',
    q: { fabricated: 'Analysts at several Frankfurt banks expect copper and aluminium prices to climb sharply once the winter heating season begins in earnest.' },
  },
  {
    url: U(H1, '/diag/factcheck/tariffs-guide.html'), claim: 'PolitiFact reported a proposal to refund tariffs to households.',
    q: { fabricated: 'A bipartisan group of senators has proposed refunding every tariff collected since 2018 directly to households earning under fifty thousand dollars.' },
  },
  {
    url: U(H3, '/diag/longform/tuft-cells.html'), claim: 'Quanta said tuft cells were first seen in the retina.',
    q: { fabricated: 'Tuft cells were first photographed in the human retina by a Danish ophthalmologist who mistook them for damaged nerve endings.' },
  },
  {
    url: U(H3, '/diag/longform/sls-bigger-role.html'), claim: 'The Space Review said European agencies offered to fund an SLS core stage.',
    q: { fabricated: 'Several European space agencies have quietly offered to pay for a fourth core stage in exchange for guaranteed astronaut seats on later flights.' },
  },
  {
    url: U(H1, '/diag/blog/evidence-action-beta-grant.html'), claim: 'GiveWell said the incubator would focus on malaria vaccines.',
    q: { fabricated: 'The incubator will focus exclusively on malaria vaccines and expects to announce its first new charity before the end of 2019.' },
  },
  {
    url: U(H2, '/diag/science/nasa-moon-landers.html'), claim: 'Al Jazeera said the claim was conjured out of thin air.',
    q: { foreign: 'In other words, this claim appears to have been conjured out of thin air.', from: 'snopes' },
  },
  {
    url: U(H2, '/diag/science/third-plague-case.html'), claim: 'The Express said officials were restricting information about the cases.',
    q: { foreign: 'Though the government has attempted to reassure the Chinese public in the wake of the recent diagnoses, many have voiced concerns that officials are minimizing or even restricting information about the cases.', from: 'smithsonian' },
  },
  {
    url: TM, claim: 'The TraceMonkey paper reports battery savings on phones.',
    q: { fabricated: 'TraceMonkey was later ported to mobile phones, where it reduced battery consumption by nearly forty percent on common web workloads.' },
  },
  {
    url: FR, claim: 'The FAA notice requires a third sensor on every airplane.',
    q: { fabricated: 'Every airline must also fit a third independent vane to each jet before the end of next year, the agency said.' },
  },
  {
    url: S2, claim: 'The S2ORC paper says statically typed compilers rely on type information.',
    q: { foreign: 'Compilers for statically typed languages rely on type information to generate efficient machine code.', from: 'tracemonkey' },
  },
  {
    url: IDP, claim: 'The preprint reports experiments on hospital discharge records.',
    q: { fabricated: 'Our experiments on hospital discharge records show that the proposed approach halves the error of every standard mechanism we tried.' },
  },

  // ===== paywall ===========================================================
  {
    url: U(H3, '/diag/article/3834/1'), claim: 'The Space Review said Rep. Babin argued heavy-lift vehicles are optimal.',
    q: { hidden: 'Every space exploration study conducted over the last 40 years indicated that the most optimal architectures for exploring the Moon and Mars require a heavy-lift launch vehicle similar to SLS' },
  },
  {
    url: U(H1, '/diag/2019/11/18/thousands-of-wework-employees-to-be-laid-off'), claim: 'The Real Deal said WeWork’s valuation was slashed to $8 billion.',
    q: { hidden: 'WeWork employees have waited weeks to hear notice of the layoffs, since the company abandoned plans for an IPO and had its valuation slashed from $47 billion to $8 billion.' },
  },
  {
    url: U(H2, '/diag/smart-news/three-cases-plague-diagnosed-china-180973578/'), claim: 'Smithsonian said there were 3,248 plague cases worldwide between 2010 and 2015.',
    q: { hidden: 'According to WHO, there were 3,248 cases reported worldwide between 2010 and 2015, with 584 deaths.' },
  },
  {
    url: U(H1, '/diag/news/world-europe-50473792'), claim: 'The BBC said prosecutors interviewed seven witnesses.',
    q: { hidden: 'Prosecutors told reporters the decision to drop the inquiry had been taken after interviews with seven witnesses in the case.' },
  },
  {
    url: U(H1, '/diag/2019/11/19/noah-hawley-star-trek-4'), claim: 'The Verge said Hawley’s debut flopped at the box office.',
    q: { hidden: 'That movie was poorly-recieved by critics — and flopped at the box office, making $320,000 on a budget of $27 million, according to Box Office Mojo.' },
  },
  {
    url: U(H2, '/diag/science/nasa-commercial-moon-shot'), claim: 'Al Jazeera said NASA expanded the pool of eligible bidders to 14.',
    q: { hidden: 'A few of the new additions - Blue Origin, Sierra Nevada Corporation and SpaceX - are notable for not having been on last year’s original list.' },
  },
  {
    url: U(H2, '/diag/news/2019-11-hibernating-astronauts-smaller-spacecraft.html'), claim: 'Phys.org said hibernation gives enhanced radiation protection.',
    q: { hidden: 'And existing research into hibernation shows it gives enhanced radiation protection in its own right.' },
  },
  {
    url: U(H1, '/diag/alibaba-to-raise-up-to-12-9bn-in-landmark-hong-kong-listing/'), claim: 'City A.M. said small investors welcomed the Alibaba deal.',
    q: { hidden: 'Small investors in Hong Kong have welcomed the deal, subscribing for so many shares they will be allotted the maximum 10 per cent of the total they can get, Reuters reported.' },
  },
  {
    url: U(H3, '/diag/tuft-cells-that-taste-danger-set-off-immune-responses-20191115/'), claim: 'Quanta said tuft cells had been known since the mid-1950s.',
    q: { hidden: 'Tuft cells had been known to science since the mid-1950s, when microscopy studies found them in the lining of practically every organ in the body' },
  },
  {
    url: U(H1, '/diag/article/2019/nov/18/guide-understanding-tariffs/'), claim: 'PolitiFact said firms pass on high tariffs to consumers.',
    q: { hidden: 'But when tariffs are high enough, firms will inevitably pass on some or all of the increase to U.S. consumers, said Monica de Bolle, a senior fellow at the Peterson Institute for International Economics.' },
  },
  {
    url: U(H3, '/diag/eng/news/275221/'), claim: 'PanARMENIAN reported that snipers shot into crowds.',
    q: { hidden: 'According to eyewitness accounts corroborated by video footage, snipers have also shot into crowds of people from rooftops and, in one case, a helicopter.' },
  },

  // ===== empty =============================================================
  {
    url: U(H2, '/diag/docs/inspection-card-2015.pdf'), claim: 'The document is a certificate of periodic technical inspection.',
    q: { unreadable: 'Диагностическая карта Certificate of periodic technical inspection', note: 'the title line as it reads on the scan' },
  },
  {
    url: U(H2, '/diag/docs/penalty-decision-2019-13.pdf'), claim: 'The customs decision describes the company’s violations.',
    q: { unreadable: '经我关调查，当事人有以下违法行为', note: 'a line of page 1 as it reads on the scan' },
  },
  {
    url: U(H2, '/diag/docs/quarterly-report.pdf'), claim: 'The report is confidential.',
    q: { unreadable: 'This document is confidential and protected with a password.', note: 'the content cannot be read without the password; the quote stands for any text' },
  },
  {
    url: U(H1, '/diag/news/2019/11/18/trade-war-tariffs'), claim: 'The article said consumers are the primary victims of tariffs.',
    q: { unreadable: 'Most mainstream economists, however, argue that consumers are the primary victims of tariffs.', from: 'politifact' },
  },
  {
    url: U(H1, '/diag/business/2019/11/20/alibaba-listing-priced'), claim: 'The article said Alibaba priced its shares at a discount.',
    q: { unreadable: 'Alibaba is set to raise up to $12.9bn (£10bn) from its record-breaking second listing in Hong Kong, pricing its shares at a 2.8 per cent discount to their New York close.', from: 'cityam' },
  },
  {
    url: U(H3, '/diag/investigations/yovanovitch-net-worth'), claim: 'The article called the net-worth claim wholly unsubstantiated.',
    q: { unreadable: 'In sum, the claim that Yovanovitch has a net worth of $17 million (or $12 million or $6 million or $3 million) is wholly unsubstantiated.', from: 'snopes' },
  },
  {
    url: U(H3, '/diag/world/iran-protests-amnesty'), claim: 'The article said at least 106 protesters were killed.',
    q: { unreadable: 'At least 106 protesters in 21 cities have been killed, according to credible reports received by Amnesty.', from: 'panarmenian' },
  },
  {
    url: U(H2, '/diag/plague/'), claim: 'The article said pneumonic plague is the most virulent variant.',
    q: { unreadable: 'Of the three plague variants, pneumonic is the most virulent and is fatal if left untreated.', from: 'express' },
  },
  {
    url: U(H1, '/diag/story/omar-threat-guilty-plea'), claim: 'The article said Carlineo faces up to 10 years in prison.',
    q: { unreadable: 'Patrick Carlineo Jr., 55, could face up to 10 years in prison and have to pay $250,000 after pleading guilty to threatening to assault and murder a U.S. official and being a felon in possession of firearms.', from: 'thehill' },
  },
  {
    url: U(H1, '/diag/feeds/wework-tender-offer.html'), claim: 'The article said a SoftBank tender offer was delayed.',
    q: { unreadable: 'Many employees and shareholders with stock options are also waiting to hear when a $3 billion tender offer by SoftBank will be launched, after being delayed for almost two weeks.', from: 'realdeal' },
  },

  // ===== fetch_failed ======================================================
  {
    url: U(H1, '/diag/news/2019/11/19/iran-protesters-killed.html'), claim: 'Amnesty said the death toll may be much higher.',
    q: { unreachable: 'The organization believes that the real death toll may be much higher, with some reports suggesting as many as 200 have been killed.', from: 'panarmenian' },
  },
  {
    url: U(H1, '/diag/realestate/wework-job-cuts.html'), claim: 'WeWork’s chairman announced job eliminations.',
    q: { unreachable: 'A person familiar with the matter told TRD that employees in the legal and human resources departments will begin receiving notice Monday.', from: 'realdeal' },
  },
  {
    url: U(H3, '/diag/film/star-trek-fourth-film.html'), claim: 'The Verge said no release date was announced.',
    q: { unreachable: 'No release date for the fourth Star Trek film has yet been announced.', from: 'verge' },
  },
  {
    url: U(H1, '/diag/politics/omar-threat-sentencing.html'), claim: 'Omar asked for compassion in sentencing.',
    q: { unreachable: 'Omar asked for compassion during Carlineo\'s sentencing in a letter posted on Twitter Tuesday, saying she did not think a severe sentence would be helpful.', from: 'thehill' },
  },
  {
    url: U(H2, '/diag/story/alibaba-record-listing'), claim: 'Alibaba’s listing ceremony is due next Tuesday.',
    q: { unreachable: 'Alibaba’s listing ceremony is due to be held at the Hong Kong Stock Exchange next Tuesday.', from: 'cityam' },
  },
  {
    url: U(H1, '/diag/go/yovanovitch-fact-check'), claim: 'Snopes said the net-worth claim came from no credible outlet.',
    q: { unreachable: 'One possible explanation for the discrepancies in this claim is that there is no credible evidence for the estimates.', from: 'snopes' },
  },
  {
    url: U(H3, '/diag/science/titan-geology.html'), claim: 'ScienceAlert said Titan has stable surface liquids.',
    q: { unreachable: 'Titan is the only Solar System object other than Earth boasting stable liquids on the surface', from: 'sciencealert' },
  },
  {
    url: `${REFUSED}/diag/science/plague-quarantine.html`, claim: 'Smithsonian said 28 contacts were quarantined.',
    q: { unreachable: 'The Associated Press reports that 28 people who came into contact with the patient were quarantined', from: 'smithsonian' },
  },
  {
    url: U(H1, '/diag/blog/incubation-grants.html'), claim: 'GiveWell registers forecasts for all Incubation Grants.',
    q: { unreachable: 'We register forecasts for all Incubation Grants we make.', from: 'givewell' },
  },
  {
    url: U(H2, '/diag/science/black-death-plague.html'), claim: 'The Express said the Black Death killed up to 60 percent of Europeans.',
    q: { unreachable: 'In the 14th century the Black Death spread across the Mediterranean and Europe, killing up to 60 percent of Europe’s total population.', from: 'express' },
  },
  {
    url: U(H3, '/diag/science/titan-dragonfly.html'), claim: 'ScienceAlert said Dragonfly reaches Titan in 2034.',
    q: { unreachable: 'Dragonfly is scheduled to reach Titan in 2034.', from: 'sciencealert' },
  },

  // ===== unsupported =======================================================
  {
    url: U(H1, '/diag/media/tracemonkey-page1.png'), claim: 'The TraceMonkey abstract reports speedups of 10x.',
    q: { opaque: 'We have implemented a dynamic compiler for JavaScript based on our technique and we have measured speedups of 10x and more for certain benchmark programs.', from: 'tracemonkey', note: 'the sentence is on the image, as pixels' },
  },
  {
    url: U(H1, '/diag/downloads/zen-of-python.zip'), claim: 'The Zen of Python says errors should never pass silently.',
    q: { opaque: 'Errors should never pass silently. Unless explicitly silenced.', from: 'googledoc', note: 'the sentence is in the PDF inside the archive' },
  },
  {
    url: U(H1, '/diag/downloads/grant-summary.docx'), claim: 'GiveWell recommended a $5.1 million grant.',
    q: { opaque: 'In July 2018, we recommended a $5.1 million grant to Evidence Action Beta to create a program dedicated to developing potential GiveWell top charities', from: 'givewell', note: 'the sentence is in word/document.xml inside its ZIP container' },
  },
];

// ---------------------------------------------------------------------------
// Word helpers (normalization itself, design §3, is in lib/builder.ts)

/** What is left when whitespace, hyphens, soft hyphens and zero-width characters are ignored. */
const squash = (s: string): string => normalize(s).replace(/[\s\-\u00AD\u200B-\u200D\u2060\uFEFF]/g, '');

/** Normalized words (letters and digits). */
const tokens = (s: string): string[] => normalize(s).match(/[\p{L}\p{N}]+/gu) ?? [];

const shingles = (toks: string[], n: number): string[] => {
  const out: string[] = [];
  for (let i = 0; i + n <= toks.length; i++) out.push(toks.slice(i, i + n).join(' '));
  return out;
};

const wordCount = (s: string): number => s.trim().split(/\s+/).filter(Boolean).length;

/** Damerau (optimal string alignment) distance over word arrays. */
function wordDistance(a: string[], b: string[]): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

// ---------------------------------------------------------------------------
// Source text (the builders' implementation, lib/builder.ts; check.ts has an independent one)

interface View {
  kind: 'pdf' | 'html' | 'none';
  /** normalized texts that count for the label: pdftotext output, or the full view + Readability views */
  texts: string[];
  /** pdftotext output with steps 1-3 applied (for locating and page numbers) */
  pdfRaw?: string;
  pdfError?: string;
  doc?: Document;
  raw?: string;
  /** normalized full view of an HTML page */
  full?: string;
}

const viewCache = new Map<DocKey, View>();
function viewOf(key: DocKey): View {
  const hit = viewCache.get(key);
  if (hit) return hit;
  const bytes = fs.readFileSync(path.join(goldenDir(), docOf(key).file));
  let v: View;
  if (isPdf(bytes)) {
    const out = pdftotext(path.join(goldenDir(), docOf(key).file));
    v = out.text === null
      ? { kind: 'pdf', texts: [''], pdfRaw: '', pdfError: out.error }
      : { kind: 'pdf', texts: [normalize(out.text)], pdfRaw: fold(out.text) };
  } else if (/\.html$/.test(docOf(key).file)) {
    const raw = new TextDecoder('utf-8', { fatal: true }).decode(bytes); // throws on invalid UTF-8: every page here is UTF-8
    const { doc, full, article } = htmlText(raw);
    v = { kind: 'html', texts: [full, ...article], doc, raw, full };
  } else {
    v = { kind: 'none', texts: [] };
  }
  viewCache.set(key, v);
  return v;
}

// --- locating spans (as golden/build.ts does, with shorter descriptions) -------

/** "<p> #4": the span lies inside one element without block-level or <br> descendants. */
function locateHtml(v: View, span: string, id: string): string {
  const found = findElement(v.doc!.body, span);
  if (found) return `<${found.tag}> #${found.index}`;
  const t = findTextNode(v.doc!, span);
  if (t) return `one text node inside <${t.parentElement?.localName ?? 'body'}>`;
  throw new Error(`${id}: span not found inside one element of the page: ${JSON.stringify(span)}`);
}

/** "page 3, crossing 2 line breaks": the span is in pdftotext's output (steps 1-3, whitespace-flexible, any case). */
function locatePdf(v: View, span: string, id: string): { where: string; start: number; end: number } {
  const m = findPdfSpan(v.pdfRaw ?? '', fold(span), 'i');
  if (!m) throw new Error(`${id}: span is not in pdftotext's output: ${JSON.stringify(span)}`);
  const where = `page ${m.page}${m.feeds ? ' and the next' : ''}${lineBreaks(m.breaks)}`;
  return { where, start: m.start, end: m.end };
}

function locate(key: DocKey, span: string, id: string): string {
  const v = viewOf(key);
  if (v.kind === 'pdf') return locatePdf(v, span, id).where;
  if (v.kind === 'html') {
    const where = locateHtml(v, span, id);
    if (!v.full!.includes(normalize(span))) throw new Error(`${id}: span not in the page's normalized full view: ${span}`);
    return where;
  }
  throw new Error(`${id}: ${docOf(key).file} has no text view`);
}

// ---------------------------------------------------------------------------
// Serving: what a correct client gets for a URL

interface Served {
  ok: boolean;
  doc?: DocKey;
  status?: number;
  contentType?: string;
  steps: string[];
}

function resolve(url: string): Served {
  const steps: string[] = [];
  let u = new URL(url);
  const seen = new Set<string>();
  for (let hop = 0; hop < 10; hop++) {
    if (u.port === '9') return { ok: false, steps: [...steps, `connection refused (nothing listens on ${u.hostname}:9)`] };
    if (Number(u.port) !== GOLDEN_PORT) throw new Error(`${url}: unexpected port`);
    const reqPath = u.pathname + u.search;
    const key = `${u.hostname} ${reqPath}`;
    if (seen.has(key)) return { ok: false, steps: [...steps, `back to ${reqPath} (a redirect loop)`] };
    seen.add(key);
    const r = ROUTES.find((x) => x.path === reqPath && x.host === u.hostname);
    if (!r) return { ok: false, status: 404, steps: [...steps, '404 (no route)'] };
    if (r.redirect) {
      const loc = r.redirect.location.replace(/\{port\}/g, String(GOLDEN_PORT));
      steps.push(`${r.redirect.status ?? 302} to ${loc}`);
      u = new URL(loc, u);
      continue;
    }
    const status = r.status ?? 200;
    const contentType = r.headers?.['content-type'];
    const extra = r.headers?.['cf-mitigated'] ? ` with cf-mitigated: ${r.headers['cf-mitigated']}` : '';
    steps.push(`${status} ${contentType ?? '(no content-type)'}${extra}${status >= 400 ? ' on every request' : ''}${r.note ? ` (${r.note})` : ''}`);
    return { ok: status === 200, doc: r.doc, status, contentType, steps };
  }
  return { ok: false, steps: [...steps, 'too many redirects'] };
}

// ---------------------------------------------------------------------------
// Deriving and checking one case

type Expected = 'extraction_artifact' | 'near_miss' | 'partial' | 'not_found' | 'paywall' | 'empty' | 'fetch_failed' | 'unsupported';

interface Case {
  id: string;
  claim: string;
  quote: string;
  url: string;
  expected: Expected;
  rule: string;
}

function expectedOf(q: QuoteSpec): Expected {
  if ('artifact' in q) return 'extraction_artifact';
  if ('edits' in q) return 'near_miss';
  if ('splice' in q || 'tail' in q || 'head' in q) return 'partial';
  if ('fabricated' in q || 'foreign' in q) return 'not_found';
  if ('hidden' in q) return 'paywall';
  if ('unreadable' in q) return 'empty';
  if ('unreachable' in q) return 'fetch_failed';
  return 'unsupported';
}

function deriveCase(id: string, c: CaseSpec): Case {
  const q = c.q;
  const expected = expectedOf(q);
  const served = resolve(c.url);
  const base = { id, claim: c.claim, url: c.url, expected };
  const via = served.steps.join(' → ');

  /** mechanical no_match: the quote is in no view of the served document */
  const assertNoMatch = (quote: string, v: View): void => {
    const nq = normalize(quote);
    if (nq === '') fail(id, 'empty quote');
    for (const t of v.texts) if (t.includes(nq)) fail(id, `quote IS in the source text (mechanically verbatim): ${quote}`);
  };
  /** not something that whitespace/hyphen repair would turn into a match */
  const assertNotArtifact = (quote: string, v: View): void => {
    const sq = squash(quote);
    for (const t of v.texts) if (squash(t).includes(sq)) fail(id, `quote matches once whitespace/hyphens are ignored, so it would be an extraction artifact: ${quote}`);
  };
  const assertNoShingles = (text: string, v: View, what: string): number => {
    const sh = shingles(tokens(text), 4);
    for (const t of v.texts) {
      const src = ` ${tokens(t).join(' ')} `;
      for (const s of sh) if (src.includes(` ${s} `)) fail(id, `${what} shares the 4-word shingle "${s}" with the source`);
    }
    return sh.length;
  };

  // --- served failures -----------------------------------------------------
  if ('unreachable' in q) {
    if (served.ok) fail(id, `URL is served (${via})`);
    if (served.status === 401 || (served.status === 403 && served.doc)) fail(id, 'a login or bot-check page is a paywall case, not fetch_failed');
    const where = locate(q.from, q.unreachable, id);
    return { ...base, quote: q.unreachable, rule: `fetch_failed: ${via}; no document is ever served (the quote is real: ${docOf(q.from).pub}, ${where})` };
  }

  if (!served.doc) fail(id, `URL does not serve a document (${via})`);
  const key = served.doc;
  const d = docOf(key);
  const v = viewOf(key);

  if ('opaque' in q) {
    if (!served.ok) fail(id, `unsupported content must be served with 200 (${via})`);
    if (v.kind !== 'none' || /html|pdf|text\//i.test(served.contentType ?? '')) fail(id, 'the document must not be HTML, PDF or text');
    const where = locate(q.from, q.opaque, id);
    return { ...base, quote: q.opaque, rule: `unsupported: served ${via}: ${d.pub}; ${q.note}. No text is extracted from this content type, so the quote cannot match (the sentence is real: ${docOf(q.from).pub}, ${where})` };
  }

  if ('unreadable' in q) {
    if (!served.ok) fail(id, `empty documents must be served with 200 (${via})`);
    let why: string;
    if (v.kind === 'pdf') {
      if (v.texts.some((t) => t !== '')) fail(id, 'pdftotext does find text in this PDF');
      why = v.pdfError ? `pdftotext fails (${v.pdfError.split('\n')[0]}) and yields no text` : 'pdftotext outputs no text (form feeds only): the pages are scanned images without a text layer';
    } else if (v.kind === 'html') {
      for (const t of v.texts) if (t.length > 20) fail(id, `the page has visible text: ${JSON.stringify(t.slice(0, 80))}`);
      const bytes = fs.statSync(path.join(goldenDir(), d.file)).size;
      why = bytes === 0 ? 'the body is empty (0 bytes)' : `${d.pub}; its visible text is ${v.full ? JSON.stringify(v.full) : 'empty'}`;
    } else fail(id, 'an empty case must serve a PDF or HTML document');
    if (q.from) locate(q.from, q.unreadable, id);
    const src = q.from ? ` (the sentence is real: ${docOf(q.from).pub})` : q.note ? ` (${q.note})` : '';
    return { ...base, quote: q.unreadable, rule: `empty: served ${via}: ${v.kind === 'pdf' ? d.pub + '; ' : ''}${why}${src}` };
  }

  if ('hidden' in q) {
    const sh = d.shell;
    if (!sh || sh.kind !== 'paywall' || !sh.article) fail(id, 'a paywall case must serve a paywall shell');
    const where = locate(sh.article, q.hidden, id);
    assertNoMatch(q.hidden, v);
    return { ...base, quote: q.hidden, rule: `paywall: served ${via}: ${sh.about}. The shell stands in for ${REAL[sh.article].pub}'s article "${sh.headline}"; the quote is a sentence of that article (${where} of the real page) that the shell does not show` };
  }

  // --- content cases: a real document (or a copy of one) served with 200 ----
  if (!served.ok) fail(id, `content cases must be served with 200 (${via})`);
  if (v.kind === 'none') fail(id, 'content cases need a text document');
  const kindOf = v.kind === 'pdf' ? `pdftotext's output for ${d.pub}` : d.copyOf ? d.pub : `${d.pub}'s page`;

  if ('artifact' in q) {
    assertNoMatch(q.artifact, v);
    // the extracted text is there ...
    let where: string;
    if (v.kind === 'pdf') where = locatePdf(v, q.near, id).where;
    else {
      where = locateHtml(v, q.near, id);
      if (!v.full!.includes(normalize(q.near))) fail(id, 'near text is not in the page\'s normalized full view');
    }
    for (const t of v.texts.slice(0, 1)) if (!t.includes(normalize(q.near))) fail(id, `near text is not in the normalized source: ${q.near}`);
    // ... and differs from the quote only by what extraction did
    let repaired = q.near;
    for (const f of q.furniture ?? []) {
      if (!repaired.includes(f)) fail(id, `furniture "${f}" is not in the near text`);
      repaired = repaired.replace(f, ' ');
    }
    if (squash(repaired) !== squash(q.artifact)) fail(id, `quote and extracted text differ by more than extraction: ${JSON.stringify(squash(repaired))} vs ${JSON.stringify(squash(q.artifact))}`);
    if (q.kind === 'furniture' && squash(q.near) === squash(q.artifact)) fail(id, 'furniture case without furniture');
    if (q.kind !== 'furniture' && q.furniture) fail(id, 'furniture given for a non-furniture case');
    const how = q.kind === 'furniture'
      ? `once the furniture ${q.furniture!.map((f) => JSON.stringify(f.length > 100 ? `${f.slice(0, 97)}...` : f)).join(', ')} is taken out, the two are equal up to whitespace and hyphens`
      : `the two are equal once ${q.kind === 'soft-hyphen' ? 'whitespace, hyphens and soft hyphens (U+00AD)' : q.kind === 'zero-width' ? 'whitespace, hyphens and zero-width characters' : 'whitespace and hyphens'} are ignored`;
    return { ...base, quote: q.artifact, rule: `extraction_artifact (${q.kind}): ${q.why}; ${kindOf} has ${JSON.stringify(q.near.length > 200 ? `${q.near.slice(0, 120)} ... ${q.near.slice(-60)}` : q.near)} (${where}); the quote is the passage as a reader sees it; ${how}` };
  }

  if ('edits' in q) {
    const n = wordCount(q.span);
    if (n < 10 || n > 40) fail(id, `near_miss span has ${n} words (10-40)`);
    const where = locate(key, q.span, id);
    let quote = q.span;
    const said: string[] = [];
    for (const e of q.edits) {
      if ('swap' in e) {
        const [from, to] = e.swap;
        if (!wordRe(from).test(quote)) fail(id, `"${from}" is not a word of the span`);
        quote = quote.replace(wordRe(from), (_m, pre: string) => pre + to);
        said.push(`"${from}" replaced by "${to}"`);
      } else if ('insert' in e) {
        const [after, w] = e.insert;
        if (!wordRe(after).test(quote)) fail(id, `"${after}" is not a word of the span`);
        quote = quote.replace(wordRe(after), (m) => `${m} ${w}`);
        said.push(`"${w}" added after "${after}"`);
      } else if ('drop' in e) {
        const m = new RegExp(`\\s${reEsc(e.drop)}(?=\\s)`, 'u').exec(quote);
        if (!m) fail(id, `"${e.drop}" is not a word in the middle of the span`);
        quote = quote.slice(0, m.index) + quote.slice(m.index + m[0].length);
        said.push(`"${e.drop}" left out`);
      } else {
        const [a, b] = e.transpose;
        if (!quote.includes(`${a} ${b}`)) fail(id, `"${a} ${b}" is not in the span`);
        quote = quote.replace(`${a} ${b}`, `${b} ${a}`);
        said.push(`"${a} ${b}" transposed to "${b} ${a}"`);
      }
    }
    const dist = wordDistance(tokens(q.span), tokens(quote));
    if (dist < 1 || dist > 3) fail(id, `word-level edit distance ${dist} (must be 1-3)`);
    assertNoMatch(quote, v);
    assertNotArtifact(quote, v);
    return { ...base, quote, rule: `near_miss: ${n}-word span of ${kindOf} (${where}) with ${said.join(' and ')} (word edit distance ${dist}); the result is not in the source, and not even once whitespace and hyphens are ignored` };
  }

  if ('splice' in q) {
    const [a, b] = q.splice;
    for (const s of [a, b]) if (wordCount(s) < 6) fail(id, `splice part has fewer than 6 words: ${s}`);
    const wa = locate(key, a, id);
    const wb = locate(key, b, id);
    const t0 = v.texts[0]!;
    const ia = t0.indexOf(normalize(a));
    const ib = t0.indexOf(normalize(b));
    if (ib >= ia && ib - (ia + normalize(a).length) < 40) fail(id, 'splice parts are (nearly) adjacent in the source');
    const quote = `${a}${q.sep}${b}`;
    assertNoMatch(quote, v);
    assertNotArtifact(quote, v);
    const gap = ib > ia ? `${ib - ia - normalize(a).length} characters of normalized text apart` : 'the second comes first in the source';
    return { ...base, quote, rule: `partial: two verbatim spans of ${kindOf} (${wa}; ${wb}; ${gap}) joined with ${JSON.stringify(q.sep)}` };
  }

  if ('tail' in q || 'head' in q) {
    const span = q.span;
    const extra = 'tail' in q ? q.tail : q.head;
    if (wordCount(span) < 10) fail(id, 'partial span needs at least 10 words');
    if (tokens(extra).length < 8) fail(id, 'invented part needs at least 8 words');
    const where = locate(key, span, id);
    const n = assertNoShingles(extra, v, 'the invented part');
    const quote = 'tail' in q ? span + q.tail : q.head + span;
    assertNoMatch(quote, v);
    assertNotArtifact(quote, v);
    const side = 'tail' in q ? `followed by ${tokens(extra).length} invented words ${JSON.stringify(extra.trim())}: the quote runs on past the source's text` : `preceded by ${tokens(extra).length} invented words ${JSON.stringify(extra.trim())}`;
    return { ...base, quote, rule: `partial: a ${wordCount(span)}-word verbatim span of ${kindOf} (${where}) ${side}; none of the invented part's ${n} 4-word shingles occurs in the source` };
  }

  if ('fabricated' in q || 'foreign' in q) {
    const quote = 'fabricated' in q ? q.fabricated : q.foreign;
    const n = tokens(quote).length;
    if (n < 12 || n > 35) fail(id, `not_found quote has ${n} words (12-35)`);
    let origin = 'a made-up sentence on the document\'s topic';
    if ('foreign' in q) {
      if (q.from === key) fail(id, 'foreign sentence from the same document');
      origin = `a real sentence of a different document (${docOf(q.from).pub}, ${locate(q.from, q.foreign, id)})`;
    }
    const sh = assertNoShingles(quote, v, 'the quote');
    assertNoMatch(quote, v);
    return { ...base, quote, rule: `not_found: ${origin}; none of its ${sh} 4-word shingles (normalized words) occurs in ${kindOf}` };
  }
  fail(id, 'unknown quote spec');
}

// ---------------------------------------------------------------------------
// Main

function ensureSources(): void {
  const dir = goldenDir();
  copyMissingSources((Object.values(REAL) as RealDoc[]).map((s) => s.file.replace(/^sources\//, '')));
  fs.mkdirSync(path.join(projectRoot(), 'scratch'), { recursive: true });
  for (const g of Object.values(GEN) as Generated[]) {
    const dest = path.join(dir, g.file);
    if (g.always || !fs.existsSync(dest)) writeFile(dest, g.make());
  }
}

/** The fact behind the connection-refused cases: nothing listens on 127.0.0.1:9. */
async function assertRefused(): Promise<void> {
  await new Promise<void>((resolveP, reject) => {
    const sock = net.connect({ host: '127.0.0.1', port: 9 });
    sock.once('connect', () => {
      sock.destroy();
      reject(new Error('something listens on 127.0.0.1:9; the connection-refused cases need a closed port'));
    });
    sock.once('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNREFUSED' ? resolveP() : reject(err)));
  });
}

async function main(): Promise<void> {
  ensureSources();
  await assertRefused();
  const dir = path.join(goldenDir(), 'diagnosis');

  // every generated shell must show only real text of its article
  for (const [k, g] of Object.entries(GEN) as [GenKey, Generated][]) {
    const sh = g.shell;
    if (!sh?.article) continue;
    const v = viewOf(sh.article);
    if (!v.full!.includes(normalize(sh.headline ?? ''))) fail(k, `headline is not on the real page: ${sh.headline}`);
    for (const p of sh.shown ?? []) locate(sh.article, p, k);
  }

  const routeKeys = new Set<string>();
  const routes: Route[] = [];
  for (const r of ROUTES) {
    if (!r.path.startsWith('/diag/')) throw new Error(`route ${r.path}: must be under /diag/`);
    const k = `${r.host} ${r.path}`;
    if (routeKeys.has(k)) throw new Error(`route ${k} defined twice`);
    routeKeys.add(k);
    const { doc, note: _note, ...rest } = r;
    const route: Route = { ...rest };
    if (doc) route.file = docOf(doc).file;
    routes.push(route);
  }

  const cases: Case[] = CASES.map((c, i) => deriveCase(`diag-${String(i + 1).padStart(3, '0')}`, c));
  const quotes = new Map<string, string>();
  for (const c of cases) {
    const k = `${c.url} ${c.quote}`;
    if (quotes.has(k)) throw new Error(`${c.id}: same quote and URL as ${quotes.get(k)}`);
    quotes.set(k, c.id);
  }
  // every route is used by some case (directly or through a redirect)
  const used = new Set<string>();
  for (const c of cases) {
    let u = new URL(c.url);
    for (let hop = 0; hop < 10 && u.port !== '9'; hop++) {
      const r = ROUTES.find((x) => x.path === u.pathname + u.search && x.host === u.hostname);
      if (!r) break;
      const k = `${r.host} ${r.path}`;
      if (used.has(k) && r.redirect) break;
      used.add(k);
      if (!r.redirect) break;
      u = new URL(r.redirect.location.replace(/\{port\}/g, String(GOLDEN_PORT)), u);
    }
  }
  for (const k of routeKeys) if (!used.has(k)) throw new Error(`route ${k} is used by no case`);

  writeFile(path.join(dir, 'routes.json'), JSON.stringify(routes, null, 2) + '\n');
  writeFile(path.join(dir, 'claims.json'), JSON.stringify(cases.map((c) => ({ id: c.id, claim: c.claim, quote: c.quote, url: c.url })), null, 2) + '\n');
  writeFile(path.join(dir, 'cases.jsonl'), cases.map((c) => JSON.stringify({ id: c.id, quote: c.quote, url: c.url, expected: c.expected, rule: c.rule })).join('\n') + '\n');

  const counts = new Map<string, number>();
  for (const c of cases) counts.set(c.expected, (counts.get(c.expected) ?? 0) + 1);
  for (const [k, n] of counts) console.log(`${k.padEnd(20)} ${String(n).padStart(3)}`);
  console.log(`${'total'.padEnd(20)} ${String(cases.length).padStart(3)} cases, ${routes.length} routes`);
}

if (isMain(import.meta.url)) {
  main().catch((err: Error) => {
    console.error(err.message);
    process.exit(1);
  });
}
