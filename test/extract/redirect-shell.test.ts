// Issue 16 item 3: a page whose only content is a meta refresh (or a one-line script redirect) is a redirect
// shell. Diagnosis says so with its target (`empty`: the page has no document text); the label stays the
// mechanical test on the fetched page; `verify` fetches the target once and says whether the quote is there.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, test } from 'vitest';
import { checkClaims, parseClaims, verifyQuote } from 'quotecheck';
import type { Route } from '../../golden/server.js';
import { detectShell, resolveRedirect } from '../../src/diagnose/shells.js';
import { parseRefresh, scriptRedirect } from '../../src/extract/markup.js';
import { normalize } from '../../src/normalize.js';
import { SHELL_MAX_TEXT } from '../../src/page-shell-limits.js';
import { CLI, runCliInProcess, serve } from '../support/helpers.js';
import { markupSignals } from '../support/markup.js';

const html = { 'content-type': 'text/html; charset=utf-8' };
const QUOTE = 'The committee approved the budget on Tuesday after a long debate.';
const ARTICLE = `<html><head><title>Budget</title></head><body><article><h1>Budget approved</h1><p>${QUOTE}</p><p>Members said the vote was close.</p></article></body></html>`;
const OTHER =
  '<html><body><article><h1>Elsewhere</h1><p>Nothing about any budget here, only the weather report for the week.</p></article></body></html>';
/** A long article that also carries a meta refresh: an ordinary page, not a shell. */
const LONG = `<html><head><meta http-equiv="refresh" content="300; url=/quoted-charset"></head><body><article><h1>Long story</h1>${'<p>The long story goes on with many sentences about the city and its council.</p>'.repeat(60)}</article></body></html>`;

const ROUTES: Route[] = [
  { path: '/quoted-charset', body: ARTICLE, headers: html },
  { path: '/other', body: OTHER, headers: html },
  // No text at all: extraction says `empty`, and diagnosis reads the markup from the body.
  {
    path: '/shell',
    body: '<!doctype html><html><head><meta http-equiv="refresh" content="0; url=/quoted-charset"></head><body></body></html>',
    headers: html,
  },
  // A quoted, relative target (against the page's folder), with a line of text.
  {
    path: '/dir/shell',
    body: `<html><head><meta http-equiv="Refresh" content="0;URL='../quoted-charset'"><title>Redirecting</title></head><body><p>Redirecting... <a href="../quoted-charset">click here</a> if nothing happens.</p></body></html>`,
    headers: html,
  },
  // "URL = '...'" with whitespace around "=", a comma, and a target without the quote.
  {
    path: '/shell-other',
    body: `<html><head><meta content="2, URL = 'other'" http-equiv="refresh"></head><body><p>Moved.</p></body></html>`,
    headers: html,
  },
  // A one-line script redirect on an empty page.
  {
    path: '/shell-script',
    body: '<html><head><script>window.location.replace("/quoted-charset");</script></head><body></body></html>',
    headers: html,
  },
  {
    path: '/shell-script-href',
    body: "<html><body><script>location.href = '/other';</script><noscript>Please enable JavaScript.</noscript></body></html>",
    headers: html,
  },
  { path: '/long', body: LONG, headers: html },
  // A redirect shell whose target does not answer.
  { path: '/shell-gone', body: '<meta http-equiv="refresh" content="0;url=/gone">', headers: html },
  { path: '/gone', status: 404, body: 'not here', headers: { 'content-type': 'text/plain' } },
];

describe("parseRefresh: the HTML standard's shared declarative refresh steps", () => {
  test.each([
    ['0; url=/quoted-charset', 0, '/quoted-charset'],
    ["0;URL='/a b'", 0, '/a b'],
    ['5, url = "/x"', 5, '/x'],
    ['  3  /z', 3, '/z'],
    ["0; URL = '/q'trailing", 0, '/q'],
    ['.5;url=/dot', 0, '/dot'],
    ['1.5; url=/frac', 1, '/frac'],
    ['0; "/quoted-no-url"', 0, '/quoted-no-url'],
    ['0; urn:x', 0, 'urn:x'],
    ['0; url /no-equals', 0, 'url /no-equals'],
  ])('%j -> %d, %j', (content, delay, url) => {
    expect(parseRefresh(content)).toEqual({ delay, url });
  });
  test('no URL: a reload of the page itself', () => {
    expect(parseRefresh('390')).toEqual({ delay: 390 });
    expect(parseRefresh('0; url=')).toEqual({ delay: 0 });
    expect(parseRefresh('10;   ')).toEqual({ delay: 10 });
  });
  test('content that does not start with a number is ignored, as a browser ignores it', () => {
    expect(parseRefresh('url=/x')).toBeNull();
    expect(parseRefresh('')).toBeNull();
    expect(parseRefresh('0url=/x')).toBeNull();
  });
});

