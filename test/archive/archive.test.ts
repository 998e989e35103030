// WARC record and replay: every exchange of real fetches through the fetch layer recorded, read back (warcio's parser and an
// independent one), cut at many offsets, replayed with no network, Wayback captures filed under their URL, subsets, concurrency.
// Fixed fast-check seeds: a failure names its seed and replays the same way.
import { createHash } from 'node:crypto';
import dns from 'node:dns';
import { createReadStream, readFileSync, writeFileSync } from 'node:fs';
import type http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { Agent, fetch, type Dispatcher } from 'undici';
import { WARCParser } from 'warcio';
import { beforeAll, describe, expect, test } from 'vitest';
import {
  ArchiveError,
  ReplayDispatcher,
  WarcRecorder,
  openReplay,
  readArchive,
  selectForSources,
  writeArchive,
  type Archive,
} from '../../src/archive/index.js';
import { fetchSource, type FetchSettings, type SourceOutcome } from '../../src/fetch/source.js';
import { fileTempDir, serve, closedPort } from '../support/helpers.js';
import { gzipMembers, handParse, httpHeader } from '../support/warc-hand.js';

const html = { 'content-type': 'text/html; charset=utf-8' };
const page = (words: string) =>
  `<!DOCTYPE html><html><head><title>${words}</title></head><body><article><p>${words}</p></article></body></html>`;
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** Realistic settings (as src/check.ts builds them) with fast backoff, and a 64 KiB cap so one page runs over it. */
function settings(dispatcher: Dispatcher | undefined, over: Partial<FetchSettings> = {}): FetchSettings {
  return {
    timeoutMs: 3_000,
    maxBytes: 64 * 1024,
    maxRedirects: 10,
    userAgent: 'quotecheck-test/0.1',
    retries: 2,
    backoffMinMs: 5,
    backoffMaxMs: 20,
    retryAfterCapMs: 100,
    budgetMs: 15_000,
    dispatcher,
    ...over,
  };
}

/** What a replay must reproduce of an outcome (the replay adds Memento-Datetime; nothing else may differ). */
function summary(o: SourceOutcome) {
  const headers = { ...(o.headers ?? {}) };
  delete headers['memento-datetime'];
  return o.ok
    ? {
        ok: true,
        status: o.status,
        sha256: o.sha256,
        finalUrl: o.finalUrl,
        redirects: o.redirects,
        attempts: o.attempts,
        headers,
      }
    : {
        ok: false,
        error: o.error,
        status: o.status,
        finalUrl: o.finalUrl,
        attempts: o.attempts,
        message: o.message,
        body: o.body ? sha256(o.body) : undefined,
        headers,
      };
}

const folder = () => fileTempDir('quotecheck-archive-');

// ---------------------------------------------------------------------------------------------
// Network detector: any socket connect or DNS lookup while patched is counted (and refused).

async function withoutNetwork<T>(run: () => Promise<T>): Promise<{ result: T; touched: number }> {
  let touched = 0;
  const connect = net.Socket.prototype.connect;
  const lookup = dns.lookup;
  const promisesLookup = dns.promises.lookup;
  const refuse = (): never => {
    touched++;
    throw Object.assign(new Error('the network was touched'), { code: 'ETOUCHED' });
  };
  net.Socket.prototype.connect = refuse as unknown as typeof connect;
  dns.lookup = refuse as unknown as typeof lookup;
  dns.promises.lookup = refuse as unknown as typeof promisesLookup;
  try {
    const result = await run();
    return { result, touched };
  } finally {
    net.Socket.prototype.connect = connect;
    dns.lookup = lookup;
    dns.promises.lookup = promisesLookup;
  }
}

// ---------------------------------------------------------------------------------------------
// The recorded run: every kind of exchange, fetched one after the other through the fetch layer.

const BIG = Buffer.alloc(100 * 1024, 'big page text. ');
let dir: string;
let archivePath: string;
let archive: Archive;
let sources: Record<string, string>;
let live: Map<string, SourceOutcome>;
let recordedCount: number;

