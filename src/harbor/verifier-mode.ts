// Where a task on disk runs its verifier (templates.ts VerifierMode), read from its definition as Harbor reads it: for
// evaluate and compare, which run a separate verifier's task as Harbor would (only /app/answers.json crosses over).
import { join } from 'node:path';
import type { VerifierMode } from '../settings.js';
import { DatasetError, layoutOf, modeOf, readToml } from './dataset.js';
import { LAYOUTS } from './layout.js';

/**
 * Where the task in `taskDir` runs its verifier. A task.md (SkillsBench 1.1, which wins when a folder has both, as its
 * harnesses have it) is always `shared`: its harnesses run verifier/test.sh in the agent's container. A task.toml
 * follows Harbor's rule (verifierModeOfConfig). A folder with neither, a task.toml that does not parse, or an
 * environment_mode Harbor does not know is a DatasetError.
 */
export function taskVerifierMode(taskDir: string): VerifierMode {
  const layout = layoutOf(taskDir);
  if (layout === undefined)
    throw new DatasetError(
      `${taskDir}: not a task (no ${LAYOUTS.harbor.definition} or ${LAYOUTS.skillsbench.definition})`,
    );
  if (layout === 'skillsbench') return 'shared';
  const path = join(taskDir, LAYOUTS.harbor.definition);
  return modeOf(path, layout, readToml(path));
}
