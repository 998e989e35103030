// The loopback Wayback stub (src/wayback/stub/stub.ts): CDX queries, raw and rewritten replay; 429s and faults in front of
// it (test/support/wayback-faults.ts).
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startWaybackStub, type RunningWayback, type WaybackStubOptions } from '../../src/wayback/stub/stub.js';
import { tempDir } from '../support/helpers.js';
import { startFaultyStub, type WaybackFaults } from '../support/wayback-faults.js';
import { cdxDigest, type Capture } from '../../src/wayback/stub/captures.js';
import { loadCaptures } from '../../src/wayback/stub/captures-file.js';
import { padTimestamp, surtKey } from '../../src/wayback/stub/keys.js';

const running: RunningWayback[] = [];
afterEach(async () => {
  while (running.length) await running.pop()!.close();
});

async function start(opts: Partial<WaybackStubOptions> = {}): Promise<RunningWayback> {
  const wb = await startWaybackStub({ captures: CAPTURES, ...opts });
  running.push(wb);
  return wb;
}

/** The stub behind the faulty proxy. */
async function faulty(faults: WaybackFaults): Promise<RunningWayback> {
  const wb = await startFaultyStub({ captures: CAPTURES, ...faults });
  running.push(wb);
  return wb;
}

const get = (url: string): Promise<Response> => fetch(url, { redirect: 'manual' });
const sha256 = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');

async function cdxJson(wb: RunningWayback, query: string): Promise<string[][]> {
  const res = await get(`${wb.origin}/cdx/search/cdx?${query}&output=json`);
  expect(res.status).toBe(200);
  return (await res.json()) as string[][];
}

/** Timestamps of a JSON CDX answer (header row dropped, default field order). */
async function stamps(wb: RunningWayback, query: string): Promise<string[]> {
  const rows = await cdxJson(wb, `${query}&fl=timestamp`);
  if (rows.length === 0) return [];
  expect(rows[0]).toEqual(['timestamp']);
  return rows.slice(1).map((r) => r[0]!);
}

const PDF = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7919 + 13) % 256)); // binary, not UTF-8
const FEB =
  '<html><head><title>Feb</title></head><body class="x"><p>February text</p><a href="https://example.org/next">n</a></body></html>';

/** Captures of http://example.org/page in SURT-equivalent spellings, with 3xx and 404s among them. */
const CAPTURES: Capture[] = [
  {
    url: 'http://www.Example.org/page',
    timestamp: '20190615120000',
    body: '<html><body><p>June 2019</p></body></html>',
    headers: { 'content-type': 'text/html' },
  },
  { url: 'https://example.org/page', timestamp: '20200101000000', status: 301, location: '/page/new', body: '' },
  {
    url: 'http://example.org:80/page',
    timestamp: '20200215103000',
    body: FEB,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Last-Modified': 'Sat, 15 Feb 2020 10:00:00 GMT',
      'Set-Cookie': 'a=b',
    },
  },
  {
    url: 'http://example.org/page',
    timestamp: '20200229235959',
    status: 404,
    body: 'gone',
    headers: { 'content-type': 'text/plain' },
  },
  {
    url: 'http://example.org/page',
    timestamp: '20200301000000',
    body: FEB,
    headers: { 'content-type': 'text/html; charset=utf-8' },
  },
  {
    url: 'http://example.org/page',
    timestamp: '20210101000000',
    status: 302,
    mimetype: 'warc/revisit',
    location: 'https://example.org/elsewhere',
  },
  { url: 'http://example.org/page/new', timestamp: '20200101000001', body: '<html><body>new</body></html>' },
  {
    url: 'http://example.org/doc.pdf',
    timestamp: '20200601000000',
    body: PDF,
    headers: { 'content-type': 'application/pdf' },
  },
  {
    url: 'http://other.example.net:8080/x?b=2&a=1',
    timestamp: '20200101000000',
    body: 'query page',
    headers: { 'content-type': 'text/plain' },
  },
];
const PAGE_STAMPS = [
  '20190615120000',
  '20200101000000',
  '20200215103000',
  '20200229235959',
  '20200301000000',
  '20210101000000',
];

