// Shell scripts a test generates, checked as a shell reads them: `bash -n` (or `sh -n`) parses each, and ShellCheck
// (Debian's shellcheck) lints them, each group of scripts with the checks it leaves out, each left out with why.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './helpers.js';

export interface ShellScript {
  /** What the script is, in a finding: `solve.sh (replay)`, `attack reward-fifo on /tests`. */
  name: string;
  text: string;
  /** The shell that runs it (default bash). */
  shell?: 'bash' | 'sh';
}

/** ShellCheck's codes a group of scripts leaves out, each with why it is no problem there. */
export type Exclusions = Readonly<Record<`SC${number}`, string>>;

/**
 * What `bash -n` and ShellCheck find in `scripts` (every severity, but the `excluded` codes), one line each: the
 * script's name, the line and ShellCheck's words. Empty when every script parses and lints clean.
 */
export function shellFindings(scripts: readonly ShellScript[], excluded: Exclusions = {}): string[] {
  const dir = tempDir();
  const files = scripts.map((s, i) => {
    const file = join(dir, `${i}.sh`);
    writeFileSync(file, s.text);
    return file;
  });
  const found: string[] = [];
  scripts.forEach((s, i) => {
    const parsed = spawnSync(s.shell ?? 'bash', ['-n', files[i]!], { encoding: 'utf8' });
    if (parsed.status !== 0) found.push(`${s.name}: ${s.shell ?? 'bash'} -n: ${parsed.stderr.trim()}`);
  });
  for (const shell of ['bash', 'sh'] as const) {
    const mine = files.filter((_, i) => (scripts[i]!.shell ?? 'bash') === shell);
    if (!mine.length) continue;
    const codes = Object.keys(excluded);
    const args = [
      '--format=gcc',
      `--shell=${shell}`,
      ...(codes.length ? [`--exclude=${codes.join(',')}`] : []),
      ...mine,
    ];
    const lint = spawnSync('shellcheck', args, { encoding: 'utf8' });
    if (lint.error) throw new Error(`shellcheck did not run (apt-get install shellcheck): ${lint.error.message}`);
    for (const line of lint.stdout.split('\n').filter(Boolean)) {
      const at = /^(.*?\/(\d+)\.sh):(\d+):\d+: (.*)$/.exec(line);
      found.push(at ? `${scripts[Number(at[2])]!.name}, line ${at[3]}: ${at[4]}` : line);
    }
  }
  return found;
}
