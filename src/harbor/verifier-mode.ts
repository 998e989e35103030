// Where a task on disk runs its verifier (templates.ts VerifierMode), read from its definition as Harbor reads it: for
// bench and compare, which run a separate verifier's task as Harbor would (only /app/answers.json crosses over).
import { join } from 'node:path';
import type { VerifierMode } from '../settings.js';
import { DatasetError, layoutOf, readToml } from './dataset.js';
import { LAYOUTS } from './layout.js';

/**
 * Harbor's rule for a task.toml (its TaskConfig): `[verifier] environment_mode` when it is given; otherwise `separate`
 * when `[verifier.environment]` is there, and `shared` when it is not. A value that is neither mode is `undefined`.
 */
export function verifierModeOfConfig(config: Record<string, unknown>): VerifierMode | undefined {
  const verifier = config.verifier;
  if (verifier === undefined || verifier === null || typeof verifier !== 'object') return 'shared';
  const { environment_mode: mode, environment } = verifier as Record<string, unknown>;
  if (mode === 'separate' || mode === 'shared') return mode;
  if (mode !== undefined && mode !== null) return undefined;
  return environment !== undefined && environment !== null ? 'separate' : 'shared';
}

/**
 * Where the task in `taskDir` runs its verifier. A task.md (SkillsBench 1.1, which wins when a folder has both, as its
 * harnesses have it) is always `shared`: its harnesses run verifier/test.sh in the agent's container. A task.toml
 * follows Harbor's rule (verifierModeOfConfig). A folder with neither, a task.toml that does not parse, or an
 * environment_mode Harbor does not know is a DatasetError.
 */
export function taskVerifierMode(taskDir: string): VerifierMode {
  const layout = layoutOf(taskDir);
  if (layout === undefined) throw new DatasetError(`${taskDir}: not a task (no ${LAYOUTS.harbor.definition} or ${LAYOUTS.skillsbench.definition})`);
  if (layout === 'skillsbench') return 'shared';
  const path = join(taskDir, LAYOUTS.harbor.definition);
  const config = readToml(path);
  const mode = verifierModeOfConfig(config);
  if (mode === undefined) {
    const given = (config.verifier as Record<string, unknown>).environment_mode;
    throw new DatasetError(`${path}: [verifier] environment_mode is ${JSON.stringify(given)}, not "separate" or "shared"`);
  }
  return mode;
}