describe('surtKey', () => {
  test.each([
    ['http://www.Example.org/a/b?x=1', 'org,example)/a/b?x=1'],
    ['https://example.org:443/a/b?x=1', 'org,example)/a/b?x=1'],
    ['example.org/a/b?x=1', 'org,example)/a/b?x=1'],
    ['http://www2.example.org:80/', 'org,example)/'],
    ['http://example.org', 'org,example)/'],
    ['http://example.org:8080/A', 'org,example:8080)/a'],
    ['http://user:pw@example.org/a#frag', 'org,example)/a'],
    // Vectors of the IA canonicalizer (python surt tests, from WaybackURLKeyMakerTest.java):
    ['http://archive.org/goo/', 'org,archive)/goo'],
    ['http://archive.org/goo/?', 'org,archive)/goo'],
    ['http://archive.org/goo/?b&a', 'org,archive)/goo?a&b'],
    ['http://archive.org/goo/?a=2&b&a=1', 'org,archive)/goo?a=1&a=2&b'],
    [
      'http://archive.org/index.php?PHPSESSID=0123456789abcdefghijklemopqrstuv&action=profile;u=4221',
      'org,archive)/index.php?action=profile;u=4221',
    ],
    ['http://192.168.1.254/info/', '254,1,168,192)/info'],
    [
      'http://visit.webhosting.yahoo.com/visit.gif?&r=http%3A//web.archive.org/web/20090517140029/http%3A//anthonystewarthead.electric-chi.com/&b=Netscape%205.0%20%28Windows%3B%20en-US%29&s=1366x768&o=Win32&c=24&j=true&v=1.2',
      'com,yahoo,webhosting,visit)/visit.gif?&b=netscape%205.0%20(windows;%20en-us)&c=24&j=true&o=win32&r=http://web.archive.org/web/20090517140029/http://anthonystewarthead.electric-chi.com/&s=1366x768&v=1.2',
    ],
  ])('%s -> %s', (url, key) => {
    expect(surtKey(url)).toBe(key);
  });

  test('timestamps pad to the earliest / latest valid time', () => {
    expect(padTimestamp('2020', 'earliest')).toBe('20200101000000');
    expect(padTimestamp('2020', 'latest')).toBe('20201231235959');
    expect(padTimestamp('202002', 'latest')).toBe('20200229235959');
    expect(padTimestamp('202102', 'latest')).toBe('20210228235959');
    expect(padTimestamp('202004', 'latest')).toBe('20200430235959');
    expect(() => padTimestamp('2020x', 'latest')).toThrow();
  });
});

