// What a task's images are built from and named (docs/datasets.md#pinned-images): the base image both Dockerfiles start
// from (pinned by digest with export --base-image), the Debian packages' versions (--apt-version), and the prebuilt
// images a task.toml may name beside its Dockerfiles (--image-repo, --verifier-image-repo), tagged by Harbor's own hash
// of the folder each is built from, with the script that builds and pushes them.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors.js';
import { shellQuote } from '../sh-quote.js';

/** Docker's official Node.js 20 image on Debian 12, by tag: what both Dockerfiles start from unless --base-image. */
export const DEFAULT_BASE_IMAGE = 'node:20-bookworm-slim';

/**
 * The Debian packages the agent's image installs: pdftotext (the labels' extractor) with poppler-data (its CJK
 * fonts' maps: without them pdftotext prints nothing for a Japanese PDF the labels were made on), CA certificates,
 * curl.
 */
const APT_PACKAGES = ['poppler-utils', 'poppler-data', 'ca-certificates', 'curl'] as const;

/** What the images are built from, beyond the task's own files. */
export interface ImageOptions {
  /** FROM of both Dockerfiles (default DEFAULT_BASE_IMAGE). */
  baseImage?: string;
  /** A version for some of APT_PACKAGES (`apt-get install pkg=version`); the others take the archive's current one. */
  aptVersions?: Readonly<Record<string, string>>;
}

class ImageOptionError extends UserError {
  override readonly name = 'ImageOptionError';
}

/* An image reference, as Docker's distribution/reference grammar has it: a name (an optional registry host and port,
 * then path components of lower-case letters and digits joined by '.', '_', '__' or dashes), a tag, a digest. */
const COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const HOST = '(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\\.(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?))*';
const NAME = `(?:${HOST}(?::[0-9]+)?/)?${COMPONENT}(?:/${COMPONENT})*`;
const PINNED = new RegExp(`^${NAME}(?::[\\w][\\w.-]{0,127})?@sha256:[a-f0-9]{64}$`);
const REPOSITORY = new RegExp(`^${NAME}$`);

/**
 * --base-image: an image pinned by its digest (`node:20-bookworm-slim@sha256:<64 hex>`, the tag optional), so that
 * both images start from the same bytes whenever they are built; anything else is an ImageOptionError saying how to
 * find the digest.
 */
export function checkBaseImage(ref: string): string {
  if (PINNED.test(ref)) return ref;
  const why = ref.includes('@') ? 'is not an image name with a sha256 digest' : 'is not pinned by a digest';
  throw new ImageOptionError(
    `--base-image ${JSON.stringify(ref)}: ${why}; give NAME[:TAG]@sha256:<64 hex digits> (e.g. ` +
      `${DEFAULT_BASE_IMAGE}@sha256:...; \`docker buildx imagetools inspect ${DEFAULT_BASE_IMAGE}\` prints the digest)`,
  );
}

/** A Debian version: an optional epoch, digits first, then letters, digits and `.+~-:` (Debian Policy 5.6.12). */
const DEBIAN_VERSION = /^(?:[0-9]+:)?[0-9][A-Za-z0-9.+~-]*$/;

/** --apt-version values (`PKG=VERSION`, repeatable): each a package the image installs, once. */
export function parseAptVersions(values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const value of values) {
    const eq = value.indexOf('=');
    const pkg = eq < 0 ? value : value.slice(0, eq);
    const version = eq < 0 ? '' : value.slice(eq + 1);
    if (!(APT_PACKAGES as readonly string[]).includes(pkg))
      throw new ImageOptionError(
        `--apt-version ${JSON.stringify(value)}: the image installs ${APT_PACKAGES.join(', ')}; give one of them as ` +
          `PKG=VERSION`,
      );
    if (!DEBIAN_VERSION.test(version))
      throw new ImageOptionError(
        `--apt-version ${JSON.stringify(value)}: ${JSON.stringify(version)} is not a Debian version (e.g. ` +
          `poppler-utils=22.12.0-2+deb12u1; \`apt-cache policy ${pkg}\` in the image lists them)`,
      );
    if (pkg in out) throw new ImageOptionError(`--apt-version: ${pkg} given twice`);
    out[pkg] = version;
  }
  return out;
}

/** apt-get install's package arguments: every package, with its version where one is pinned. */
export const aptPackageArgs = (versions: Readonly<Record<string, string>> = {}): string =>
  APT_PACKAGES.map((p) => (versions[p] ? `${p}=${versions[p]}` : p)).join(' ');

/**
 * The upstream version of a Debian version (`22.12.0-2+b1` to `22.12.0`, `1:2.0-1` to `2.0`): what the program itself
 * prints as its version.
 */