describe('scriptRedirect: a one-line script that sets the location to a literal', () => {
  test.each([
    ["location.href = '/a'", '/a'],
    ['window.location = "/b";', '/b'],
    ['document.location.href="/c"', '/c'],
    ['location.replace("https://example.com/d")', 'https://example.com/d'],
    ["window.location.assign( '/e' );", '/e'],
    ['top.location = `/f`', '/f'],
    ['<!-- \nwindow.location.replace("\\/g\\u0031")\n// -->', '/g1'],
  ])('%j -> %j', (script, target) => {
    expect(scriptRedirect(script)).toBe(target);
  });
  test.each([
    ['location.href = targetHref'],
    ['if (location.href == "/x") go()'],
    ['location.href = "/x" + location.hash'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the page's own script text, a template literal it does not run here
    ['location.href = `/x/${id}`'],
    ['foo.location = "/x"'],
    [`var app = ${'"filler",'.repeat(60)}; location.href = "/x";`],
  ])('not a redirect: %j', (script) => {
    expect(scriptRedirect(script)).toBeUndefined();
  });
});

describe('markup signals read from the tree and from the streaming pass agree', () => {
  const PAGES: Record<string, string> = {
    'bot check by widget':
      '<html><body><div class="cf-turnstile" data-sitekey="x"></div><p>Checking your browser</p></body></html>',
    'bot check by class': '<div class="hold-captcha"><p>Verify you are human</p></div>',
    'bot check by id': '<form id="challenge-form" action="/x"></form>',
    'bot check in a script': '<script>window.__cf_chl_opt = { cvId: "3" };</script><p>Just a moment...</p>',
    'JSON-LD not free':
      '<script type="application/ld+json">{"@type":"NewsArticle","isAccessibleForFree": "False"}</script><p>Intro</p>',
    'app root': '<html><body><div id="__next">  </div><script src="/main.js"></script></body></html>',
    'app root with content is none': '<div id="root"><p>Server-rendered text</p></div>',
    'noscript asking for JavaScript':
      '<body><noscript>You need to enable JavaScript to run this app.</noscript></body>',
    'refresh in the body, base in the head':
      '<head><base href="/b/"></head><body><meta http-equiv="refresh" content="0; URL=\'next\'"></body>',
    'script redirect': '<script>\n  window.location.href = "/moved";\n</script>',
    'plain article': `<article><p>${'Words of an article. '.repeat(20)}</p></article>`,
  };
  test.each(Object.entries(PAGES))('%s', (_, page) => {
    for (const length of [0, SHELL_MAX_TEXT]) {
      expect(markupSignals(page, length, 'tokens')).toEqual(markupSignals(page, length, 'tree'));
    }
  });
  test('what each reads', () => {
    const read = (name: string) => markupSignals(PAGES[name]!, 0);
    expect(read('bot check by widget').botMarkup).toBe('cf-turnstile');
    expect(read('bot check by class').botMarkup).toBe('class "hold-captcha"');
    expect(read('bot check by id').botMarkup).toBe('id "challenge-form"');
    expect(read('bot check in a script').botMarkup).toBe('__cf_chl_');
    expect(read('JSON-LD not free').notFree).toBe(true);
    expect(read('app root').scripted).toBe(true);
    expect(markupSignals(PAGES['app root with content is none']!, 0).scripted).toBe(false);
    expect(read('noscript asking for JavaScript').scripted).toBe(true);
    expect(read('refresh in the body, base in the head').redirect).toEqual({
      via: 'meta refresh',
      target: 'next',
      base: '/b/',
    });
    expect(read('script redirect').redirect).toEqual({ via: 'script', target: '/moved' });
    expect(read('plain article')).toEqual({ botMarkup: undefined, notFree: false, scripted: false });
  });
});

describe('markupSignals: the redirect a page asks for', () => {
  test('a meta refresh, entities decoded, with the <base href> it resolves against', () => {
    const page =
      '<html><head><base href="https://example.com/news/"><meta http-equiv="refresh" content="0;url=story?id=1&amp;p=2"></head></html>';
    expect(markupSignals(page, 0).redirect).toEqual({
      via: 'meta refresh',
      target: 'story?id=1&p=2',
      base: 'https://example.com/news/',
    });
  });
  test('the first refresh that parses wins; one in a comment or a script is not markup', () => {
    const page =
      '<!-- <meta http-equiv="refresh" content="0;url=/commented"> --><script>document.write(\'<meta http-equiv="refresh" content="0;url=/scripted">\')</script><meta http-equiv="refresh" content="nonsense"><meta http-equiv="refresh" content="1;url=/real"><meta http-equiv="refresh" content="0;url=/second">';
    expect(markupSignals(page, 0).redirect).toEqual({ via: 'meta refresh', target: '/real' });
  });
  test('a refresh with no URL (a reload) is no redirect; a script redirect only on a page all but empty', () => {
    expect(markupSignals('<meta http-equiv="refresh" content="390">', 0).redirect).toBeUndefined();
    const script = '<script>location.replace("/next")</script>';
    expect(markupSignals(script, 0).redirect).toEqual({ via: 'script', target: '/next' });
    expect(markupSignals(`${script}<p>text</p>`, 500).redirect).toBeUndefined();
    expect(markupSignals('<script src="/app.js">location.href="/x"</script>', 0).redirect).toBeUndefined();
    expect(markupSignals('<script>\n<!--\nlocation = "/hidden";\n// -->\n</script>', 0).redirect).toEqual({
      via: 'script',
      target: '/hidden',
    });
  });
  test('a long page is not searched: a meta refresh there cannot make it a shell', () => {
    expect(markupSignals(LONG, SHELL_MAX_TEXT).redirect).toBeUndefined();
  });
});

describe('detectShell: a redirect shell', () => {
  const shellOf = (page: string, text: string, url = 'https://example.com/a/page.html') =>
    detectShell({ status: 200, markup: markupSignals(page, text.length), text, url });
  test('the target resolved against the page URL, in the evidence', () => {
    expect(shellOf('<meta http-equiv="refresh" content="0; url=../b/target.html">', '')).toEqual({
      kind: 'redirect',
      evidence: 'meta refresh to https://example.com/b/target.html',
      strong: true,
      redirect: { target: 'https://example.com/b/target.html', via: 'meta refresh' },
    });
  });
  test('a refresh to the page itself, or to javascript:, is no redirect', () => {
    expect(shellOf('<meta http-equiv="refresh" content="30; url=page.html#top">', '')).toBeNull();
    expect(shellOf('<meta http-equiv="refresh" content="0; url=javascript:go()">', '')).toBeNull();
    expect(resolveRedirect({ via: 'script', target: '/x' }, undefined)).toBeUndefined();
  });
  test('a bot check that refreshes is still a bot check', () => {
    const page = '<meta http-equiv="refresh" content="5;url=/retry"><div id="challenge-form"></div>';
    expect(shellOf(page, normalize('Just a moment...'))).toMatchObject({ kind: 'bot_check' });
  });
});

describe('a redirect shell in a run: diagnosis `empty` with its target, label unchanged', () => {
  test('each kind of redirect shell, and a long page with a refresh stays an ordinary page', async () => {
    const server = await serve(ROUTES);
    const at = (path: string) => `${server.origin}${path}`;
    const { entries } = parseClaims(
      [
        { id: 'meta', quote: QUOTE, url: at('/shell') },
        { id: 'relative', quote: QUOTE, url: at('/dir/shell') },
        { id: 'spaces', quote: QUOTE, url: at('/shell-other') },
        { id: 'script', quote: QUOTE, url: at('/shell-script') },
        { id: 'script-href', quote: QUOTE, url: at('/shell-script-href') },
        { id: 'long', quote: QUOTE, url: at('/long') },
        { id: 'on-shell', quote: 'Redirecting... click here', url: at('/dir/shell') },
      ],
      'claims',
    );
    const run = await checkClaims(entries, { allowPrivate: true, retries: 0, timeoutMs: 5000 });
    const byId = Object.fromEntries(run.results.map((r) => [r.id, r]));
    const shell = (id: string, via: string, target: string) => {
      expect(byId[id], id).toMatchObject({
        label: 'no_match',
        diagnosis: 'empty',
        note: `the page is a redirect shell (${via} to ${at(target)}): the document is at its target`,
      });
    };
    shell('meta', 'meta refresh', '/quoted-charset');
    shell('relative', 'meta refresh', '/quoted-charset');
    shell('spaces', 'meta refresh', '/other');
    shell('script', 'script', '/quoted-charset');
    shell('script-href', 'script', '/other');
    expect(byId.long).toMatchObject({ label: 'no_match', diagnosis: 'not_found' });
    // The label is the test on the fetched page: text on the shell itself still matches.
    expect(byId['on-shell']).toMatchObject({ label: 'verbatim', diagnosis: 'verbatim' });
    // The run fetched only the cited pages, never a target.
    expect(run.sources.map((s) => new URL(s.url).pathname).sort()).toEqual([
      '/dir/shell',
      '/long',
      '/shell',
      '/shell-other',
      '/shell-script',
      '/shell-script-href',
    ]);
  });
});

describe('verify on a redirect shell: the quote at its target', () => {
  test('verifyQuote: found at the target, not found there, and an ordinary page gets no `redirect`', async () => {
    const server = await serve(ROUTES);
    const options = { allowPrivate: true, retries: 0, timeoutMs: 5000 };
    const found = await verifyQuote(`${server.origin}/dir/shell`, QUOTE, options);
    expect(found).toMatchObject({
      label: 'no_match',
      diagnosis: 'empty',
      redirect: {
        target: `${server.origin}/quoted-charset`,
        via: 'meta refresh',
        found: true,
        diagnosis: 'verbatim',
        final_url: `${server.origin}/quoted-charset`,
        note: null,
      },
    });
    const missing = await verifyQuote(`${server.origin}/shell-script-href`, QUOTE, options);
    expect(missing).toMatchObject({
      label: 'no_match',
      diagnosis: 'empty',
      redirect: { target: `${server.origin}/other`, via: 'script', found: false, diagnosis: 'not_found' },
    });
    const gone = await verifyQuote(`${server.origin}/shell-gone`, QUOTE, options);
    expect(gone.redirect).toMatchObject({ target: `${server.origin}/gone`, found: false, diagnosis: 'fetch_failed' });
    const ordinary = await verifyQuote(`${server.origin}/long`, QUOTE, options);
    expect(ordinary).toMatchObject({ label: 'no_match', diagnosis: 'not_found' });
    expect(ordinary).not.toHaveProperty('redirect');
    const onShell = await verifyQuote(`${server.origin}/dir/shell`, 'Redirecting... click here', options);
    expect(onShell).toMatchObject({ label: 'verbatim' });
    expect(onShell).not.toHaveProperty('redirect');
  });

  test("the CLI says where the page redirects and whether the quote is there; --json adds `redirect`; the exit code is the page's own label", async () => {
    const server = await serve(ROUTES);
    const found = await runCliInProcess([
      'verify',
      '--allow-private',
      '--url',
      `${server.origin}/shell`,
      '--quote',
      QUOTE,
    ]);
    expect(found.code).toBe(1);
    expect(found.stdout).toMatch(/^no_match \(diagnosis: empty\)/);
    expect(found.stdout).toContain(
      `note: the page is a redirect shell (meta refresh to ${server.origin}/quoted-charset): the document is at its target`,
    );
    expect(found.stdout).toContain(
      `the page redirects (meta refresh) to ${server.origin}/quoted-charset: the quote is there (verbatim)`,
    );
    const missing = await runCliInProcess([
      'verify',
      '--allow-private',
      '--url',
      `${server.origin}/shell-other`,
      '--quote',
      QUOTE,
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain(
      `the page redirects (meta refresh) to ${server.origin}/other: the quote is not there either (diagnosis: not_found`,
    );
    const json = await runCliInProcess([
      'verify',
      '--allow-private',
      '--json',
      '--url',
      `${server.origin}/shell-script`,
      '--quote',
      QUOTE,
    ]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      label: 'no_match',
      diagnosis: 'empty',
      redirect: { target: `${server.origin}/quoted-charset`, via: 'script', found: true, diagnosis: 'verbatim' },
    });
  });

  test('the MCP verify_quote tool gives the same `redirect`', async () => {
    const server = await serve(ROUTES);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--allow-private', '--timeout', '5', '--retries', '0'],
      stderr: 'pipe',
    });
    const client = new Client({ name: 'quotecheck-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const r = (await client.callTool({
        name: 'verify_quote',
        arguments: { url: `${server.origin}/shell`, quote: QUOTE },
      })) as CallToolResult;
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent).toMatchObject({
        label: 'no_match',
        diagnosis: 'empty',
        redirect: { target: `${server.origin}/quoted-charset`, via: 'meta refresh', found: true },
      });
    } finally {
      await client.close();
    }
  });
});
