// Where a task's verifier runs, as Harbor's `[verifier] environment_mode` names it: the modes, in a module that imports
// nothing (the command line's --verifier choices load no task code); a task on disk says its own (task-dir.ts).

/**
 * `export --verifier`: where a task's verifier runs, as Harbor's `[verifier] environment_mode` names it. `separate`: in
 * an image of its own, built from the task's tests/ folder (tests/Dockerfile), with no network, which gets nothing of
 * the agent's container but the files task.toml's `artifacts` name (/app/answers.json). `shared`: in the agent's
 * container, after the agent, with tests/ uploaded into it (every harness can; SkillsBench 1.1's harnesses only that).
 * docs/security.md says which attacks each one stops.
 */
export type VerifierMode = 'separate' | 'shared';

/**
 * Every verifier mode, the default first (in a module of its own that imports nothing, so that the command line's
 * parsing loads no task code).
 */
export const VERIFIER_MODES: readonly VerifierMode[] = ['separate', 'shared'];