export function upstreamVersion(debian: string): string {
  const noEpoch = debian.replace(/^[0-9]+:/, '');
  const dash = noEpoch.lastIndexOf('-');
  return dash > 0 ? noEpoch.slice(0, dash) : noEpoch;
}

/** --image-repo and --verifier-image-repo: an image name without tag or digest (the export adds each task's tag). */
export function checkImageRepository(flag: string, repository: string): string {
  if (REPOSITORY.test(repository) && repository.length <= 255) return repository;
  throw new ImageOptionError(
    `${flag} ${JSON.stringify(repository)}: give an image repository without a tag, e.g. ghcr.io/my-org/quotes ` +
      '(lower-case path components; the export adds a tag per task)',
  );
}

/** The names Harbor leaves out of a folder's hash (its definition.py _CONTENT_HASH_IGNORE_NAMES). */
const HASH_IGNORED = new Set(['.DS_Store', '.git', '__pycache__']);

/** Strings in Python's order (code points): their UTF-8 bytes compared. */
export const byCodePoint = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * The regular files under `dir` (no links, nothing under a link), as paths relative to it with '/', in Python's order,
 * leaving out those with an ignored name in their path.
 */
export function regularFiles(dir: string, ignored: (parts: readonly string[]) => boolean): string[] {
  const found: string[] = [];
  const walk = (rel: string): void => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path);
      else if (e.isFile() && !ignored(path.split('/'))) found.push(path);
    }
  };
  walk('');
  return found.sort(byCodePoint);
}

const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

/**
 * Harbor's hash of an environment folder (src/harbor/environments/definition.py environment_content_hash, the
 * `environment_id` its providers name images by): sha256 over its regular files in path order, each as the length and
 * bytes of its '/' path, then the length and bytes of its content; the first 32 hex digits.
 */
function environmentHash(dir: string): string {
  const hash = createHash('sha256');
  for (const rel of regularFiles(dir, (parts) => parts.some((p) => HASH_IGNORED.has(p)))) {
    const name = Buffer.from(rel);
    const data = readFileSync(join(dir, rel));
    hash.update(u32(name.length)).update(name).update(u32(data.length)).update(data);
  }
  return hash.digest('hex').slice(0, 32);
}

/** The hex digits of the folder hash a tag carries (as Harbor's providers' image names do: SNAPSHOT_HASH_LEN). */
const TAG_HASH_DIGITS = 12;

/** A tag is at most 128 characters. */
const TAG_MAX = 128;

/**
 * The image a task.toml names for a folder: `<repository>:<task>-<12 hex digits of the folder's hash>`, so that a
 * changed folder gets a new tag and a stale image is never taken for it.
 */
export function imageRef(repository: string, task: string, dir: string): string {
  const hash = environmentHash(dir).slice(0, TAG_HASH_DIGITS);
  return `${repository}:${task.slice(0, TAG_MAX - TAG_HASH_DIGITS - 1)}-${hash}`;
}

/** One image the dataset names: its reference and the folder (relative to the dataset) it is built from. */
export interface ImageToBuild {
  ref: string;
  context: string;
}

/** The file beside the tasks that builds and pushes their prebuilt images. */
export const BUILD_IMAGES_SCRIPT = 'build-images.sh';

/**
 * build-images.sh: builds every image the tasks name, each from its own folder, and pushes it (ENGINE=podman for
 * Podman, PUSH=0 to build only, PLATFORM=linux/amd64 for a builder of another architecture).
 */
export function buildImagesScript(images: readonly ImageToBuild[], verifierRepository?: string): string {
  const lines = images.map((i) => `build ${shellQuote(i.ref)} ${shellQuote(i.context)}`);
  const warning = verifierRepository
    ? `# The verifier images (${verifierRepository}) hold the gold labels: push them to a registry the harness can pull
# from and the agent cannot (private, its credentials never in the agent's container).
`
    : '';
  return `#!/usr/bin/env bash
# Builds the prebuilt images the tasks' task.toml name ([environment].docker_image and
# [verifier.environment].docker_image), each from its own task folder, and pushes them. Run it from anywhere; a
# registry login first (docker login). ENGINE=podman to use Podman, PUSH=0 to build only, PLATFORM=linux/amd64 when
# this machine is of another architecture than the harness's.
${warning}set -euo pipefail
ENGINE="\${ENGINE:-docker}"
cd "$(dirname "\${BASH_SOURCE[0]}")"
build() {
  "$ENGINE" build \${PLATFORM:+--platform "$PLATFORM"} -t "$1" "$2"
  if [ "\${PUSH:-1}" != 0 ]; then "$ENGINE" push "$1"; fi
}
${lines.join('\n')}
`;
}
