// A trial's folders on the host (src/evaluate/trial.ts) on their own, without running anything: /app as the task's
// image holds it, the logs, the mount points of the containers, the baseline's and the replay's places, the artifacts
// that cross to a separate verifier, and the commands a variant's image puts on PATH.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { HARNESS_DIR, makeTrial, trialArtifacts, writeCommands } from '../../src/evaluate/trial.js';
import { listTasks } from '../../src/task/task-dir.js';
import { WARC_READER_COMMAND, WARC_READER_FILE } from '../../src/task/paths.js';
import { makeTask } from '../support/harbor-helpers.js';
import { tempDir } from '../support/helpers.js';
import { shellQuote } from '../../src/sh-quote.js';

const CLAIMS = [{ id: 'a', quote: 'a quote', url: 'http://127.0.0.1:9/a', gold: 'verbatim' }];

/** A written task, as evaluate lists it. */
function oneTask(root: string) {
  makeTask(root, 'one', CLAIMS);
  const [task] = listTasks(root);
  return task!;
}

describe("a trial's folders", () => {
  test("/app holds what the task's Dockerfile copies there, and every folder a trial needs is made, empty", () => {
    const root = tempDir();
    const task = oneTask(root);
    const out = tempDir();
    const t = makeTrial(task, 'oracle', out, undefined);
    expect(t.root).toBe(join(out, 'trials', 'one'));
    expect(JSON.parse(readFileSync(join(t.app, 'claims.json'), 'utf8'))).toEqual([
      { id: 'a', quote: 'a quote', url: 'http://127.0.0.1:9/a' },
    ]);
    // The gold labels are the verifier's: never in the agent's /app.
    expect(readdirSync(t.app, { recursive: true, encoding: 'utf8' }).some((f) => /gold|labels/.test(f))).toBe(false);
    for (const d of [t.verifierLogs, t.agentLogs, t.harnessDir, t.rootMount, t.layerMount, t.artifactsDir])
      expect(readdirSync(d), d).toEqual([]);
    expect(t.tool).toBeUndefined();
    expect(t.warcReader).toBeUndefined();
  });

  test('a trial is made fresh: what an earlier one left is gone; on a real engine /app starts empty', () => {
    const task = oneTask(tempDir());
    const out = tempDir();
    const first = makeTrial(task, 'oracle', out, undefined);
    writeFileSync(join(first.app, 'answers.json'), '{}');
    const again = makeTrial(task, 'oracle', out, undefined);
    expect(existsSync(join(again.app, 'answers.json'))).toBe(false);
    expect(readdirSync(makeTrial(task, 'oracle', out, undefined, false).app)).toEqual([]);
  });

  test("the baseline's and the replay's mount points are inside the trial's evaluate folder", () => {
    const task = oneTask(tempDir());
    const replay = join(tempDir(), 'run.warc.gz');
    writeFileSync(replay, 'x');
    const t = makeTrial(task, 'baseline', tempDir(), replay);
    expect(statSync(join(t.harnessDir, 'baseline')).isDirectory()).toBe(true);
    expect(statSync(join(t.harnessDir, 'replay', 'run.warc.gz')).size).toBe(0);
    expect(t.replay).toBe(replay);
  });

  test("what crosses to a separate verifier: the task's declared artifacts, else /app/answers.json", () => {
    const task = oneTask(tempDir());
    const t = makeTrial(task, 'oracle', tempDir(), undefined);
    expect(trialArtifacts(t)).toEqual(['/app/answers.json']);
    expect(trialArtifacts({ ...t, task: { ...task, artifacts: ['/app/out.json', '/app/notes'] } })).toEqual([
      '/app/out.json',
      '/app/notes',
    ]);
  });

  test("a frozen task's WARC reader on PATH: beside the command on this machine, under the harness folder in a container", () => {
    const task = oneTask(tempDir());
    const env = join(task.dir, 'environment');
    mkdirSync(env, { recursive: true });
    writeFileSync(join(env, WARC_READER_FILE), '// the reader\n');
    const t = makeTrial(task, 'oracle', tempDir(), undefined);
    expect(t.warcReader).toBe(join(env, WARC_READER_FILE));
    expect(writeCommands({ ...t, warcReader: undefined }, 'paths')).toBe(false);
    expect(writeCommands(t, 'paths')).toBe(true);
    const bin = join(t.harnessDir, 'bin');
    expect(readFileSync(join(bin, WARC_READER_FILE), 'utf8')).toBe('// the reader\n');
    const here = readFileSync(join(bin, WARC_READER_COMMAND), 'utf8');
    expect(here).toBe(
      `#!/bin/sh\nexec ${shellQuote(process.execPath)} ${shellQuote(join(bin, WARC_READER_FILE))} "$@"\n`,
    );
    expect(statSync(join(bin, WARC_READER_COMMAND)).mode & 0o111).toBe(0o111);
    writeCommands(t, 'namespace');
    expect(readFileSync(join(bin, WARC_READER_COMMAND), 'utf8')).toBe(
      `#!/bin/sh\nexec /usr/local/bin/node ${HARNESS_DIR}/bin/${WARC_READER_FILE} "$@"\n`,
    );
  });
});