beforeAll(async () => {
  const server = await serve(
    [
      { path: '/plain', body: page('plain words on a plain page'), headers: html },
      { path: '/gz', body: page('compressed words '.repeat(200)), headers: html, gzip: true },
      { path: '/hop1', host: '127.0.0.1', redirect: { location: 'http://127.0.0.2:{port}/hop2', status: 301 } },
      {
        path: '/hop2',
        host: '127.0.0.2',
        redirect: { location: 'http://127.0.0.1:{port}/hop3#fragment', status: 307 },
      },
      { path: '/hop3', host: '127.0.0.1', redirect: { location: '/landing?x=1' } },
      { path: '/landing?x=1', body: page('the end of the redirect chain'), headers: html },
      {
        path: '/gated',
        body: page('behind the cookie gate'),
        headers: html,
        cookieGate: { name: 'consent', value: 'yes' },
      },
      {
        path: '/flaky',
        body: page('second time lucky'),
        headers: html,
        failFirst: { count: 1, status: 503, body: 'busy' },
      },
      { path: '/missing', status: 404, body: page('no such page'), headers: html },
      {
        // Over the 64 KiB cap, chunked, never finished: the client cancels it.
        path: '/big',
        handler: (_req: http.IncomingMessage, res: http.ServerResponse) => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write(BIG);
        },
      },
      {
        // Announces 5000 bytes, sends 1000, then the connection breaks.
        path: '/broken',
        handler: (_req: http.IncomingMessage, res: http.ServerResponse) => {
          res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '5000' });
          res.write(Buffer.alloc(1000, 'b'));
          setTimeout(() => res.socket?.destroy(), 20);
        },
      },
    ],
    ['127.0.0.1', '127.0.0.2'],
  );
  const o = server.origin;
  sources = {
    plain: `${o}/plain`,
    gz: `${o}/gz`,
    chain: `${o}/hop1`,
    gated: `${o}/gated`,
    flaky: `${o}/flaky`,
    missing: `${o}/missing`,
    big: `${o}/big`,
    broken: `${o}/broken`,
    refused: `http://127.0.0.1:${await closedPort()}/`,
    // fetch() refuses port 9 (a "bad port") before any dispatcher sees it: nothing to record, and the replay fails the same way.
    badPort: 'http://127.0.0.1:9/',
  };
  dir = folder();
  archivePath = join(dir, 'run.warc.gz');
  const recorder = await WarcRecorder.open(archivePath, { software: 'quotecheck/test' });
  const agent = new Agent({ keepAliveTimeout: 1_000 });
  const dispatcher = agent.compose(recorder.interceptor());
  live = new Map();
  for (const url of Object.values(sources)) live.set(url, await fetchSource(url, settings(dispatcher)));
  await recorder.close();
  await recorder.close(); // idempotent
  recordedCount = recorder.records();
  await agent.close();
  await server.close();
  archive = await readArchive(archivePath);
});

