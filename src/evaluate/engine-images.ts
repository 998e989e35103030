// The images a trial runs in, built by the engine from the task's own Dockerfiles (environment/ for the agent, tests/
// for a separate verifier) and kept by the content of their build context: a dataset whose tasks share an image builds
// it once, and a changed file builds it again.
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { engineCli, imageExists, lastLines } from './engine.js';
import type { EngineName } from '../results/evaluation-report.js';

/**
 * The build context's content as a digest: every entry's path, kind, mode and bytes (a link by its target), in order.
 * Two contexts with the same digest build the same image.
 */
function contextDigest(dir: string): string {
  const hash = createHash('sha256');
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const path = rel ? `${rel}/${name}` : name;
      const st = lstatSync(join(dir, path));
      const head = `${path}\0${(st.mode & 0o170000).toString(8)}\0${(st.mode & 0o777).toString(8)}\0`;
      if (st.isDirectory()) {
        hash.update(`${head}dir\n`);
        walk(path);
      } else if (st.isSymbolicLink()) hash.update(`${head}${readlinkSync(join(dir, path))}\n`);
      else if (st.isFile())
        hash.update(
          `${head}${createHash('sha256')
            .update(readFileSync(join(dir, path)))
            .digest('hex')}\n`,
        );
      else hash.update(`${head}special\n`);
    }
  };
  walk('');
  return hash.digest('hex');
}

/** An image a trial can run, or why there is none; `log` is the build's output (empty when the image was kept). */
export type ImageResult =
  | { ok: true; image: string; built: boolean; log: Buffer }
  | { ok: false; reason: string; log: Buffer };

/** Builds under way or done in this process, by engine and digest: tasks that share an image wait for one build. */
const builds = new Map<string, Promise<ImageResult>>();

/**
 * One build at a time: tasks' images differ in their last layers (their claims), so the first build makes the shared
 * layers (the base image, the Debian packages) and the others find them in the engine's cache instead of each
 * fetching the same packages at once.
 */
const oneBuild = pLimit(1);

/**
 * The image of a build context (`environment/` or `tests/` with its Dockerfile): the engine's kept image of the same
 * content, else a build (`build -t quotecheck-<kind>:<digest>`). A task with no Dockerfile but a prebuilt image runs
 * that image, as Harbor does.
 */
export function contextImage(
  engine: EngineName,
  dir: string,
  kind: 'environment' | 'tests',
  timeoutSec: number,
  prebuilt?: string,
): Promise<ImageResult> {
  if (!existsSync(join(dir, 'Dockerfile'))) {
    if (prebuilt) return Promise.resolve({ ok: true, image: prebuilt, built: false, log: Buffer.alloc(0) });
    return Promise.resolve({ ok: false, reason: `${kind}/Dockerfile is missing`, log: Buffer.alloc(0) });
  }
  const digest = contextDigest(dir);
  const key = `${engine} ${digest}`;
  let build = builds.get(key);
  if (!build) {
    const tag = `localhost/quotecheck-${kind}:${digest.slice(0, 32)}`;
    build = oneBuild(() => buildOnce(engine, dir, tag, timeoutSec));
    builds.set(key, build);
    // A failed build is tried again by the next trial that needs it (the registry or the network may be back).
    void build.then((r) => {
      if (!r.ok) builds.delete(key);
    });
  }
  return build;
}

async function buildOnce(engine: EngineName, dir: string, tag: string, timeoutSec: number): Promise<ImageResult> {
  if (await imageExists(engine, tag)) return { ok: true, image: tag, built: false, log: Buffer.alloc(0) };
  const r = await engineCli(engine, ['build', '--tag', tag, '--file', join(dir, 'Dockerfile'), dir], {
    timeoutSec,
    maxOutput: 1024 * 1024,
  });
  if (r.code === 0) return { ok: true, image: tag, built: true, log: r.output };
  const why = r.timedOut ? `over its ${timeoutSec} s build timeout` : lastLines(r.output);
  return { ok: false, reason: why, log: r.output };
}
