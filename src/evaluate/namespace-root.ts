// The containers an evaluation trial runs in as root: a root made of the image's parts (this machine's system folders,
// copy-on-write), the trial's folders at the container paths, nothing else of the host; Docker's capabilities; the
// agent's user.
import { spawnSync } from 'node:child_process';
import { shellQuote } from '../sh-quote.js';

/**
 * Docker's default capability set (moby's oci/caps/defaults.go): what root in a container keeps. Without
 * SYS_ADMIN it cannot mount, unmount or setns; without SYS_PTRACE it cannot look into another user's processes.
 */
const DOCKER_CAPABILITIES = [
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

/**
 * The PATH of the task's image (Docker's default, which node's official images keep), never the evaluate process's own.
 */
export const IMAGE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * The system folders a container's root is made of: this machine's, each behind a copy-on-write layer of the
 * container's own (root in the container may change them, as in a container's image; the change is gone with it).
 * evaluate builds no image, so these stand for the image's; the rest of the root is made fresh.
 */
const SYSTEM_FOLDERS = ['usr', 'etc'] as const;

/**
 * /var is made fresh, as a new image has it (where CI servers keep workspaces and services their data, nothing of
 * this machine's): its standard folders empty, and of this machine's only what the package tools read, each behind a
 * copy-on-write layer.
 */
const VAR_FOLDERS = ['backups', 'cache', 'lib', 'local', 'log', 'mail', 'opt', 'spool', 'tmp'] as const;
const VAR_KEPT = ['var/lib/dpkg', 'var/lib/apt', 'var/lib/ucf', 'var/lib/pam', 'var/cache/debconf'] as const;

/** /usr/local is made fresh too (this machine's own installs live there), with the standard folders of an image. */
const USR_LOCAL_FOLDERS = ['bin', 'etc', 'games', 'include', 'lib/node_modules', 'sbin', 'share', 'src'] as const;

/** The top-level names that are links into /usr on a merged-/usr system, or folders of their own on an older one. */
const USR_LINKS = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'] as const;

/**
 * Where Node.js keeps globally installed packages: a global install or `npm link` of quotecheck (or anything else)
 * lives there, with its command linked from the bin folder beside it. The image has only npm and corepack there:
 * the rest is covered, so a link to it leads nowhere and no `quotecheck` is found on PATH.
 */
const GLOBAL_MODULES = ['/usr/lib/node_modules', '/usr/local/lib/node_modules'] as const;
const IMAGE_GLOBAL_MODULES = ['npm', 'corepack'] as const;

/** A host folder or file shown at a container path. */
export interface Bind {
  from: string;
  to: string;
  writable: boolean;
}

/** A user of the image: task.toml's [agent] user, made by the Dockerfile's useradd. */
export interface ContainerUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

/** A command run in the container, as root (with Docker's capabilities) or as a user, with a fixed environment. */
export interface ContainerCommand {
  command: string;
  user: ContainerUser | 'root';
  /** The whole environment, as the image gives it (nothing of evaluate's): PATH, HOME and the like. */
  env: Readonly<Record<string, string>>;
  /**
   * Variables taken by name from evaluate's environment (an agent's API key): their values never appear in a command
   * line.
   */
  passEnv?: readonly string[];
  cwd: string;
  timeoutSec: number;
}

export interface ContainerSpec {
  /**
   * Empty host folders the namespace mounts its root and its copy-on-write layers on (its own mounts: the host's stay
   * as they are).
   */
  rootMount: string;
  layerMount: string;
  /** Applied in order, so a file may be bound inside a folder bound before it. */
  binds: readonly Bind[];
  /**
   * Users the image has beside root: added to the root's /etc/passwd and /etc/group when missing, each with a home it
   * owns.
   */
  users: readonly ContainerUser[];
  /** The Node.js at /usr/local/bin/node (where the image has it), when this machine has none there. */
  node: string;
  /** Whether the container shares the host's network (sources served on loopback) or has none at all. */
  network: boolean;
  /**
   * Host folders hidden under an empty folder wherever they are in the root (the dataset, evaluate's output, its own
   * package): the system folders are this machine's, and a dataset may be kept in one of them.
   */
  hide?: readonly string[];
  /** The agent's command, or the verifier's in a verifier container. */
  main: ContainerCommand;
  /**
   * Where the init stops for the harness: it says `pause` on fd 3 and waits for a line on its stdin while the
   * harness copies files in or out through /proc/PID/root (the artifacts out of an agent's container, tests/ into
   * it in shared mode, the artifacts and tests into a verifier's). Before or after the main command, or never.
   */
  pause?: 'before' | 'after';
  /**
   * Harbor's shared mode: after `main` and the pause, this in the same container, with whatever `main` left running
   * still running, then `graceSec` (the harness reads the reward a moment later) before counting what is left.
   */
  after?: ContainerCommand & { graceSec: number };
}

