// A hostile loopback web: servers and documents that misbehave the ways real sources do.
// Used by test/hostile.test.ts and the chaos test; a module of routes, so the benchmark script can serve them too.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import { createGzip } from 'node:zlib';
import type { Route } from '../../golden/server.js';
import { rng } from '../../bench/random.js';

/** A sentence planted in the hostile pages that carry text, so a test can expect it to be found. */
export const PLANTED = 'The harbour master counted forty-two ships before the storm reached the pier.';

const ROOT = resolve(import.meta.dirname, '..', '..');
const PDF_DIR = join(ROOT, 'golden', 'sources', 'pdf');

function page(body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>t</title></head><body>${body}</body></html>`;
}

/** ~`mb` MB of HTML with the planted sentence at the very end. */
export function hugePage(mb: number): Buffer {
  const para = '<p>Filler paragraph of an enormous page, repeated to make the page very large indeed.</p>\n';
  const count = Math.ceil((mb * 1024 * 1024) / para.length);
  return Buffer.from(page(`${para.repeat(count)}<p>${PLANTED}</p>`));
}

/** `depth` nested elements around the planted sentence (jsdom needs minutes for 10,000 and overflows its stack at 100,000). */
export function deepPage(depth: number): Buffer {
  return Buffer.from(page(`${'<div><span>'.repeat(depth / 2)}${PLANTED}${'</span></div>'.repeat(depth / 2)}`));
}

/** `count` sibling elements, the planted sentence among the last (moving children of such a parent was quadratic in a DOM of arrays). */
export function widePage(count: number): Buffer {
  return Buffer.from(page(`${'<div>filler item</div>'.repeat(count)}<div>${PLANTED}</div>`));
}

// ---------------------------------------------------------------------------------------------------------------
// Long real pages: not hostile, and they must keep their article view. Made deterministically (a seeded generator of
// plausible prose), so tests and bench/long-pages.ts build the same bytes every time.

/** A sentence planted in the middle of the long pages (the 10,000th of the chapter's 20,000 paragraphs). */
export const LONG_PLANTED =
  'Maren held the lantern over the chart and admitted, at last, that the northern channel had never been surveyed at all.';

const WORDS = (
  'the a and of to in that was he she it his her with for on as at by from they we you had but not what all were when there ' +
  'one said into up out could would then about them this have been more some time no like only other so over back after little ' +
  'harbour lantern river ship rope tide storm window door road village wall field stone bridge market letter morning evening ' +
  'winter summer night light shadow voice hand face eyes heart answer question silence promise reason journey captain keeper ' +
  'sister brother father mother stranger soldier merchant teacher doctor farmer miller weaver walked turned waited listened ' +
  'remembered watched carried pulled opened closed followed asked answered whispered laughed smiled nodded frowned slowly quietly ' +
  'suddenly finally carefully again already never always perhaps almost nearly across beneath beyond toward against between old ' +
  'young cold warm dark bright narrow heavy quiet long short grey green broken empty distant familiar strange careful tired'
).split(' ');
const NAMES = ['Maren', 'Tobias', 'Ilse', 'Corwin', 'Agathe', 'Pell', 'Wren', 'Dorran', 'Ysolde', 'Bram'];

/** Seeded prose: sentences of 6–24 words, some dialogue, commas, the odd name; `count` of them in a paragraph. */
function prose(random: () => number, sentences: number): string {
  const out: string[] = [];
  for (let s = 0; s < sentences; s++) {
    const n = 6 + Math.floor(random() * 19);
    const words: string[] = [];
    for (let w = 0; w < n; w++) {
      let word =
        random() < 0.06 ? NAMES[Math.floor(random() * NAMES.length)]! : WORDS[Math.floor(random() * WORDS.length)]!;
      if (w > 2 && w < n - 2 && random() < 0.08) word += ',';
      words.push(word);
    }
    let sentence = words.join(' ');
    sentence = `${sentence[0]!.toUpperCase()}${sentence.slice(1)}${random() < 0.1 ? '?' : '.'}`;
    out.push(
      random() < 0.15 ? `\u201c${sentence}\u201d ${NAMES[Math.floor(random() * NAMES.length)]} said.` : sentence,
    );
  }
  return out.join(' ');
}

/**
 * A long web-fiction chapter as serial-fiction sites serve one: site chrome, then one <div> holding every
 * paragraph of the chapter (20,000 by default, ~3 MB), then the comments. LONG_PLANTED is the middle paragraph.
 * `style` 'p' gives <p> paragraphs; 'br' gives text runs separated by <br><br> (the other common way).
 */
export function longChapterPage(paragraphs = 20_000, style: 'p' | 'br' = 'p', seed = 7): string {
  const random = rng(seed);
  const paras: string[] = [];
  for (let i = 0; i < paragraphs; i++) {
    const text = i === paragraphs >> 1 ? LONG_PLANTED : prose(random, 1 + Math.floor(random() * 3));
    paras.push(style === 'p' ? `<p>${text}</p>` : `${text}<br>\n<br>\n`);
    if (style === 'p' && random() < 0.02) paras.push('<p>&nbsp;</p>');
  }
  const comments = Array.from(
    { length: 40 },
    (_, i) =>
      `<div class="comment"><div class="comment-author"><a href="/profile/${i}">reader${i}</a></div><div class="comment-body"><p>${prose(random, 2)}</p></div></div>`,
  ).join('\n');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Chapter 212: The Northern Channel | The Cartographer's Daughter</title>
<link rel="stylesheet" href="/css/reader.css"><script src="/js/reader.js"></script></head>
<body class="chapter-page">
<header class="navbar"><a class="brand" href="/">Serial Shelf</a><nav><a href="/browse">Browse</a> <a href="/latest">Latest updates</a> <a href="/forums">Forums</a> <a href="/login">Log in</a></nav></header>
<div class="fiction-header"><h1>Chapter 212: The Northern Channel</h1><h2>The Cartographer's Daughter, by <a href="/author/ilse">Ilse Varr</a></h2></div>
<div class="nav-buttons"><a href="/chapter/211">Previous chapter</a> <a href="/fiction/88">Index</a> <a href="/chapter/213">Next chapter</a></div>
<div class="chapter-inner chapter-content">
${paras.join('\n')}
</div>
<div class="author-note"><p>Thank you for reading! The next chapter comes out on Friday.</p></div>
<div class="nav-buttons"><a href="/chapter/211">Previous chapter</a> <a href="/fiction/88">Index</a> <a href="/chapter/213">Next chapter</a></div>
<section class="comments"><h3>Comments (40)</h3>
${comments}
</section>
<footer><p>&copy; Serial Shelf. <a href="/terms">Terms</a> <a href="/privacy">Privacy</a></p></footer>
</body></html>
`;
}