describe('CDX server', () => {
  test('JSON: header row, default field order, one string array per capture', async () => {
    const wb = await start();
    const rows = await cdxJson(wb, 'url=example.org/page');
    expect(rows[0]).toEqual(['urlkey', 'timestamp', 'original', 'mimetype', 'statuscode', 'digest', 'length']);
    expect(rows.slice(1).map((r) => r[1])).toEqual(PAGE_STAMPS);
    expect(rows[3]).toEqual([
      'org,example)/page',
      '20200215103000',
      'http://example.org:80/page', // original as captured
      'text/html',
      '200',
      cdxDigest(FEB),
      String(Buffer.byteLength(FEB)),
    ]);
    for (const row of rows) for (const v of row) expect(typeof v).toBe('string');
    expect(rows[2]).toMatchObject({ 2: 'https://example.org/page', 3: 'text/html', 4: '301' });
    expect(rows[6]).toMatchObject({ 3: 'warc/revisit', 4: '302' });
  });

  test('digest is the base32 SHA-1 of the payload', async () => {
    expect(cdxDigest('')).toBe('3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ'); // sha1("") = da39a3ee…, in base32
    const wb = await start();
    const rows = await cdxJson(
      wb,
      'url=example.org/page&fl=timestamp,digest,length&from=20200101000000&to=20200101000000',
    );
    expect(rows).toEqual([
      ['timestamp', 'digest', 'length'],
      ['20200101000000', '3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ', '0'],
    ]);
  });

  test('fl selects and orders the fields', async () => {
    const wb = await start();
    const rows = await cdxJson(wb, 'url=example.org/doc.pdf&fl=statuscode,original,timestamp');
    expect(rows).toEqual([
      ['statuscode', 'original', 'timestamp'],
      ['200', 'http://example.org/doc.pdf', '20200601000000'],
    ]);
    const bad = await get(`${wb.origin}/cdx/search/cdx?url=example.org/page&fl=timestamp,nosuchfield`);
    expect(bad.status).toBe(400);
  });

  test('from/to: partial timestamps padded (from earliest, to latest), both inclusive', async () => {
    const wb = await start();
    expect(await stamps(wb, 'url=example.org/page&from=2020&to=202002')).toEqual([
      '20200101000000',
      '20200215103000',
      '20200229235959',
    ]);
    expect(await stamps(wb, 'url=example.org/page&to=20200229')).toEqual(PAGE_STAMPS.slice(0, 4));
    expect(await stamps(wb, 'url=example.org/page&from=202003')).toEqual(['20200301000000', '20210101000000']);
    expect(await stamps(wb, 'url=example.org/page&from=20200229235959&to=20200229235959')).toEqual(['20200229235959']);
    expect(await stamps(wb, 'url=example.org/page&to=2019')).toEqual(['20190615120000']);
    expect((await get(`${wb.origin}/cdx/search/cdx?url=example.org/page&to=2020-01`)).status).toBe(400);
  });

  test('limit=N: the first N; limit=-N: the last N, still in ascending order', async () => {
    const wb = await start();
    expect(await stamps(wb, 'url=example.org/page&limit=2')).toEqual(PAGE_STAMPS.slice(0, 2));
    expect(await stamps(wb, 'url=example.org/page&limit=-3')).toEqual(PAGE_STAMPS.slice(3));
    expect(await stamps(wb, 'url=example.org/page&limit=-1&fastLatest=true')).toEqual(['20210101000000']);
    expect(await stamps(wb, 'url=example.org/page&limit=-100')).toEqual(PAGE_STAMPS);
    // The client's query (src/wayback/cdx.ts): latest 200s at or before a date.
    expect(await stamps(wb, 'url=example.org/page&to=20201231235959&filter=statuscode:200&limit=-2')).toEqual([
      '20200215103000',
      '20200301000000',
    ]);
  });

  test('filter: whole-value regex, repeatable; 3xx and 404 filtered by statuscode:200', async () => {
    const wb = await start();
    expect(await stamps(wb, 'url=example.org/page&filter=statuscode:200')).toEqual([
      '20190615120000',
      '20200215103000',
      '20200301000000',
    ]);
    expect(await stamps(wb, 'url=example.org/page&filter=statuscode:3..')).toEqual([
      '20200101000000',
      '20210101000000',
    ]);
    // matches(), not find(): "20" does not match "200", "html" does not match "text/html".
    expect(await stamps(wb, 'url=example.org/page&filter=statuscode:20')).toEqual([]);
    expect(await stamps(wb, 'url=example.org/page&filter=mimetype:html')).toEqual([]);
    expect(await stamps(wb, 'url=example.org/page&filter=mimetype:(?i)TEXT/.*&filter=statuscode:[24]0[04]')).toEqual([
      '20190615120000',
      '20200215103000',
      '20200229235959',
      '20200301000000',
    ]);
    expect((await get(`${wb.origin}/cdx/search/cdx?url=example.org/page&filter=nosuch:1`)).status).toBe(400);
  });

  test('no results: JSON body is [] and text body is empty', async () => {
    const wb = await start();
    const res = await get(`${wb.origin}/cdx/search/cdx?url=never.example/&output=json`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('[]');
    expect(await cdxJson(wb, 'url=example.org/page&from=2030')).toEqual([]);
    const plain = await get(`${wb.origin}/cdx/search/cdx?url=never.example/`);
    expect(await plain.text()).toBe('');
  });

  test('text output: one line per capture, fields separated by single spaces', async () => {
    const wb = await start();
    const res = await get(
      `${wb.origin}/cdx/search/cdx?url=example.org/page&from=2020&to=202002&fl=timestamp,statuscode,original`,
    );
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe(
      '20200101000000 301 https://example.org/page\n20200215103000 200 http://example.org:80/page\n20200229235959 404 http://example.org/page\n',
    );
    const full = (await (await get(`${wb.origin}/cdx/search/cdx?url=example.org/doc.pdf`)).text()).trimEnd().split(' ');
    expect(full).toEqual([
      'org,example)/doc.pdf',
      '20200601000000',
      'http://example.org/doc.pdf',
      'application/pdf',
      '200',
      cdxDigest(PDF),
      '3000',
    ]);
  });

  test('SURT matching: www., case, scheme and default port do not matter; other ports and query order are keyed', async () => {
    const wb = await start();
    for (const u of [
      'example.org/page',
      'http://www.example.org/page',
      'HTTPS://WWW.EXAMPLE.ORG:443/page',
      'http://example.org:80/page/',
    ]) {
      expect(await stamps(wb, `url=${encodeURIComponent(u)}`), u).toEqual(PAGE_STAMPS);
    }
    expect(await stamps(wb, `url=${encodeURIComponent('other.example.net/x?a=1&b=2')}`)).toEqual([]);
    expect(await stamps(wb, `url=${encodeURIComponent('http://other.example.net:8080/x?a=1&b=2')}`)).toEqual([
      '20200101000000',
    ]);
    const rows = await cdxJson(
      wb,
      `url=${encodeURIComponent('http://other.example.net:8080/x?a=1&b=2')}&fl=urlkey,original`,
    );
    expect(rows[1]).toEqual(['net,example,other:8080)/x?a=1&b=2', 'http://other.example.net:8080/x?b=2&a=1']);
  });

  test('an exact url only: matchType, wildcards, collapse, offset, paging and ! filters answer 400 naming them', async () => {
    const wb = await start();
    expect(await stamps(wb, 'url=example.org/page/new')).toEqual(['20200101000001']);
    expect(await stamps(wb, 'url=example.org/page/new&matchType=exact')).toEqual(['20200101000001']);
    for (const [query, named] of [
      ['url=example.org/page&matchType=prefix', 'the matchType parameter'],
      ['url=example.org&matchType=host', 'the matchType parameter'],
      ['url=example.org/page*', 'the wildcard url "example.org/page*"'],
      ['url=*.example.net', 'the wildcard url "*.example.net"'],
      ['url=example.org/page&collapse=digest', 'the collapse parameter'],
      ['url=example.org/page&offset=2', 'the offset parameter'],
      ['url=example.org/page&page=1', 'the page parameter'],
      ['url=example.org/page&filter=!statuscode:200', 'the negated filter "!statuscode:200"'],
    ]) {
      const res = await get(`${wb.origin}/cdx/search/cdx?${query}&output=json`);
      expect(res.status, query).toBe(400);
      expect(await res.text(), query).toBe(
        `wayback stub: ${named} is not served; the stub serves only the CDX queries quotecheck's client sends ` +
          '(an exact url, from, to, filter=field:regex, output=json, fl, limit)\n',
      );
    }
  });

  test('no url: 400 with a short text', async () => {
    const wb = await start();
    const res = await get(`${wb.origin}/cdx/search/cdx?output=json`);
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/url/);
  });
});