/** Lines the container's init writes on fd 3. */
const STATUS = { ready: 'ready', main: 'main', pause: 'pause', after: 'after', left: 'left' } as const;

/**
 * What a container's init reported: set up or not, each command's exit status, and the processes left when it ended.
 */
export interface PhaseStatus {
  ready: boolean;
  /** The main command's exit status; undefined when it never ran to its end. */
  main?: number;
  /** Set when the main command ran out of time. */
  mainTimedOut?: boolean;
  /** The command run after the upload (shared mode), likewise. */
  after?: number;
  afterTimedOut?: boolean;
  /** Undefined when the init never got to count (set-up failed, or evaluate killed it at its time limit). */
  left?: number;
}

export function parseStatus(text: string): PhaseStatus {
  const lines = text.split('\n');
  const field = (name: string): string[] | undefined => lines.map((l) => l.split(' ')).find((w) => w[0] === name);
  const main = field(STATUS.main);
  const after = field(STATUS.after);
  const left = field(STATUS.left);
  return {
    ready: lines.includes(STATUS.ready),
    ...(main ? { main: Number(main[1]), ...(main[2] === 'timeout' ? { mainTimedOut: true } : {}) } : {}),
    ...(after ? { after: Number(after[1]), ...(after[2] === 'timeout' ? { afterTimedOut: true } : {}) } : {}),
    ...(left ? { left: Number(left[1]) } : {}),
  };
}

/** Whether the fd 3 stream has reached the pause. */
export const atPause = (text: string): boolean => text.split('\n').includes(STATUS.pause);

const q = shellQuote;

/** A minimal /dev as Docker makes it under `$R`: a few character devices, a private devpts and shm, then read-only. */
const DEV_SETUP = `mount -t tmpfs -o nosuid,mode=755,size=64k trial-dev "$R/dev"
for node in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
  IFS=: read -r name major minor <<< "$node"
  mknod -m 666 "$R/dev/$name" c "$major" "$minor"
done
ln -s /proc/self/fd "$R/dev/fd"; ln -s /proc/self/fd/0 "$R/dev/stdin"; ln -s /proc/self/fd/1 "$R/dev/stdout"; ln -s /proc/self/fd/2 "$R/dev/stderr"
mkdir "$R/dev/pts" "$R/dev/shm"
mount -t devpts -o newinstance,ptmxmode=0666,mode=620,nosuid,noexec trial-devpts "$R/dev/pts"
ln -s pts/ptmx "$R/dev/ptmx"
mount -t tmpfs -o nosuid,nodev,mode=1777 trial-shm "$R/dev/shm"
mount -o remount,ro,nosuid "$R/dev"`;

/** /proc entries Docker makes read-only: the kernel's settings and triggers. */
const PROC_READ_ONLY = ['sys', 'sysrq-trigger', 'bus', 'fs', 'irq'];

/**
 * The root: a fresh tmpfs with the system folders (copy-on-write over this machine's, the layers on a tmpfs of
 * their own), the top-level links into /usr, the global Node.js packages but npm's covered, Node.js where the image
 * has it, fresh /tmp, /var/tmp, /run, /home and /root, a fresh /dev and /proc (the new PID namespace's), the
 * users, then the binds. Nothing else of the host is in it.
 */