/**
 * A long government report in HTML, as parliaments and agencies publish them: a table of contents, chapters of
 * nested sections with headings, paragraphs citing footnotes, statistical tables, and the footnotes in one list at
 * the end (`chapters` of 8 sections × 3 subsections; the default is ~8 MB, ~140,000 elements, 9,000 footnotes).
 */
export function longReportPage(chapters = 24, seed = 11): string {
  const random = rng(seed);
  const middle = Math.ceil(chapters / 2);
  let footnote = 0;
  const notes: string[] = [];
  const cite = () => {
    footnote++;
    notes.push(
      `<li id="fn${footnote}"><p>${prose(random, 1 + Math.floor(random() * 2))} <a href="#fnref${footnote}" class="backref">&#8617;</a></p></li>`,
    );
    return `<sup id="fnref${footnote}"><a href="#fn${footnote}">${footnote}</a></sup>`;
  };
  const para = () =>
    `<p>${prose(random, 2 + Math.floor(random() * 4))}${random() < 0.6 ? cite() : ''} ${prose(random, 1 + Math.floor(random() * 3))}${random() < 0.3 ? cite() : ''}</p>`;
  const table = (id: string) => {
    const rows = 20 + Math.floor(random() * 40);
    const body = Array.from(
      { length: rows },
      (_, r) =>
        `<tr><th scope="row">${WORDS[(r * 7) % WORDS.length]} ${r + 1}</th>${Array.from({ length: 5 }, () => `<td>${(random() * 10000).toFixed(1)}</td>`).join('')}</tr>`,
    ).join('\n');
    return `<table class="data" id="${id}"><caption>Table ${id}: ${prose(random, 1)}</caption><thead><tr><th>Region</th><th>2019</th><th>2020</th><th>2021</th><th>2022</th><th>2023</th></tr></thead><tbody>\n${body}\n</tbody></table>`;
  };
  const toc: string[] = [];
  const body: string[] = [];
  for (let c = 1; c <= chapters; c++) {
    toc.push(
      `<li><a href="#ch${c}">Chapter ${c}</a><ol>${Array.from({ length: 8 }, (_, s) => `<li><a href="#s${c}-${s + 1}">Section ${c}.${s + 1}</a></li>`).join('')}</ol></li>`,
    );
    const sections: string[] = [];
    for (let s = 1; s <= 8; s++) {
      const subs: string[] = [];
      for (let u = 1; u <= 3; u++) {
        const paras = Array.from({ length: 8 + Math.floor(random() * 10) }, para);
        if (c === middle && s === 4 && u === 2) paras.splice(paras.length >> 1, 0, `<p>${LONG_PLANTED}${cite()}</p>`);
        if (random() < 0.5) paras.splice(Math.floor(random() * paras.length), 0, table(`${c}.${s}.${u}`));
        if (random() < 0.3)
          paras.push(
            `<ul>${Array.from({ length: 3 + Math.floor(random() * 6) }, () => `<li>${prose(random, 1)}</li>`).join('')}</ul>`,
          );
        subs.push(
          `<section id="s${c}-${s}-${u}"><h4>${c}.${s}.${u} ${prose(random, 1)}</h4>\n${paras.join('\n')}</section>`,
        );
      }
      sections.push(`<section id="s${c}-${s}"><h3>${c}.${s} ${prose(random, 1)}</h3>\n${subs.join('\n')}</section>`);
    }
    body.push(
      `<section class="chapter" id="ch${c}"><h2>Chapter ${c}. ${prose(random, 1)}</h2>\n${sections.join('\n')}</section>`,
    );
  }
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Annual Report on Regional Infrastructure, Volume II</title>
<link rel="stylesheet" href="/assets/report.css"></head>
<body>
<div class="gov-header"><a href="/">Department of Regional Infrastructure</a><nav><a href="/publications">Publications</a> <a href="/data">Data</a> <a href="/contact">Contact</a></nav></div>
<main id="content"><article class="report">
<h1>Annual Report on Regional Infrastructure, Volume II</h1>
<nav class="toc"><h2>Contents</h2><ol>${toc.join('\n')}</ol></nav>
${body.join('\n')}
<section class="footnotes"><h2>Notes</h2><ol>
${notes.join('\n')}
</ol></section>
</article></main>
<footer class="gov-footer"><p>Published under the Open Government Licence.</p></footer>
</body></html>
`;
}

/** The long pages, served (for tests that read them through the whole pipeline). */
export function longPageRoutes(): Route[] {
  return [
    { path: '/long/chapter', body: longChapterPage(20_000, 'p'), headers: html },
    { path: '/long/chapter-br', body: longChapterPage(20_000, 'br'), headers: html },
    { path: '/long/report', body: longReportPage(24), headers: html },
  ];
}

let bomb: Promise<Buffer> | undefined;
/** gzip of 200 MB of zeros: ~200 KB on the wire. Made once, by streaming, so the test never holds 200 MB. */
export function gzipBomb(): Promise<Buffer> {
  bomb ??= new Promise((resolveBomb, reject) => {
    const gz = createGzip({ level: 9 });
    const out: Buffer[] = [];
    gz.on('data', (d: Buffer) => out.push(d));
    gz.on('end', () => resolveBomb(Buffer.concat(out)));
    gz.on('error', reject);
    const chunk = Buffer.alloc(1024 * 1024);
    let left = 200;
    const write = () => {
      while (left > 0) {
        left--;
        if (!gz.write(chunk)) return void gz.once('drain', write);
      }
      gz.end();
    };
    write();
  });
  return bomb;
}

const html = { 'content-type': 'text/html; charset=utf-8' };

/** Sends headers, then one byte a second, forever (until the client gives up). */
function drip(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/html' });
  const timer = setInterval(() => res.write('.'), 1000);
  res.on('close', () => clearInterval(timer));
}

/** Half a body, then a reset connection. */
function resetMidBody(req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { ...html, 'content-length': '100000' });
  res.write(`<p>${PLANTED.slice(0, 20)}`);
  setTimeout(() => req.socket.destroy(), 20);
}

/** A chunked body that never ends: text as fast as the client reads it. */
function endless(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/plain' });
  const chunk = Buffer.alloc(64 * 1024, 'endless text ');
  const pump = () => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once('drain', pump);
  };
  res.on('close', () => res.removeAllListeners('drain'));
  pump();
}

/** Declares 5,000 bytes, sends 300, closes: the body is short of its Content-Length (written raw, past Node's own checks). */
function shortBody(req: IncomingMessage): void {
  req.socket.end(
    `HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: 5000\r\n\r\n${`<p>${PLANTED}</p>`.padEnd(300, ' ')}`,
  );
}

/** Text declared as UTF-8 with invalid bytes around the planted sentence. */
function invalidUtf8(): Buffer {
  return Buffer.from(
    `<html><body><p>bad \xff\xfe bytes </p><p>${PLANTED}</p><p>\xc3\x28 more</p></body></html>`,
    'latin1',
  );
}

function pdf(name: string): Buffer {
  return readFileSync(join(PDF_DIR, name));
}

/** A well-known bot-check interstitial, in the style of the real ones. */
const BOT_CHECK = page(
  '<h1>Checking your browser before accessing the site.</h1><p>This process is automatic. Your browser will redirect to your requested content shortly.</p><noscript>Please enable JavaScript and cookies to continue.</noscript><div class="cf-turnstile" data-sitekey="x"></div>',
);

export interface HostileCase {
  /** Route path on the hostile server. */
  path: string;
  what: string;
  /** What quotecheck should answer, the diagnosis, and what the note names. */
  label: 'verbatim' | 'no_match';
  diagnosis: string;
  note: RegExp;
  /** Limits this case needs instead of HOSTILE_LIMITS'. */
  limits?: Partial<typeof HOSTILE_LIMITS>;
}

/**
 * Every hostile route with the answer quotecheck must give for the planted quote, under the
 * limits of HOSTILE_LIMITS. The cases double as the README's table.
 */
export const HOSTILE_CASES: HostileCase[] = [
  {
    path: '/drip',
    what: 'slow drip: one byte a second',
    label: 'no_match',
    diagnosis: 'fetch_failed',
    note: /timed out after|time budget/,
  },
  {
    path: '/hang',
    what: 'accepts the connection, never answers',
    label: 'no_match',
    diagnosis: 'fetch_failed',
    note: /timed out after|time budget/,
  },
  {
    path: '/reset',
    what: 'connection reset in the middle of the body',
    label: 'no_match',
    diagnosis: 'fetch_failed',
    note: /connection failed|other side closed|terminated|socket/i,
  },
  {
    path: '/loop/a',
    what: 'redirect loop',
    label: 'no_match',
    diagnosis: 'fetch_failed',
    note: /more than 10 redirects/,
  },
  {
    path: '/chain/0',
    what: 'a chain of 20 redirects',
    label: 'no_match',
    diagnosis: 'fetch_failed',
    note: /more than 10 redirects/,
  },
  {
    path: '/cookie',
    what: 'sets a cookie and redirects to itself',
    label: 'verbatim',
    diagnosis: 'verbatim',
    note: /^$/,
  },
  // Alone, with time to spare: inflating 40 MB under the load of the other cases can take longer
  // than their 1.5 s attempts, and this case is about the cap, not the clock.
  {
    path: '/bomb',
    what: 'gzip bomb: 200 KB that inflate to 200 MB',
    label: 'no_match',
    diagnosis: 'fetch_failed',
    note: /larger than the \d+ MB cap/,
    limits: { timeoutMs: 20_000, sourceBudgetMs: 30_000 },
  },
  {
    path: '/endless',
    what: 'chunked body that never ends',
    label: 'no_match',
    diagnosis: 'fetch_failed',
    note: /larger than the \d+ MB cap|timed out|time budget/,
  },
  {
    path: '/short-body',
    what: 'Content-Length larger than the body sent',
    label: 'no_match',
    diagnosis: 'fetch_failed',
    note: /connection failed|terminated|other side closed|socket/i,
  },
  {
    path: '/invalid-utf8',
    what: 'declared UTF-8, with invalid bytes',
    label: 'verbatim',
    diagnosis: 'verbatim',
    note: /^$/,
  },
  {
    path: '/deep',
    what: '100,000 nested elements',
    label: 'verbatim',
    diagnosis: 'verbatim',
    note: /nested more than 400 deep \(the DOM cap\)/,
  },
  // 100,000 siblings are within the DOM caps since removal from the light DOM is O(1), so the full view always has the
  // quote. Whether Readability's article also finishes inside the limit is a matter of speed, measured by npm run bench
  // (bench/long-pages.ts, wide-100k), not here: on a machine running two suites and a demo on 2 cores it may not.
  {
    path: '/wide',
    what: '100,000 sibling elements',
    label: 'verbatim',
    diagnosis: 'verbatim',
    note: /^$|^no article view: Readability stopped at the \d+ s limit \(full view only\)$/,
  },
  {
    path: '/huge',
    what: 'a 30 MB page',
    label: 'verbatim',
    diagnosis: 'verbatim',
    note: /MB of HTML > the 16 MB DOM cap/,
  },
  {
    path: '/truncated.pdf',
    what: 'a PDF cut off after 2 KB',
    label: 'no_match',
    diagnosis: 'empty',
    note: /pdftotext failed|no text layer/,
  },
  {
    path: '/corrupt.pdf',
    what: 'a PDF header followed by garbage',
    label: 'no_match',
    diagnosis: 'empty',
    note: /pdftotext failed|no text layer/,
  },
  {
    path: '/encrypted.pdf',
    what: 'a PDF that needs a user password',
    label: 'no_match',
    diagnosis: 'empty',
    note: /needs a password/,
  },
  {
    path: '/slow.pdf',
    what: 'a PDF that takes pdftotext longer than its limit',
    label: 'no_match',
    diagnosis: 'empty',
    note: /pdftotext stopped after 0.05 s/,
    limits: { extractTimeoutMs: 50 },
  },
  { path: '/401', what: '401 login required', label: 'no_match', diagnosis: 'paywall', note: /HTTP 401/ },
  { path: '/403', what: '403 forbidden', label: 'no_match', diagnosis: 'fetch_failed', note: /HTTP 403/ },
  {
    path: '/451',
    what: '451 unavailable for legal reasons',
    label: 'no_match',
    diagnosis: 'fetch_failed',
    note: /HTTP 451/,
  },
  {
    path: '/500',
    what: '500 on every request',
    label: 'no_match',
    diagnosis: 'fetch_failed',
    note: /HTTP 500.*after 2 attempts/,
  },
  {
    path: '/bot-check',
    what: 'bot-check interstitial (403, challenge markup)',
    label: 'no_match',
    diagnosis: 'paywall',
    note: /bot check/,
  },
];

/** Limits the hostile cases are answered under (small, so the suite stays fast). */
export const HOSTILE_LIMITS = {
  timeoutMs: 1_500,
  retries: 1,
  backoffMinMs: 10,
  backoffMaxMs: 50,
  sourceBudgetMs: 4_000,
  maxBytes: 40 * 1024 * 1024,
  extractTimeoutMs: 20_000,
};

/** The routes of the hostile web. */
export async function hostileRoutes(): Promise<Route[]> {
  const chain: Route[] = Array.from({ length: 20 }, (_, i) => ({
    path: `/chain/${i}`,
    redirect: { location: `/chain/${i + 1}` },
  }));
  const tracemonkey = pdf('tracemonkey.pdf');
  // Made before serving: making it takes seconds of CPU, which must not count against a request's timeout.
  const bombBytes = await gzipBomb();
  return [
    { path: '/drip', handler: drip },
    { path: '/hang', hang: true },
    { path: '/reset', handler: resetMidBody },
    { path: '/loop/a', redirect: { location: '/loop/b' } },
    { path: '/loop/b', redirect: { location: '/loop/a' } },
    ...chain,
    { path: '/chain/20', body: page(`<p>${PLANTED}</p>`), headers: html },
    { path: '/cookie', body: page(`<p>${PLANTED}</p>`), headers: html, cookieGate: { name: 'seen', value: '1' } },
    { path: '/bomb', body: bombBytes, headers: { 'content-type': 'text/html', 'content-encoding': 'gzip' } },
    { path: '/endless', handler: endless },
    { path: '/short-body', handler: shortBody },
    { path: '/invalid-utf8', body: invalidUtf8(), headers: html },
    { path: '/deep', body: deepPage(100_000), headers: html },
    { path: '/wide', body: widePage(100_000), headers: html },
    { path: '/huge', body: hugePage(30), headers: html },
    { path: '/truncated.pdf', body: tracemonkey.subarray(0, 2048), headers: { 'content-type': 'application/pdf' } },
    {
      path: '/corrupt.pdf',
      body: Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(50_000, 0x5a)]),
      headers: { 'content-type': 'application/pdf' },
    },
    {
      path: '/encrypted.pdf',
      body: pdf('libreoffice-writer-password.pdf'),
      headers: { 'content-type': 'application/pdf' },
    },
    // A 14-page paper: pdftotext needs far more than the 50 ms the case allows it.
    { path: '/slow.pdf', body: tracemonkey, headers: { 'content-type': 'application/pdf' } },
    { path: '/401', status: 401, body: page('<h1>Unauthorized</h1>'), headers: html },
    {
      path: '/403',
      status: 403,
      body: '<html><body><center><h1>403 Forbidden</h1></center><hr><center>nginx</center></body></html>',
      headers: html,
    },
    { path: '/451', status: 451, body: page('<h1>Unavailable For Legal Reasons</h1>'), headers: html },
    { path: '/500', status: 500, body: page('<h1>Internal Server Error</h1>'), headers: html },
    { path: '/bot-check', status: 403, body: BOT_CHECK, headers: html },
  ];
}
