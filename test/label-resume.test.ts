// A labelling job that never loses work (issue 43): 1,500 claims over 300 loopback pages answering in 50 to 300 ms,
// `label --record` killed at about half (SIGKILL, then SIGHUP), and `label --resume` completing the job: every line a
// whole labelled claim, every label right, every warc_record_id in the archive, no decided claim fetched again.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChildProcess } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { readArchive } from '../src/archive/index.js';
import { runCli, serve, tempDir, writeJson } from './support/helpers.js';

const PAGES = 300;
const PER_PAGE = 5;
/** Eight loopback hosts stand in for eight sites: the default two requests a host, sixteen at once. */
const HOSTS = Array.from({ length: 8 }, (_, i) => `127.0.0.${i + 1}`);

const sentence = (page: number, k: number) =>
  `Report ${page} finds that the ${['harbour', 'bridge', 'market', 'school', 'library'][k]} of district ${page} ` +
  `will open ${['in spring', 'next year', 'on Monday', 'after the vote', 'before the summer'][k]} at a cost of ` +
  `${page * 7 + k} thousand.`;

/** The site, the claims (three verbatim, a misquote and an invention a page) and what each label must be. */
async function site() {
  const server = await serve(
    Array.from({ length: PAGES }, (_, i) => ({
      path: `/p/${i}.html`,
      body:
        `<!doctype html><html><head><meta charset="utf-8"><title>Report ${i}</title></head><body><article>` +
        `${Array.from({ length: PER_PAGE }, (_, k) => `<p>${sentence(i, k)}</p>`).join('')}</article></body></html>`,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      // 50 to 300 ms, spread over the pages.
      delayMs: 50 + ((i * 97) % 251),
    })),
    HOSTS,
  );
  const gold: Record<string, string> = {};
  const claims = Array.from({ length: PAGES }, (_, i) =>
    Array.from({ length: PER_PAGE }, (_, k) => {
      const id = `c${i}-${k}`;
      const quote =
        k < 3
          ? sentence(i, k)
          : k === 3
            ? sentence(i, 3).replace('thousand', 'million')
            : `District ${i} will never build anything at all.`;
      gold[id] = k < 3 ? 'verbatim' : 'no_match';
      return {
        id,
        claim: `About report ${i}.`,
        quote,
        url: `${server.originFor(HOSTS[i % HOSTS.length]!)}/p/${i}.html`,
      };
    }),
  ).flat();
  const dir = tempDir();
  return { server, dir, gold, ids: claims.map((c) => c.id), claimsPath: writeJson(join(dir, 'claims.json'), claims) };
}

type Row = Record<string, unknown> & { evidence?: { warc_record_id?: string; sha256?: string } };

/** Every line of a JSON Lines file, each one whole (a line that does not parse, or no final newline, fails). */
function strictLines(path: string): Row[] {
  const text = readFileSync(path, 'utf8');
  if (text === '') return [];
  expect(text.endsWith('\n'), `${path} ends with a whole line`).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((l) => JSON.parse(l) as Row);
}

/** The whole lines of a report a killed run left (a cut last line is the only damage allowed there). */
function reportLines(path: string): Row[] {
  const parts = readFileSync(path, 'utf8').split('\n');
  parts.pop();
  return parts.map((l) => JSON.parse(l) as Row);
}

/** The response record ids of the archive, and whether it ends whole. */
async function recordIds(path: string): Promise<{ ids: Set<string>; cut: boolean }> {
  const archive = await readArchive(path);
  return {
    ids: new Set(archive.records.filter((r) => r.type === 'response').map((r) => r.recordId)),
    cut: archive.cut !== undefined,
  };
}

/** Stops the child with `signal` once the report shows `at` claims decided. */
function stopAt(report: string, at: number, signal: NodeJS.Signals, seen: { decided: number }) {
  return async (child: ChildProcess): Promise<void> => {
    for (let i = 0; i < 3000; i++) {
      await sleep(10);
      try {
        seen.decided = readFileSync(report, 'utf8').split('\n').length - 1;
      } catch {
        continue; // not made yet
      }
      if (seen.decided >= at) break;
    }
    child.kill(signal);
  };
}