function rootSetup(spec: ContainerSpec): string {
  const users = spec.users
    .map(
      (
        u,
      ) => `grep -q ${q(`^${u.name}:`)} "$R/etc/passwd" || echo ${q(`${u.name}:x:${u.uid}:${u.gid}::${u.home}:/bin/bash`)} >> "$R/etc/passwd"
grep -q ${q(`^${u.name}:`)} "$R/etc/group" || echo ${q(`${u.name}:x:${u.gid}:`)} >> "$R/etc/group"
mkdir -p "$R"${q(u.home)} && chown ${u.uid}:${u.gid} "$R"${q(u.home)} && chmod 755 "$R"${q(u.home)}`,
    )
    .join('\n');
  const binds = spec.binds
    .map(
      (
        b,
      ) => `if [ -d ${q(b.from)} ]; then mkdir -p "$R"${q(b.to)}; elif [ ! -e "$R"${q(b.to)} ]; then mkdir -p "$(dirname "$R"${q(b.to)})"; : > "$R"${q(b.to)}; fi
mount --bind ${q(b.from)} "$R"${q(b.to)}
mount -o remount,bind,${b.writable ? 'rw' : 'ro'},nosuid,nodev "$R"${q(b.to)}`,
    )
    .join('\n');
  const hidden = (spec.hide ?? [])
    .map((h) => `if [ -d "$R"${q(h)} ]; then mount -t tmpfs -o mode=755,size=4k,nodev trial-hidden "$R"${q(h)}; fi`)
    .join('\n');
  return `R=${q(spec.rootMount)}
L=${q(spec.layerMount)}
mount -t tmpfs -o mode=755,nodev trial-root "$R"
mount -t tmpfs -o mode=700 trial-layers "$L"
# The layers are named relative to their tmpfs: the mount table names no host folder for them. No device node made
# in them opens (nodev).
cd "$L"
layer() { mkdir -p "$R/$1" "$1/upper" "$1/work" && mount -t overlay -o "nodev,lowerdir=/$1,upperdir=$1/upper,workdir=$1/work" "trial-$1" "$R/$1"; }
for d in ${SYSTEM_FOLDERS.join(' ')}; do layer "$d"; done
for l in ${USR_LINKS.join(' ')}; do
  if [ -L "/$l" ]; then ln -s "$(readlink "/$l")" "$R/$l"
  elif [ -d "/$l" ]; then layer "$l"
  fi
done
mkdir -p "$R/var" && mount -t tmpfs -o mode=755,nodev trial-var "$R/var"
for d in ${VAR_FOLDERS.join(' ')}; do mkdir -p "$R/var/$d"; done
ln -s /run "$R/var/run"; ln -s /run/lock "$R/var/lock"
for d in ${VAR_KEPT.join(' ')}; do if [ -d "/$d" ]; then layer "$d"; fi; done
mount -t tmpfs -o mode=755,nodev trial-usr-local "$R/usr/local"
for d in ${USR_LOCAL_FOLDERS.join(' ')}; do mkdir -p "$R/usr/local/$d"; done
cd /
for m in ${GLOBAL_MODULES.join(' ')}; do
  [ -d "$R$m" ] || continue
  mount -t tmpfs -o mode=755,size=64k trial-modules "$R$m"
  for keep in ${IMAGE_GLOBAL_MODULES.join(' ')}; do
    [ -d "$m/$keep" ] || continue
    mkdir "$R$m/$keep" && mount --bind "$m/$keep" "$R$m/$keep" && mount -o remount,bind,ro,nosuid,nodev "$R$m/$keep"
  done
done
if [ ! -e "$R/usr/local/bin/node" ]; then
  mkdir -p "$R/usr/local/bin"
  # A link to this machine's Node.js when the root has it (root in the container may replace the link, as it may the
  # image's file); else the file itself, read-only (never the host's own file, writable).
  case ${q(spec.node)} in
    /usr/*) ln -s ${q(spec.node)} "$R/usr/local/bin/node" ;;
    *) : > "$R/usr/local/bin/node"; mount --bind ${q(spec.node)} "$R/usr/local/bin/node"; mount -o remount,bind,ro,nodev "$R/usr/local/bin/node" ;;
  esac
fi
mkdir -p "$R/proc" "$R/dev" "$R/tmp" "$R/run" "$R/home" "$R/root" "$R/mnt" "$R/opt" "$R/srv" "$R/media" "$R/logs"
chmod 700 "$R/root"
for t in /tmp /var/tmp; do mount -t tmpfs -o nosuid,nodev,mode=1777 trial-tmp "$R$t"; done
mount -t tmpfs -o nosuid,nodev,mode=755 trial-run "$R/run"
${users}
${hidden}
${DEV_SETUP}
mount -t proc -o nosuid,nodev,noexec proc "$R/proc"
for p in ${PROC_READ_ONLY.join(' ')}; do
  [ -e "$R/proc/$p" ] || continue
  mount --bind "$R/proc/$p" "$R/proc/$p" && mount -o remount,bind,ro,nosuid,nodev,noexec "$R/proc/$p"
done
${binds}
mkdir "$R/.trial-old"
cd "$R"
pivot_root . .trial-old
cd /
umount -l /.trial-old
rmdir /.trial-old`;
}

/**
 * The harness's own tools (timeout, setpriv, env) by absolute path, as this machine has them (the container's system
 * folders are this machine's): never looked up on the container's PATH, where an agent may have put a command of the
 * same name. Harbor looks up only `bash` there (docker exec runs its command directly), and so does evaluate.
 */
let tools: string[] | undefined;
function harnessTools(): string[] {
  tools ??= ['timeout', 'setpriv', 'env'].map((name) => {
    const found = spawnSync('sh', ['-c', `command -v ${name}`], {
      encoding: 'utf8',
      env: { PATH: IMAGE_PATH },
    }).stdout.trim();
    return found.startsWith('/') ? found : name;
  });
  return tools;
}

/**
 * One command run to its end: as its user (uid and gid, no capabilities) or as root with Docker's capabilities,
 * under `env -i` with the image's environment, its time limit kept by `timeout` (which kills the command's process
 * group at the limit: what left the group keeps running, as in a container). Reports `NAME STATUS [timeout]` on fd 3.
 */