describe('recording through the fetch layer', () => {
  test('the live run saw what the server meant', () => {
    const get = (k: string) => live.get(sources[k]!)!;
    expect(get('plain')).toMatchObject({ ok: true, status: 200 });
    expect(get('gz')).toMatchObject({ ok: true, status: 200 });
    expect(get('chain')).toMatchObject({
      ok: true,
      finalUrl: sources.plain!.replace('/plain', '/landing?x=1'),
      redirects: [
        sources.chain,
        sources.chain!.replace('127.0.0.1', '127.0.0.2').replace('hop1', 'hop2'),
        sources.chain!.replace('hop1', 'hop3'),
      ],
    });
    expect(get('gated')).toMatchObject({ ok: true, attempts: 1 });
    expect(get('flaky')).toMatchObject({ ok: true, attempts: 2 });
    expect(get('missing')).toMatchObject({ ok: false, error: 'http_status', status: 404 });
    expect(get('big')).toMatchObject({ ok: false, error: 'too_large' });
    expect(get('broken')).toMatchObject({ ok: false, error: 'connection', attempts: 3 });
    expect(get('refused')).toMatchObject({
      ok: false,
      error: 'connection',
      attempts: 3,
      message: expect.stringMatching(/ECONNREFUSED/),
    });
    expect(get('badPort')).toMatchObject({
      ok: false,
      error: 'connection',
      attempts: 3,
      message: expect.stringMatching(/bad port/),
    });
  });

  test('every exchange is a request and a response (or metadata) record, linked, with the HTTP message as received', () => {
    const byType = (t: string) => archive.records.filter((r) => r.type === t);
    expect(archive.cut).toBeUndefined();
    expect(archive.records[0]!.type).toBe('warcinfo');
    expect(archive.records[0]!.fields).toMatchObject({ software: 'quotecheck/test', format: 'WARC File Format 1.1' });
    // plain 1, gz 1, chain 4, gated 2, flaky 2, missing 1, big 1, broken 3; refused 3 without response
    expect(byType('response')).toHaveLength(15);
    expect(byType('metadata')).toHaveLength(3);
    expect(byType('request')).toHaveLength(18);
    expect(archive.records).toHaveLength(1 + 15 + 3 + 18);
    expect(recordedCount).toBe(archive.records.length);
    const byId = new Map(archive.records.map((r) => [r.recordId, r]));
    const position = new Map(archive.records.map((r, i) => [r, i]));
    for (const r of [...byType('response'), ...byType('metadata')]) {
      const request = byId.get(r.concurrentTo!)!;
      expect(request.type).toBe('request');
      expect(request.targetUri).toBe(r.targetUri);
      expect(request.concurrentTo).toBe(r.recordId);
      expect(request.date).toBe(r.date);
      expect(position.get(request)!).toBeLessThan(position.get(r)!);
      expect(r.date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    }
    const responses = (url: string) => byType('response').filter((r) => r.targetUri === url);
    // The gzip page is stored as sent: still gzip, Content-Encoding kept.
    const gz = responses(sources.gz!)[0]!;
    expect(gz.payload.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(gunzipSync(gz.payload).toString()).toContain('compressed words');
    expect(gz.http!.headers.find(([k]) => k.toLowerCase() === 'content-encoding')?.[1]).toBe('gzip');
    // Retries: 503 then 200, in order.
    expect(responses(sources.flaky!).map((r) => r.http!.status)).toEqual([503, 200]);
    expect(responses(sources.gated!).map((r) => r.http!.status)).toEqual([302, 200]);
    expect(responses(sources.gated!)[0]!.http!.headers).toContainEqual(['set-cookie', 'consent=yes; Path=/']);
    // The request carries the cookie the gate set.
    const gatedRequests = byType('request').filter((r) => r.targetUri === sources.gated);
    expect(gatedRequests[1]!.request!.headers.find(([k]) => k.toLowerCase() === 'cookie')?.[1]).toBe('consent=yes');
    expect(gatedRequests[0]!.request).toMatchObject({ method: 'GET', target: '/gated', protocol: 'HTTP/1.1' });
    expect(gatedRequests[0]!.request!.headers[0]).toEqual(['Host', new URL(sources.gated!).host]);
    // Cancelled by the client over the cap: truncated "length", chunked framing gone, Content-Length the stored length.
    const big = responses(sources.big!)[0]!;
    expect(big.truncated).toBe('length');
    expect(big.payload.length).toBeGreaterThan(64 * 1024);
    expect(BIG.subarray(0, big.payload.length).equals(big.payload)).toBe(true);
    const header = (r: typeof big, name: string) =>
      r.http!.headers.filter(([k]) => k.toLowerCase() === name.toLowerCase()).map(([, v]) => v);
    expect(header(big, 'transfer-encoding')).toEqual([]);
    expect(header(big, 'content-length')).toEqual([String(big.payload.length)]);
    expect(header(big, 'x-archive-orig-transfer-encoding')).toEqual(['chunked']);
    // Broken connection: truncated "disconnect", what arrived kept, the announced length kept aside.
    const broken = responses(sources.broken!);
    expect(broken.map((r) => r.truncated)).toEqual(['disconnect', 'disconnect', 'disconnect']);
    expect(broken[0]!.payload.equals(Buffer.alloc(1000, 'b'))).toBe(true);
    expect(header(broken[0]!, 'content-length')).toEqual(['1000']);
    expect(header(broken[0]!, 'x-archive-orig-content-length')).toEqual(['5000']);
    // No response at all: request + metadata with the error.
    for (const m of byType('metadata')) {
      expect(m.targetUri).toBe(sources.refused);
      expect(m.fields).toMatchObject({
        'fetch-error-code': 'ECONNREFUSED',
        'fetch-error-message': `connect ECONNREFUSED ${new URL(sources.refused!).host}`,
      });
      expect(m.warcHeaders).toContainEqual(['Content-Type', 'application/warc-fields']);
    }
  });

  test('warcio parses the archive: every record, types and counts', async () => {
    const counts: Record<string, number> = {};
    const contentTypes = new Set<string>();
    for await (const record of new WARCParser(createReadStream(archivePath))) {
      counts[record.warcType] = (counts[record.warcType] ?? 0) + 1;
      contentTypes.add(`${record.warcType} ${record.warcContentType}`);
      expect(record.warcHeaders.statusline).toBe('WARC/1.1');
      expect(record.warcHeader('WARC-Record-ID')).toMatch(/^<urn:uuid:[0-9a-f-]{36}>$/);
      if (record.warcType !== 'warcinfo') expect(record.warcTargetURI).toMatch(/^http:\/\//);
      if (record.warcType === 'response') expect(record.httpHeaders?.statusCode).toBeGreaterThanOrEqual(200);
      await record.readFully(false);
    }
    expect(counts).toEqual({ warcinfo: 1, request: 18, response: 15, metadata: 3 });
    expect([...contentTypes].sort()).toEqual([
      'metadata application/warc-fields',
      'request application/http; msgtype=request',
      'response application/http; msgtype=response',
      'warcinfo application/warc-fields',
    ]);
  });

  test('an independent reader finds one gzip member per record and every digest right', () => {
    const file = readFileSync(archivePath);
    const members = gzipMembers(file);
    expect(members).toHaveLength(archive.records.length);
    members.forEach((m, i) => {
      expect(archive.records[i]!.offset).toBe(m.offset);
      expect(archive.records[i]!.raw.equals(m.bytes)).toBe(true);
      const r = handParse(m.bytes);
      expect(r.fields.get('warc-record-id')).toBe(archive.records[i]!.recordId);
      if (r.fields.get('warc-type') === 'response') {
        // Transfer-Encoding framing is gone below fetch: the stored message must not claim it.
        expect(httpHeader(r, 'transfer-encoding')).toBeUndefined();
        expect(httpHeader(r, 'content-length')).toBe(String(r.payload.length));
        expect(r.fields.get('content-type')).toBe('application/http; msgtype=response');
      }
    });
  });

  test('cut at many offsets: exactly the whole records before the cut, and the cut reported', async () => {
    const file = readFileSync(archivePath);
    const ends = archive.records.map((r) => r.offset + r.raw.length);
    const cutDir = folder();
    let n = 0;
    const check = async (cut: number): Promise<void> => {
      const path = join(cutDir, `cut-${n++}.warc.gz`);
      writeFileSync(path, file.subarray(0, cut));
      if (cut === 0) {
        await expect(readArchive(path)).rejects.toThrow(ArchiveError);
        return;
      }
      const read = await readArchive(path);
      const whole = ends.filter((end) => end <= cut).length;
      expect(read.records.map((r) => r.recordId)).toEqual(archive.records.slice(0, whole).map((r) => r.recordId));
      read.records.forEach((r, i) => {
        expect(r.raw.equals(archive.records[i]!.raw)).toBe(true);
      });
      if (ends.includes(cut)) expect(read.cut).toBeUndefined();
      else
        expect(read.cut).toEqual({
          offset: whole === 0 ? 0 : ends[whole - 1],
          reason: expect.stringMatching(/ends inside a record/),
        });
    };
    const offsets = new Set<number>([0, 1, 2, 9, 10, 11, file.length - 1, file.length]);
    for (const end of ends)
      for (const d of [-9, -8, -1, 0, 1, 10]) if (end + d >= 0 && end + d <= file.length) offsets.add(end + d);
    for (const cut of offsets) await check(cut);
    await fc.assert(fc.asyncProperty(fc.integer({ min: 0, max: file.length }), check), { numRuns: 60, seed: 20240601 });
  });
});

describe('replay', () => {
  test('every URL replays as it went live: status, body bytes, final URL, redirects, failure kinds, retries in order', async () => {
    const replay = await openReplay(archivePath);
    for (const [url, outcome] of live) {
      const replayed = await fetchSource(url, settings(replay));
      expect(summary(replayed), url).toEqual(summary(outcome));
    }
    // The pipeline learns when the text was recorded.
    const plain = await fetchSource(sources.plain!, settings(replay));
    const record = archive.records.find((r) => r.type === 'response' && r.targetUri === sources.plain)!;
    expect(plain.headers?.['memento-datetime']).toBe(new Date(record.date).toUTCString());
    await replay.close();
  });

  test('property: replay never opens a socket or resolves a name; unrecorded URLs are "not in the archive"', async () => {
    // The detector works: a real dispatcher under it is caught.
    const agent = new Agent();
    const caught = await withoutNetwork(() => fetchSource(sources.refused!, settings(agent, { retries: 0 })));
    expect(caught.touched).toBeGreaterThan(0);
    await agent.close();

    const recorded = Object.values(sources);
    const recordedKeys = new Set([...archive.records.map((r) => r.targetUri), ...recorded]);
    const unrecorded = fc
      .record({
        host: fc.integer({ min: 1, max: 254 }),
        port: fc.integer({ min: 20_000, max: 60_000 }) /* clear of fetch's bad ports */,
        path: fc.stringMatching(/^[a-z0-9]{1,8}$/),
      })
      .map(({ host, port, path }) => `http://127.0.0.${host}:${port}/u/${path}`)
      .filter((url) => !recordedKeys.has(url));
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray(recorded),
        fc.array(unrecorded, { maxLength: 4 }),
        async (known, unknown) => {
          const replay = new ReplayDispatcher(archive);
          const { result, touched } = await withoutNetwork(async () => {
            const outcomes: [string, SourceOutcome][] = [];
            for (const url of [...known, ...unknown]) outcomes.push([url, await fetchSource(url, settings(replay))]);
            return outcomes;
          });
          expect(touched).toBe(0);
          for (const [url, outcome] of result) {
            if (known.includes(url)) expect(summary(outcome)).toEqual(summary(live.get(url)!));
            else
              expect(outcome).toMatchObject({
                ok: false,
                error: 'not_archived',
                attempts: 1,
                message: `not in the archive (replaying ${archivePath})`,
              });
          }
        },
      ),
      { numRuns: 25, seed: 4242 },
    );
  });

  test('abort: a replayed request rejects promptly, before the response and in the middle of a body', async () => {
    const big = Buffer.alloc(2 << 20, 'a long body. ');
    const server = await serve([{ path: '/long', body: big, headers: { 'content-type': 'text/plain' } }]);
    const path = join(folder(), 'long.warc.gz');
    const recorder = await WarcRecorder.open(path);
    const agent = new Agent();
    const got = await fetch(`${server.origin}/long`, { dispatcher: agent.compose(recorder.interceptor()) });
    expect(Buffer.from(await got.arrayBuffer()).equals(big)).toBe(true);
    await recorder.close();
    await agent.close();
    await server.close();

    const replay = await openReplay(path);
    // Before the response: fetch() itself rejects.
    const early = new AbortController();
    const started = Date.now();
    const pending = fetch(`${server.origin}/long`, { dispatcher: replay, signal: early.signal });
    early.abort();
    await expect(pending).rejects.toThrow(/abort/i);
    // In the middle of the body: reading it rejects.
    const middle = new AbortController();
    const res = await fetch(`${server.origin}/long`, { dispatcher: replay, signal: middle.signal });
    const reader = res.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    middle.abort();
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) return 'finished';
      })(),
    ).rejects.toThrow(/abort/i);
    expect(Date.now() - started).toBeLessThan(1_000);
    // The whole body replays too, and through an interceptor composed on top (the controller API).
    const composed = replay.compose((dispatch) => (opts, handler) => dispatch(opts, handler));
    const whole = await fetch(`${server.origin}/long`, { dispatcher: composed });
    expect(Buffer.from(await whole.arrayBuffer()).equals(big)).toBe(true);
  });
});

