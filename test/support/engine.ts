// The real container engine the tests run trials on (CI installs Podman and makes the base image's stand-in: .ci/run
// and scripts/base-image-stand-in.sh), or why there is none: such tests are skipped and say why, never passed.
import { spawnSync } from 'node:child_process';
import type { TestContext } from 'vitest';
import type { EngineName } from '../../src/harbor/engine.js';

/** The public base image every exported task builds FROM. */
export const BASE_IMAGE = 'docker.io/library/node:20-bookworm-slim';

const answers = (cmd: string, args: string[]): boolean =>
  spawnSync(cmd, args, { stdio: 'ignore', timeout: 30_000 }).status === 0;

/** The engine the tests use: Docker when its daemon answers, else Podman; with the base image, or why not. */
function probe(): { engine: EngineName } | { why: string } {
  const engine = (['docker', 'podman'] as const).find((e) => answers(e, ['info']));
  if (!engine) return { why: 'no container engine answers here (`docker info`, `podman info`): see .ci/run' };
  if (!answers(engine, ['image', 'inspect', BASE_IMAGE]))
    return { why: `${engine} has no ${BASE_IMAGE} (scripts/base-image-stand-in.sh makes its stand-in)` };
  return { engine };
}

export const ENGINE = probe();

/** The engine, in a test that needs one; the test is skipped, with the reason, when there is none. */
export function needEngine(ctx: TestContext): EngineName {
  if ('why' in ENGINE) ctx.skip(ENGINE.why);
  return (ENGINE as { engine: EngineName }).engine;
}