describe('label: stopped at half, resumed to the end', () => {
  test.each([
    ['SIGKILL', null, 'SIGKILL'],
    ['SIGHUP', 129, null],
  ] as const)(
    '%s at about half: --out holds whole labels (at least 95 in 100 of those decided), --resume completes it, all right, nothing fetched again',
    async (signal, code, killedBy) => {
      const { server, dir, gold, ids, claimsPath } = await site();
      const f = (n: string) => join(dir, n);
      const args = [
        'label',
        '--claims',
        claimsPath,
        '--out',
        f('out.jsonl'),
        '--record',
        f('run.warc.gz'),
        '--report',
        f('report.jsonl'),
        '--left-out',
        f('left.jsonl'),
        '--allow-private',
        '--quiet',
      ];
      const seen = { decided: 0 };
      const first = await runCli(args, { onSpawn: stopAt(f('report.jsonl'), ids.length / 2, signal, seen) });
      expect(first.code, first.stderr).toBe(code);
      expect(first.signal).toBe(killedBy);

      // What the stop left: whole labelled claims, each right, each record in the archive.
      const labelled = strictLines(f('out.jsonl'));
      const decided = reportLines(f('report.jsonl')).filter((r) => r.diagnosis !== 'stopped');
      expect(decided.length).toBeGreaterThanOrEqual(ids.length / 2);
      expect(decided.length).toBeLessThan(ids.length);
      expect(labelled.length).toBeGreaterThanOrEqual(0.95 * decided.length);
      const decidedIds = new Set(decided.map((r) => r.id));
      const archived = await recordIds(f('run.warc.gz'));
      for (const row of labelled) {
        expect(decidedIds.has(row.id), `${row.id} is in the report`).toBe(true);
        expect(row.label, String(row.id)).toBe(gold[String(row.id)]);
        expect(archived.ids.has(row.evidence!.warc_record_id!), `${row.id}'s record`).toBe(true);
      }
      if (signal === 'SIGHUP') {
        // Handled as SIGINT: the claims not reached are left out as stopped, and the way on is printed.
        expect(first.stderr).toMatch(/stopped early \(received SIGHUP\): [\d,]+ claims not reached/);
        const left = strictLines(f('left.jsonl'));
        expect(left.length + labelled.length).toBe(ids.length);
        expect(left.every((l) => (l.left_out as { cause: string }).cause === 'stopped')).toBe(true);
        // The report has a line for every claim: the ones never judged are `stopped`, never `fetch_failed`.
        const report = reportLines(f('report.jsonl'));
        expect(report).toHaveLength(ids.length);
        const stopped = new Set(left.map((l) => l.id));
        for (const line of report)
          expect(line.diagnosis, String(line.id)).toBe(
            stopped.has(line.id) ? 'stopped' : gold[String(line.id)] === 'verbatim' ? 'verbatim' : line.diagnosis,
          );
        expect(report.filter((line) => line.diagnosis === 'fetch_failed')).toEqual([]);
        expect(first.stderr).not.toMatch(/fetch_failed/);
      }
      // The pages whose every claim is labelled: none of them may be fetched again.
      const done = new Set(labelled.map((r) => String(r.id)));
      const finished = Array.from({ length: PAGES }, (_, i) => i).filter((i) =>
        Array.from({ length: PER_PAGE }, (_, k) => `c${i}-${k}`).every((id) => done.has(id)),
      );
      expect(finished.length).toBeGreaterThan(PAGES / 3);
      const hitsBefore = finished.map((i) => server.hits(`/p/${i}.html`));

      // The resume: the command the stop printed (SIGKILL prints nothing: the same command with --resume).
      const printed = /appending to the same files: quotecheck (.*)$/m.exec(first.stderr)?.[1];
      const resumeArgs = printed ? printed.split(' ') : [...args, '--resume'];
      if (signal === 'SIGHUP') expect(resumeArgs).toEqual([...args, '--resume']);
      const second = await runCli(resumeArgs);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toMatch(
        new RegExp(`resuming: ${done.size.toLocaleString('en-US')} of 1,500 claims labelled in `),
      );
      expect(finished.map((i) => server.hits(`/p/${i}.html`))).toEqual(hitsBefore);

      // The whole job: every claim once, in input order, right, carrying nothing of the stop; every record there.
      const all = strictLines(f('out.jsonl'));
      expect(all.map((r) => r.id)).toEqual(ids);
      const whole = await recordIds(f('run.warc.gz'));
      expect(whole.cut).toBe(false);
      for (const row of all) {
        expect(row.label, String(row.id)).toBe(gold[String(row.id)]);
        expect(row.left_out, String(row.id)).toBeUndefined();
        expect(whole.ids.has(row.evidence!.warc_record_id!), `${row.id}'s record`).toBe(true);
      }
      // The report: one line a claim; the left-out file: none left (every claim got a label), or never made.
      const report = strictLines(f('report.jsonl'));
      expect(report.map((r) => r.id).sort()).toEqual([...ids].sort());
      if (existsSync(f('left.jsonl'))) expect(strictLines(f('left.jsonl'))).toEqual([]);
    },
    120_000,
  );
});