describe('replay', () => {
  test('id_ with an exact timestamp: the exact bytes, Content-Type, Memento-Datetime, X-Archive-Orig-*, Link', async () => {
    const wb = await start();
    const res = await get(`${wb.origin}/web/20200601000000id_/http://example.org/doc.pdf`);
    expect(res.status).toBe(200);
    expect(sha256(new Uint8Array(await res.arrayBuffer()))).toBe(sha256(PDF));
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('memento-datetime')).toBe('Mon, 01 Jun 2020 00:00:00 GMT');
    expect(res.headers.get('link')).toContain('<http://example.org/doc.pdf>; rel="original"');

    const html = await get(`${wb.origin}/web/20200215103000id_/http://example.org/page`);
    expect(await html.text()).toBe(FEB);
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html.headers.get('memento-datetime')).toBe('Sat, 15 Feb 2020 10:30:00 GMT');
    expect(html.headers.get('x-archive-orig-last-modified')).toBe('Sat, 15 Feb 2020 10:00:00 GMT');
    expect(html.headers.get('x-archive-orig-content-type')).toBe('text/html; charset=utf-8');
    expect(html.headers.get('x-archive-orig-set-cookie')).toBe('a=b');
    expect(html.headers.get('set-cookie')).toBeNull();
  });

  test('a 404 capture replays as 404 with its bytes (it is a memento)', async () => {
    const wb = await start();
    const res = await get(`${wb.origin}/web/20200229235959id_/http://example.org/page`);
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('gone');
    expect(res.headers.get('memento-datetime')).toBe('Sat, 29 Feb 2020 23:59:59 GMT');
  });

  test('non-exact timestamp: 302 to the nearest capture (any status), no Memento-Datetime', async () => {
    const wb = await start();
    const cases: [string, string][] = [
      ['20200228000000', `/web/20200229235959id_/http://example.org/page`], // the 404 is nearer than the 200 of Feb 15
      ['20200210000000', `/web/20200215103000id_/http://example.org:80/page`],
      ['2019', `/web/20200101000000id_/https://example.org/page`], // 2019 = 20191231235959 (latest), 1 s before the 301
      ['20990101000000', `/web/20210101000000id_/http://example.org/page`],
    ];
    for (const [ts, location] of cases) {
      const res = await get(`${wb.origin}/web/${ts}id_/http://example.org/page`);
      expect(res.status, ts).toBe(302);
      expect(res.headers.get('location'), ts).toBe(`${wb.origin}${location}`);
      expect(res.headers.get('memento-datetime'), ts).toBeNull();
    }
    // Following the redirect lands on a memento.
    const followed = await fetch(`${wb.origin}/web/20200210id_/http://example.org/page`);
    expect(followed.status).toBe(200);
    expect(await followed.text()).toBe(FEB);
  });

  test('a 3xx capture is served with its status and the Location rewritten into the archive', async () => {
    const wb = await start();
    const res = await get(`${wb.origin}/web/20200101000000id_/https://example.org/page`);
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe(`${wb.origin}/web/20200101000000id_/https://example.org/page/new`);
    expect(res.headers.get('memento-datetime')).toBe('Wed, 01 Jan 2020 00:00:00 GMT');
    const revisit = await get(`${wb.origin}/web/20210101000000id_/http://example.org/page`);
    expect(revisit.status).toBe(302);
    expect(revisit.headers.get('location')).toBe(`${wb.origin}/web/20210101000000id_/https://example.org/elsewhere`);
  });

  test('unknown URL: 404 "not archived" page without Memento-Datetime', async () => {
    const wb = await start();
    const res = await get(`${wb.origin}/web/20200101000000id_/http://never.example/`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toContain('Wayback Machine has not archived that URL.');
    expect(res.headers.get('memento-datetime')).toBeNull();
  });

  test('the original URL in the path: raw with its own query, percent-encoded, or another SURT spelling', async () => {
    const wb = await start();
    const original = 'http://other.example.net:8080/x?b=2&a=1';
    for (const u of [
      original,
      encodeURIComponent(original),
      'http://other.example.net:8080/x?a=1&b=2',
      'http:/other.example.net:8080/x?b=2&a=1',
    ]) {
      const res = await get(`${wb.origin}/web/20200101000000id_/${u}`);
      expect(res.status, u).toBe(200);
      expect(await res.text(), u).toBe('query page');
    }
    expect((await get(`${wb.origin}/web/20200101000000id_/http://other.example.net:8080/x?b=3&a=1`)).status).toBe(404);
    expect((await get(`${wb.origin}/web/20200101000000id_/http://other.example.net/x?b=2&a=1`)).status).toBe(404);
  });

  test('without id_ the page is rewritten: toolbar right after <body>, links into the archive', async () => {
    const wb = await start();
    const raw = await (await get(`${wb.origin}/web/20200215103000id_/http://example.org/page`)).text();
    const res = await get(`${wb.origin}/web/20200215103000/http://example.org/page`);
    expect(res.status).toBe(200);
    expect(res.headers.get('memento-datetime')).toBe('Sat, 15 Feb 2020 10:30:00 GMT');
    const rewritten = await res.text();
    expect(raw).not.toContain('wm-ipp');
    expect(sha256(rewritten)).not.toBe(sha256(raw));
    expect(rewritten).toMatch(/^<html><head><title>Feb<\/title><\/head><body class="x"><div id="wm-ipp">/);
    expect(rewritten).toContain(`href="${wb.origin}/web/20200215103000/https://example.org/next"`);
    // Redirect captures keep the (absent) flag, and a dateless request goes to the latest capture.
    const redirect = await get(`${wb.origin}/web/20200101000000/https://example.org/page`);
    expect(redirect.headers.get('location')).toBe(`${wb.origin}/web/20200101000000/https://example.org/page/new`);
    const dateless = await get(`${wb.origin}/web/http://example.org/page`);
    expect(dateless.headers.get('location')).toBe(`${wb.origin}/web/20210101000000/http://example.org/page`);
    // Non-HTML is never rewritten.
    const pdf = await get(`${wb.origin}/web/20200601000000/http://example.org/doc.pdf`);
    expect(sha256(new Uint8Array(await pdf.arrayBuffer()))).toBe(sha256(PDF));
  });
});