describe('Wayback captures', () => {
  const CAPTURED = page('the words as archived in 2020');
  const MEMENTO = 'Wed, 01 Jan 2020 00:00:00 GMT';
  const ORIGINAL = 'http://example.org/x';

  async function recordWayback() {
    const server = await serve([
      {
        path: '/web/20200101000000id_/http://example.org/x',
        handler: (_req, res) => {
          res.writeHead(200, {
            'content-type': 'text/html',
            'memento-datetime': MEMENTO,
            'content-length': String(Buffer.byteLength(CAPTURED)),
          });
          res.end(CAPTURED);
        },
      },
      // Wayback's redirect to the nearest timestamp: no Memento-Datetime, an ordinary exchange.
      {
        path: '/web/2020id_/http://example.org/x',
        redirect: { location: '/web/20200101000000id_/http://example.org/x' },
      },
      {
        path: '/cdx/search/cdx?url=http%3A%2F%2Fexample.org%2Fx&output=json',
        body: JSON.stringify([
          ['timestamp', 'original'],
          ['20200101000000', ORIGINAL],
        ]),
        headers: { 'content-type': 'application/json' },
        gzip: true,
      },
    ]);
    const base = server.origin;
    const urls = {
      cdx: `${base}/cdx/search/cdx?url=http%3A%2F%2Fexample.org%2Fx&output=json`,
      nearest: `${base}/web/2020id_/${ORIGINAL}`,
      capture: `${base}/web/20200101000000id_/${ORIGINAL}`,
    };
    const path = join(folder(), 'wayback.warc.gz');
    const recorder = await WarcRecorder.open(path, { waybackBase: `${base}/` });
    const agent = new Agent();
    const dispatcher = agent.compose(recorder.interceptor());
    const before = new Date();
    const outcomes = {
      cdx: await fetchSource(urls.cdx, settings(dispatcher)),
      nearest: await fetchSource(urls.nearest, settings(dispatcher)),
    };
    await recorder.close();
    await agent.close();
    await server.close();
    return { base, urls, path, outcomes, before };
  }

  test('a capture is filed under its original URL and date, with where and when it was fetched', async () => {
    const { urls, path, outcomes, before } = await recordWayback();
    expect(outcomes.nearest).toMatchObject({ ok: true, finalUrl: urls.capture, redirects: [urls.nearest] });
    const { records } = await readArchive(path);
    const hop = records.filter((r) => r.targetUri === urls.nearest);
    expect(hop.map((r) => r.type)).toEqual(['request', 'response']);
    expect(hop.every((r) => r.sourceUri === undefined)).toBe(true);
    expect(records.filter((r) => r.targetUri === urls.cdx).map((r) => r.type)).toEqual(['request', 'response']);
    const capture = records.filter((r) => r.sourceUri === urls.capture);
    expect(capture.map((r) => r.type)).toEqual(['request', 'response']);
    for (const r of capture) {
      expect(r.targetUri).toBe(ORIGINAL);
      expect(r.date).toBe('2020-01-01T00:00:00Z');
      const created = r.warcHeaders.find(([k]) => k === 'WARC-Creation-Date')?.[1];
      expect(created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(new Date(created!).getTime()).toBeGreaterThanOrEqual(before.getTime());
    }
    expect(capture[1]!.payload.toString()).toBe(CAPTURED);
  });

  test('replay serves a capture for its Wayback URL, never for a live request of the original URL', async () => {
    const { urls, path, outcomes } = await recordWayback();
    const replay = await openReplay(path);
    const { result, touched } = await withoutNetwork(async () => ({
      nearest: await fetchSource(urls.nearest, settings(replay)),
      cdx: await fetchSource(urls.cdx, settings(replay)),
      original: await fetchSource(ORIGINAL, settings(replay)),
    }));
    expect(touched).toBe(0);
    expect(summary(result.nearest)).toEqual(summary(outcomes.nearest));
    expect(summary(result.cdx)).toEqual(summary(outcomes.cdx));
    expect(result.nearest.headers?.['memento-datetime']).toBe(MEMENTO);
    expect(result.original).toMatchObject({ ok: false, error: 'not_archived' });
  });

  test('the warcinfo names the base; a replay asking another (the default) is answered from the recorded one, redirects kept at the asked base', async () => {
    const { base, urls, path, outcomes } = await recordWayback();
    const full = await readArchive(path);
    expect(full.records[0]).toMatchObject({ type: 'warcinfo', fields: { 'wayback-base': base } });
    const replay = await openReplay(path);
    expect(replay.waybackBase).toBe(base);
    expect(replay.describeWaybackBase()).toBe(
      `Wayback requests are answered from its recording of ${base}, not https://web.archive.org`,
    );
    const asked = (u: string) => `https://web.archive.org${u.slice(base.length)}`;
    const { result, touched } = await withoutNetwork(async () => ({
      nearest: await fetchSource(asked(urls.nearest), settings(replay)),
      cdx: await fetchSource(asked(urls.cdx), settings(replay)),
    }));
    expect(touched).toBe(0);
    expect(summary(result.nearest)).toEqual({
      ...summary(outcomes.nearest),
      finalUrl: asked(urls.capture),
      redirects: [asked(urls.nearest)],
    });
    expect(summary(result.cdx)).toEqual({ ...summary(outcomes.cdx), finalUrl: asked(urls.cdx) });
    // An absolute Location at the recorded base is moved to the asked one: the client stays on the archive it asked.
    const server = await serve([
      {
        path: '/web/2021id_/http://example.org/x',
        handler: (req, res) =>
          void res
            .writeHead(302, { location: `http://${req.headers.host}/web/20200101000000id_/http://example.org/x` })
            .end(),
      },
      {
        path: '/web/20200101000000id_/http://example.org/x',
        handler: (_req, res) =>
          void res.writeHead(200, { 'content-type': 'text/html', 'memento-datetime': MEMENTO }).end(CAPTURED),
      },
    ]);
    const absolute = join(folder(), 'absolute.warc.gz');
    const recorder = await WarcRecorder.open(absolute, { waybackBase: server.origin });
    const agent = new Agent();
    const live = await fetchSource(
      `${server.origin}/web/2021id_/${ORIGINAL}`,
      settings(agent.compose(recorder.interceptor())),
    );
    await recorder.close();
    await agent.close();
    await server.close();
    expect(live).toMatchObject({ ok: true, finalUrl: `${server.origin}/web/20200101000000id_/${ORIGINAL}` });
    const moved = await fetchSource(
      `https://web.archive.org/web/2021id_/${ORIGINAL}`,
      settings(await openReplay(absolute)),
    );
    expect(moved).toMatchObject({
      ok: true,
      sha256: live.ok ? live.sha256 : '',
      finalUrl: `https://web.archive.org/web/20200101000000id_/${ORIGINAL}`,
    });
    // A replay that asks the recorded base itself needs nothing moved.
    expect((await openReplay(path, { waybackUrl: `${base}/` })).describeWaybackBase()).toBe(
      `Wayback requests are answered from its recording of ${base}`,
    );
  });

  test('a subset for the original URL holds its CDX query, the redirect hop and the capture', async () => {
    const { base, urls, path, outcomes } = await recordWayback();
    const full = await readArchive(path);
    const chosen = selectForSources(full, [ORIGINAL], { waybackBase: base });
    expect(chosen.map((r) => `${r.type} ${r.sourceUri ?? r.targetUri}`)).toEqual([
      `request ${urls.cdx}`,
      `response ${urls.cdx}`,
      `request ${urls.nearest}`,
      `response ${urls.nearest}`,
      `request ${urls.capture}`,
      `response ${urls.capture}`,
    ]);
    const subsetPath = join(folder(), 'wayback-subset.warc.gz');
    await writeArchive(subsetPath, chosen);
    const replay = await openReplay(subsetPath);
    expect(summary(await fetchSource(urls.nearest, settings(replay)))).toEqual(summary(outcomes.nearest));
    expect(selectForSources(full, ['http://example.org/other'], { waybackBase: base })).toEqual([]);
  });
});

describe('subsets', () => {
  test('a subset for one source replays it through its redirect chain and refuses the others; records byte-identical', async () => {
    const chosen = selectForSources(archive, [sources.chain!, sources.refused!]);
    // chain: 4 hops x (request + response); refused: 3 attempts x (request + metadata)
    expect(chosen.filter((r) => r.type === 'response')).toHaveLength(4);
    expect(chosen.filter((r) => r.type === 'metadata')).toHaveLength(3);
    expect(chosen.filter((r) => r.type === 'request')).toHaveLength(7);
    const path = join(folder(), 'subset.warc.gz');
    await writeArchive(path, chosen, { software: 'quotecheck/subset' });
    const subset = await readArchive(path);
    expect(subset.cut).toBeUndefined();
    expect(subset.records[0]).toMatchObject({ type: 'warcinfo', fields: { software: 'quotecheck/subset' } });
    expect(subset.records.slice(1).map((r) => r.recordId)).toEqual(chosen.map((r) => r.recordId));
    subset.records.slice(1).forEach((r, i) => {
      expect(r.raw.equals(chosen[i]!.raw)).toBe(true);
    });
    const file = readFileSync(path);
    expect(file.subarray(subset.records[1]!.offset).equals(Buffer.concat(chosen.map((r) => r.raw)))).toBe(true);

    const replay = await openReplay(path);
    const { result, touched } = await withoutNetwork(async () => ({
      chain: await fetchSource(sources.chain!, settings(replay)),
      refused: await fetchSource(sources.refused!, settings(replay)),
      plain: await fetchSource(sources.plain!, settings(replay)),
      gated: await fetchSource(sources.gated!, settings(replay)),
    }));
    expect(touched).toBe(0);
    expect(summary(result.chain)).toEqual(summary(live.get(sources.chain!)!));
    expect(summary(result.refused)).toEqual(summary(live.get(sources.refused!)!));
    expect(result.plain).toMatchObject({ ok: false, error: 'not_archived' });
    expect(result.gated).toMatchObject({ ok: false, error: 'not_archived' });
  });
});

describe('concurrency and errors', () => {
  test('20 concurrent fetches produce whole, non-interleaved records', async () => {
    const bodies = Array.from({ length: 20 }, (_, i) =>
      Buffer.from(`${i}: ${'concurrent body text '.repeat(500 + i * 200)}`),
    );
    const server = await serve(
      bodies.map((body, i) => ({
        path: `/c/${i}`,
        body,
        headers: { 'content-type': 'text/plain' },
        gzip: i % 2 === 0,
        delayMs: (i * 7) % 30,
      })),
    );
    const path = join(folder(), 'concurrent.warc.gz');
    const recorder = await WarcRecorder.open(path);
    const agent = new Agent({ connections: 10 });
    const dispatcher = agent.compose(recorder.interceptor());
    const outcomes = await Promise.all(
      bodies.map((_, i) => fetchSource(`${server.origin}/c/${i}`, settings(dispatcher, { maxBytes: 1e7 }))),
    );
    expect(outcomes.every((o) => o.ok)).toBe(true);
    await recorder.close();
    await agent.close();
    expect(recorder.records()).toBe(41);

    const members = gzipMembers(readFileSync(path)).map((m) => handParse(m.bytes));
    expect(members).toHaveLength(41);
    const ids = members.map((m) => m.fields.get('warc-record-id'));
    for (const [i, body] of bodies.entries()) {
      const url = `${server.origin}/c/${i}`;
      const response = members.find(
        (m) => m.fields.get('warc-type') === 'response' && m.fields.get('warc-target-uri') === url,
      )!;
      const request = members.find(
        (m) => m.fields.get('warc-type') === 'request' && m.fields.get('warc-target-uri') === url,
      )!;
      const stored =
        httpHeader(response, 'content-encoding') === 'gzip' ? gunzipSync(response.payload) : response.payload;
      expect(sha256(stored)).toBe(sha256(body));
      expect(response.fields.get('warc-concurrent-to')).toBe(request.fields.get('warc-record-id'));
      expect(ids.indexOf(request.fields.get('warc-record-id'))).toBeLessThan(
        ids.indexOf(response.fields.get('warc-record-id')),
      );
    }
  });

  test('timeouts: before the headers (metadata) and in the body (truncated "time") replay as timeouts, at once', async () => {
    const server = await serve([
      { path: '/hang', hang: true },
      {
        path: '/stall',
        handler: (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '10000' });
          res.write(Buffer.alloc(100, 's'));
        },
      },
    ]);
    const path = join(folder(), 'timeouts.warc.gz');
    const recorder = await WarcRecorder.open(path);
    const agent = new Agent();
    const quick = (d: Dispatcher) => settings(d, { timeoutMs: 300, retries: 0 });
    const urls = [`${server.origin}/hang`, `${server.origin}/stall`];
    const liveOutcomes = [];
    for (const url of urls) liveOutcomes.push(await fetchSource(url, quick(agent.compose(recorder.interceptor()))));
    await recorder.close();
    await agent.close();
    await server.close();
    expect(liveOutcomes.map((o) => (o.ok ? 'ok' : o.error))).toEqual(['timeout', 'timeout']);

    const { records } = await readArchive(path);
    expect(records.find((r) => r.type === 'metadata')).toMatchObject({
      targetUri: urls[0],
      fields: { 'fetch-error-code': 'TimeoutError', 'fetch-error-name': 'TimeoutError' },
    });
    const stalled = records.find((r) => r.type === 'response')!;
    expect(stalled).toMatchObject({ targetUri: urls[1], truncated: 'time' });
    expect(stalled.payload.equals(Buffer.alloc(100, 's'))).toBe(true);

    const replay = await openReplay(path);
    const started = Date.now();
    const replayed = [];
    for (const url of urls) replayed.push(await fetchSource(url, quick(replay)));
    expect(Date.now() - started).toBeLessThan(250); // answered from the archive, not by waiting for a timer
    expect(replayed.map((o) => (o.ok ? 'ok' : o.error))).toEqual(['timeout', 'timeout']);
  });

  test('unwritable and unreadable paths are ArchiveErrors naming the path and the reason', async () => {
    const here = folder();
    await expect(WarcRecorder.open(join(here, 'no-such-folder', 'a.warc.gz'))).rejects.toThrow(
      new ArchiveError(`cannot write the archive ${join(here, 'no-such-folder', 'a.warc.gz')}: no such file or folder`),
    );
    await expect(WarcRecorder.open(here)).rejects.toThrow(`cannot write the archive ${here}: it is a folder`);
    await expect(readArchive(join(here, 'missing.warc.gz'))).rejects.toThrow(
      `cannot read the archive ${join(here, 'missing.warc.gz')}: no such file or folder`,
    );
    const text = join(here, 'text.warc.gz');
    writeFileSync(text, 'hello, not a WARC\n');
    await expect(readArchive(text)).rejects.toThrow(
      `${text} is not a WARC file (it starts with neither a gzip member nor "WARC/")`,
    );
    const gz = join(here, 'gz.warc.gz');
    writeFileSync(gz, gzipSync('hello, not a WARC either\n'));
    await expect(readArchive(gz)).rejects.toThrow(/is not a WARC file/);
    const empty = join(here, 'empty.warc.gz');
    writeFileSync(empty, '');
    await expect(readArchive(empty)).rejects.toThrow(`${empty} is empty, not a WARC file`);
  });

  test('a plain (uncompressed) WARC reads too, and its records get gzip members of their own', async () => {
    const plain = Buffer.concat(archive.records.slice(0, 3).map((r) => gunzipSync(r.raw)));
    const path = join(folder(), 'plain.warc');
    writeFileSync(path, plain);
    const read = await readArchive(path);
    expect(read.records.map((r) => r.recordId)).toEqual(archive.records.slice(0, 3).map((r) => r.recordId));
    read.records.forEach((r, i) => {
      expect(gunzipSync(r.raw).equals(gunzipSync(archive.records[i]!.raw))).toBe(true);
    });
    writeFileSync(path, plain.subarray(0, plain.length - 5));
    const cut = await readArchive(path);
    expect(cut.records).toHaveLength(2);
    expect(cut.cut?.offset).toBe(
      gunzipSync(archive.records[0]!.raw).length + gunzipSync(archive.records[1]!.raw).length,
    );
  });
});
