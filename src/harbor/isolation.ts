// The namespaces a bench phase runs in as root: its own mount and PID namespaces, the trial's folders at the container paths, the dataset and bench's output hidden, the rest of the host read-only, Docker's default capabilities.
import { spawnSync } from 'node:child_process';
import { isAbsolute, relative } from 'node:path';
import { shellQuote } from '../sh-quote.js';

/**
 * Docker's default capability set (moby's oci/caps/defaults.go): what root in a container keeps. Without
 * SYS_ADMIN it cannot mount, unmount or setns; without SYS_PTRACE it cannot look into the phase's init.
 */
export const DOCKER_CAPABILITIES = [
  'chown',
  'dac_override',
  'fsetid',
  'fowner',
  'mknod',
  'net_raw',
  'setgid',
  'setuid',
  'setfcap',
  'setpcap',
  'net_bind_service',
  'sys_chroot',
  'kill',
  'audit_write',
] as const;

/** The same set as /proc/PID/status prints it (CapBnd), for checking a phase from inside. */
export const DOCKER_CAPABILITY_MASK = 0xa80425fbn;

/** The PATH a verifier gets (Docker's default for root), never the bench process's own. */
export const VERIFIER_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** A host folder or file shown at a container path. */
export interface Bind {
  from: string;
  to: string;
  writable: boolean;
}

export interface PhaseSpec {
  /** Applied in order, so a file may be bound inside a folder bound before it. */
  binds: readonly Bind[];
  /** Container folders this phase does not get: each is covered by an empty read-only tmpfs. */
  empty: readonly string[];
  /** Host folders the phase must not see at all (the dataset, bench's --out): covered once the binds have taken what they need. */
  hidden: readonly string[];
  /** Run by bash in `cwd`, as root with Docker's capabilities only. */
  command: string;
  cwd: string;
}

/** Lines the phase's init writes on fd 3: set-up done, then how many processes were left when the command returned. */
const READY = 'ready';
const LEFT = 'left';

/** What a phase's init reported: whether its namespace was set up, and the processes the command left running. */
export interface PhaseStatus {
  ready: boolean;
  /** Undefined when the init never got to count (set-up failed, or the phase was killed at its time limit). */
  left?: number;
}

export function parseStatus(text: string): PhaseStatus {
  const lines = text.split('\n');
  const left = lines.map((l) => new RegExp(`^${LEFT} (\\d+)$`).exec(l)).find((m) => m);
  return { ready: lines.includes(READY), ...(left ? { left: Number(left[1]) } : {}) };
}