describe('methods', () => {
  test('HEAD answers the headers without the body; other methods 405 with Allow', async () => {
    const wb = await start();
    const head = await fetch(`${wb.origin}/web/20200601000000id_/http://example.org/doc.pdf`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(PDF.length));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    const post = await fetch(`${wb.origin}/cdx/search/cdx?url=example.org/page`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('faults in front of the stub (test/support/wayback-faults.ts), and the request log', () => {
  test('fail429: the first count requests (any path) get 429 with the given Retry-After', async () => {
    const wb = await faulty({ fail429: { count: 2, retryAfter: '7' } });
    const a = await get(`${wb.origin}/cdx/search/cdx?url=example.org/page`);
    const b = await get(`${wb.origin}/web/20200601000000id_/http://example.org/doc.pdf`);
    const c = await get(`${wb.origin}/web/20200601000000id_/http://example.org/doc.pdf`);
    expect([a.status, b.status, c.status]).toEqual([429, 429, 200]);
    expect(a.headers.get('retry-after')).toBe('7');
    expect(a.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(wb.requests.map((r) => r.status)).toEqual([429, 429, 200]);

    const date = 'Wed, 21 Oct 2015 07:28:00 GMT';
    const wb2 = await faulty({ fail429: { count: 1, retryAfter: date } });
    expect((await get(`${wb2.origin}/x`)).headers.get('retry-after')).toBe(date);
    const wb3 = await faulty({ fail429: { count: 1 } });
    const r3 = await get(`${wb3.origin}/x`);
    expect(r3.status).toBe(429);
    expect(r3.headers.has('retry-after')).toBe(false);
  });

  test('rateLimit: more than perMinute requests in the sliding window get 429 with Retry-After', async () => {
    const wb = await faulty({ rateLimit: { perMinute: 3, retryAfterSec: 5, windowMs: 400 } });
    const url = `${wb.origin}/cdx/search/cdx?url=example.org/page`;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await get(url)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await get(url);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.text()).toMatch(/Too Many Requests/);
    await new Promise((r) => setTimeout(r, 450)); // the window slides past all of them
    expect((await get(url)).status).toBe(200);
  });

  test('down: every request 503; delayMs delays the answer', async () => {
    const down = await faulty({ down: true });
    expect((await get(`${down.origin}/cdx/search/cdx?url=example.org/page`)).status).toBe(503);
    expect((await get(`${down.origin}/web/20200601000000id_/http://example.org/doc.pdf`)).status).toBe(503);
    const slow = await faulty({ delayMs: 150 });
    const t0 = Date.now();
    expect((await get(`${slow.origin}/web/20200601000000id_/http://example.org/doc.pdf`)).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
  });

  test('the request log records path, arrival time and status of every request', async () => {
    const wb = await start();
    const t0 = Date.now();
    await get(`${wb.origin}/cdx/search/cdx?url=example.org/page&output=json`);
    await get(`${wb.origin}/web/2020id_/http://example.org/page?q=1`);
    await get(`${wb.origin}/nowhere`);
    const t1 = Date.now();
    expect(wb.requests.map(({ path, status }) => ({ path, status }))).toEqual([
      { path: '/cdx/search/cdx?url=example.org/page&output=json', status: 200 },
      { path: '/web/2020id_/http://example.org/page?q=1', status: 404 },
      { path: '/nowhere', status: 404 },
    ]);
    for (const r of wb.requests) {
      expect(r.at).toBeGreaterThanOrEqual(t0);
      expect(r.at).toBeLessThanOrEqual(t1);
    }
  });
});

describe('captures and lifecycle', () => {
  test('loadCaptures reads a JSON table; files are relative to baseDir', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'page.html'), '<html><body>from file</body></html>');
    const table = join(dir, 'wayback.json');
    writeFileSync(
      table,
      JSON.stringify([
        {
          url: 'https://example.com/',
          timestamp: '20240102030405',
          file: 'page.html',
          headers: { 'content-type': 'text/html' },
        },
      ]),
    );
    const captures = loadCaptures(table);
    const wb = await start({ captures, baseDir: dir });
    const res = await get(`${wb.origin}/web/20240102030405id_/https://example.com/`);
    expect(await res.text()).toBe('<html><body>from file</body></html>');

    writeFileSync(table, '{"not": "an array"}');
    expect(() => loadCaptures(table)).toThrow(/JSON array/);
    writeFileSync(table, '[{"url": "http://x.org/", "timestamp": "20201301000000x"}]');
    expect(() => loadCaptures(table)).toThrow(/timestamp/);
  });

  test('refuses a non-loopback host and a missing capture file', async () => {
    await expect(startWaybackStub({ captures: [], host: '0.0.0.0' })).rejects.toThrow(/loopback/);
    await expect(
      startWaybackStub({
        captures: [{ url: 'http://x.org/', timestamp: '20200101000000', file: 'missing.html' }],
        baseDir: tempDir(),
      }),
    ).rejects.toThrow(/cannot read/);
  });

  test('close() ends promptly with keep-alive and in-flight (delayed) connections open', async () => {
    const wb = await startFaultyStub({ captures: CAPTURES, delayMs: 20_000 });
    const idle = await startWaybackStub({ captures: CAPTURES });
    await (await fetch(`${idle.origin}/cdx/search/cdx?url=example.org/page`)).text(); // leaves a keep-alive socket
    const pending = fetch(`${wb.origin}/cdx/search/cdx?url=example.org/page`).then(
      () => 'answered',
      () => 'aborted',
    );
    while (wb.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    const t0 = Date.now();
    await Promise.all([wb.close(), idle.close()]);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(await pending).toBe('aborted');
    expect(wb.requests[0]!.status).toBe(0); // never answered
    await expect(fetch(`${idle.origin}/cdx/search/cdx?url=example.org/page`)).rejects.toThrow();
  });
});