function runCommand(c: ContainerCommand, status: string): string {
  const caps = ['-all', ...DOCKER_CAPABILITIES.map((cap) => `+${cap}`)].join(',');
  const who = c.user === 'root' ? '' : `--reuid=${c.user.uid} --regid=${c.user.gid} --init-groups `;
  const env = [
    ...Object.entries(c.env).map(([k, v]) => q(`${k}=${v}`)),
    ...(c.passEnv ?? []).map((k) => `"${k}=\${${k}-}"`),
  ].join(' ');
  const [timeout, setpriv, envCmd] = harnessTools();
  return `cd ${q(c.cwd)}
code=0
started=$SECONDS
${timeout} -s KILL ${Math.max(1, Math.ceil(c.timeoutSec))} ${setpriv} ${who}--inh-caps=-all --ambient-caps=-all --bounding-set=${caps} -- ${envCmd} -i ${env} bash -c ${q(c.command)} 3>&- 0</dev/null || code=$?
if [ "$code" -eq 137 ] && [ $((SECONDS - started)) -ge ${Math.max(1, Math.ceil(c.timeoutSec))} ]; then echo "${status} $code timeout" >&3; else echo "${status} $code" >&3; fi
cd /`;
}

/**
 * After the commands: the processes still alive in the namespace (the init itself and zombies aside), counted from
 * /proc without starting one. They die with the init when it exits. A process on its way out is not left running:
 * a program that kills its helpers as it exits (quotecheck's pdftotext shells get SIGKILL from its exit handler)
 * returns before the kernel has run them down on a loaded machine, so a count above zero is taken again for up to
 * a second (LEFT_GRACE_TRIES times LEFT_GRACE_SLEEP) before it stands.
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
echo "${STATUS.left} $n" >&3`;

/** The pause: said on fd 3, then a line awaited on stdin (none comes when evaluate is gone: the read ends at EOF). */
const PAUSE = `echo ${STATUS.pause} >&3
read -r _go || true`;

/**
 * The bash script a container's init (PID 1 of a fresh PID namespace, in its own mount namespace) runs: the root,
 * `ready`, the main command; in shared mode the upload handshake, the second command and the grace; then the count
 * of what is left. Any set-up step that fails ends the container before a command runs (no `ready` line).
 */
function containerScript(spec: ContainerSpec): string {
  return [
    'set -eu',
    rootSetup(spec),
    `echo ${STATUS.ready} >&3`,
    'set +e',
    ...(spec.pause === 'before' ? [PAUSE] : []),
    runCommand(spec.main, STATUS.main),
    ...(spec.pause === 'after' ? [PAUSE] : []),
    ...(spec.after ? [runCommand(spec.after, STATUS.after), `sleep ${spec.after.graceSec}`] : []),
    COUNT_LEFT,
    'exit 0',
  ].join('\n');
}

/**
 * unshare's part of a container's argv: its own mount and PID namespaces (and network, when it has none), an init
 * forked, killed with unshare.
 */
const unshareArgv = (network: boolean): string[] => [
  'unshare',
  '--mount',
  '--propagation',
  'private',
  '--pid',
  '--fork',
  '--kill-child',
  ...(network ? [] : ['--net']),
];

/**
 * The argv of a container: unshare makes the namespaces (mount, PID, and network when it has none) and forks the
 * init; the init's exit kills whatever is left in the PID namespace, and unshare's death kills the init.
 */
export function containerArgv(spec: ContainerSpec): string[] {
  return [
    ...unshareArgv(spec.network),
    // No start-up files: bash reads ~/.bashrc when its stdin is a socket (Debian's SSH_SOURCE_BASHRC), as Node's pipes
    // are.
    'bash',
    '--noprofile',
    '--norc',
    '-c',
    containerScript(spec),
  ];
}

/** The probe's answer, once per process: it starts a namespace, and a run with several agents asks for each. */
let isolates: boolean | undefined;

/**
 * Whether containers can be made here: root, util-linux unshare (mount, PID and network namespaces), setpriv and
 * overlayfs.
 */
export function canIsolate(): boolean {
  isolates ??= probeIsolation();
  return isolates;
}

function probeIsolation(): boolean {
  if (process.getuid?.() !== 0) return false;
  const [unshare, ...args] = unshareArgv(false);
  const probe = spawnSync(
    unshare!,
    [
      ...args,
      'bash',
      '-c',
      `set -e; d=/tmp; mount -t tmpfs probe "$d"; mkdir "$d/u" "$d/w" "$d/m"
mount -t overlay -o "lowerdir=/usr,upperdir=$d/u,workdir=$d/w" probe "$d/m"
setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all,${DOCKER_CAPABILITIES.map((c) => `+${c}`).join(',')} -- true`,
    ],
    { stdio: 'ignore' },
  );
  return probe.status === 0;
}