/** `inner` is `outer` or inside it. */
export function isWithin(inner: string, outer: string): boolean {
  const rel = relative(outer, inner);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** The outermost of some folders: covering one covers what is inside it, and a folder inside a covered one can no longer be reached. */
export function outermost(dirs: readonly string[]): string[] {
  const unique = [...new Set(dirs)];
  return unique.filter((d) => !unique.some((o) => o !== d && isWithin(d, o)));
}

/**
 * Why these folders cannot be hidden from a phase, or undefined: covering one that holds a container path, or the
 * folders every phase needs (/proc, /dev), would take those away too.
 */
export function hidingConflict(hidden: readonly string[], containerPaths: readonly string[]): string | undefined {
  for (const dir of hidden) {
    const needed = [...containerPaths, '/proc', '/dev', '/tmp'].find((p) => isWithin(p, dir));
    if (needed) return `${dir} holds ${needed}, which the trials need: put the dataset and --out elsewhere`;
  }
  return undefined;
}

const q = shellQuote;

/**
 * The phase's /tmp: the host's /tmp as it is (an agent, or the checkout bench runs from, may live there), with
 * every write going to a private layer thrown away with the phase (an overlay: the host's /tmp below, a fresh tmpfs
 * above). The host's /tmp is held open on fd 4 before the fresh tmpfs covers it, so the overlay can name it
 * (/proc/self/fd/4 is that folder); the fresh tmpfs, on fd 5, holds the overlay's own folders. Where the kernel has
 * no overlayfs, the fresh tmpfs alone stays: a private, empty /tmp.
 */
const TMP_SETUP = `exec 4</tmp
mount -t tmpfs -o nosuid,nodev,mode=1777 bench-tmp /tmp
mkdir /tmp/.upper /tmp/.work
exec 5</tmp
mount -t overlay -o nosuid,nodev,lowerdir=/proc/self/fd/4,upperdir=/proc/self/fd/5/.upper,workdir=/proc/self/fd/5/.work bench-tmp /tmp 2>/dev/null || true
exec 4<&- 5<&-`;

/** A minimal /dev as Docker makes it: a few character devices, a private devpts and shm, then read-only (no device node can be added). */
const DEV_SETUP = `mount -t tmpfs -o nosuid,mode=755,size=64k bench-dev /dev
for node in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
  IFS=: read -r name major minor <<< "$node"
  mknod -m 666 "/dev/$name" c "$major" "$minor"
done
ln -s /proc/self/fd /dev/fd; ln -s /proc/self/fd/0 /dev/stdin; ln -s /proc/self/fd/1 /dev/stdout; ln -s /proc/self/fd/2 /dev/stderr
mkdir /dev/pts /dev/shm
mount -t devpts -o newinstance,ptmxmode=0666,mode=620,nosuid,noexec bench-devpts /dev/pts
ln -s pts/ptmx /dev/ptmx
mount -t tmpfs -o nosuid,nodev,mode=1777 bench-shm /dev/shm
mount -o remount,ro,nosuid /dev`;

/** /proc entries Docker makes read-only: the kernel's settings and triggers. */
const PROC_READ_ONLY = ['/proc/sys', '/proc/sysrq-trigger', '/proc/bus', '/proc/fs', '/proc/irq'];

/**
 * Every other mount point read-only (and nosuid, nodev: a remount sets all flags at once), except the phase's
 * writable binds and what the script made itself. Mount points under a hidden folder are skipped: nothing reaches
 * them. The table is read whole first: it changes while the loop remounts.
 */
function readOnlyRest(skipPrefixes: readonly string[], writable: readonly string[]): string {
  const prefixes = skipPrefixes.map((p) => `${q(p)}|${q(p === '/' ? '/' : `${p}/`)}*`).join('|');
  const exact = writable.length ? `${writable.map(q).join('|')}) continue;;\n    ` : '';
  return `mapfile -t table < /proc/self/mountinfo
for line in "\${table[@]}"; do
  read -r _ _ _ _ point _ <<< "$line"
  printf -v point '%b' "$point"
  case "$point" in
    ${exact}${prefixes}) continue;;
  esac
  mount -o remount,bind,ro,nosuid,nodev "$point"
done
for p in ${PROC_READ_ONLY.join(' ')}; do
  [ -e "$p" ] || continue
  mount --bind "$p" "$p"
  mount -o remount,bind,ro,nosuid,nodev,noexec "$p"
done`;
}

/**
 * After the command returns: the processes still alive in the namespace (the init itself and zombies aside),
 * counted from /proc without starting one. They die with the init when it exits. A process on its way out is not
 * left running: a program that kills its helpers as it exits (quotecheck's pdftotext shells get SIGKILL from its exit
 * handler) returns before the kernel has run them down on a loaded machine, so a count above zero is taken again for
 * up to a second (LEFT_GRACE_TRIES times LEFT_GRACE_SLEEP) before it stands.
 */
const LEFT_GRACE_TRIES = 20;
const LEFT_GRACE_SLEEP = '0.05';
const COUNT_LEFT = `count_left() {
  n=0
  for d in /proc/[0-9]*; do
    [ "\${d#/proc/}" = 1 ] && continue
    { read -r stat < "$d/stat"; } 2>/dev/null || continue
    rest=\${stat##*) }
    [ "\${rest%% *}" = Z ] || n=$((n + 1))
  done
}
count_left
tries=0
while [ "$n" -gt 0 ] && [ "$tries" -lt ${LEFT_GRACE_TRIES} ]; do
  sleep ${LEFT_GRACE_SLEEP} || break
  count_left
  tries=$((tries + 1))
done
echo "${LEFT} $n" >&3`;

/**
 * The bash script the phase's init (PID 1 of a fresh PID namespace, in its own mount namespace) runs: the binds,
 * a private /tmp over the host's, the hiding, a fresh /dev, the host read-only; then the command with Docker's capabilities, and the count
 * of what it left running. Any set-up step that fails ends the phase before the command runs (no "ready" line).
 */
export function phaseScript(spec: PhaseSpec): string {
  const writable = spec.binds.filter((b) => b.writable).map((b) => b.to);
  const hidden = outermost(spec.hidden);
  const caps = ['-all', ...DOCKER_CAPABILITIES.map((c) => `+${c}`)].join(',');
  return [
    'set -eu',
    ...spec.binds.flatMap((b) => [`mount --bind ${q(b.from)} ${q(b.to)}`, `mount -o remount,bind,${b.writable ? 'rw' : 'ro'},nosuid,nodev ${q(b.to)}`]),
    ...spec.empty.map((dir) => `mount -t tmpfs -o ro,nosuid,nodev,noexec,size=4k,mode=755 bench-empty ${q(dir)}`),
    TMP_SETUP,
    // After the binds (the trial's own folders live in --out, the oracle and verifier folders in the dataset) and
    // after /tmp (its overlay shows the host's /tmp whole, so what is hidden there is covered on top of it).
    ...hidden.map((dir) => `mount -t tmpfs -o ro,nosuid,nodev,noexec,size=4k,mode=755 bench-hidden ${q(dir)}`),
    DEV_SETUP,
    readOnlyRest(['/proc', '/dev', '/tmp', ...hidden], writable),
    `cd ${q(spec.cwd)}`,
    `echo ${READY} >&3`,
    'status=0',
    // fd 3 stays the init's: the command cannot write a status line of its own.
    `setpriv --inh-caps=-all --ambient-caps=-all --bounding-set=${caps} -- bash -c ${q(spec.command)} 3>&- || status=$?`,
    COUNT_LEFT,
    'exit "$status"',
  ].join('\n');
}

/** The argv of a phase: unshare makes the namespaces and forks the init; the init's exit kills whatever is left, and unshare's death kills the init. */
export function phaseArgv(spec: PhaseSpec): string[] {
  return ['unshare', '--mount', '--propagation', 'private', '--pid', '--fork', '--kill-child', '--mount-proc', 'bash', '-c', phaseScript(spec)];
}

/** The probe's answer, once per process: it starts a namespace, and a run with several agents asks for each. */
let isolates: boolean | undefined;

/** Whether phases can be isolated here: root, util-linux unshare (mount and PID namespaces) and setpriv. */
export function canIsolate(): boolean {
  isolates ??= probeIsolation();
  return isolates;
}

function probeIsolation(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = spawnSync(
    'unshare',
    [
      '--mount',
      '--propagation',
      'private',
      '--pid',
      '--fork',
      '--kill-child',
      '--mount-proc',
      'setpriv',
      '--inh-caps=-all',
      `--bounding-set=-all,${DOCKER_CAPABILITIES.map((c) => `+${c}`).join(',')}`,
      '--',
      'true',
    ],
    { stdio: 'ignore' },
  );
  return probe.status === 0;
}
