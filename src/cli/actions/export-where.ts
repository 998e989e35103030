// export's options for where a dataset runs (docs/datasets.md#where-a-dataset-runs-harbors-providers): the images'
// base, packages and prebuilt names, the networks, the licence, checked together; and the export's command line as
// its card gives it; and the options `quotecheck export` takes (ExportCommandOptions).
import { basename, resolve } from 'node:path';
import { ExportError } from '../../dataset/export-error.js';
import type { ImageRepositories } from '../../dataset/dataset-files.js';
import { checkLicense } from '../../task/package-info.js';
import { checkBaseImage, checkImageRepository, parseAptVersions, type ImageOptions } from '../../task/task-image.js';
import { shellQuote } from '../../sh-quote.js';
import type { Layout } from '../../task/layout.js';
import type { VerifierMode } from '../../task/verifier-mode.js';
import type { Network } from '../../task/task-toml.js';

/** What `quotecheck export` is given (src/cli/main.ts addExportCommand's options). */
export interface ExportCommandOptions {
  labelled: string;
  out: string;
  perTask: number;
  name?: string;
  /**
   * Recorded runs (WARC, `label --record`) of these claims, one per batch: each task ships its own sources from the
   * one that holds each claim's record, and replays them.
   */
  warc?: string[];
  /** Ship a skill in every task (Harbor's skills_dir): `true` for quotecheck's own, or a skill folder. */
  withSkill?: boolean | string;
  /** Declare quotecheck's MCP server (`quotecheck mcp`) in every task's task.toml. */
  withMcp?: boolean;
  /** The sources are on a private network: the oracle (and the MCP server) get --allow-private. */
  allowPrivate?: boolean;
  /** A frozen edition is written even where its oracle would answer a claim otherwise than its label. */
  allowDisagreement?: boolean;
  /** Harbor's layout (SkillsBench 1.0) or SkillsBench 1.1's task.md. */
  layout?: Layout;
  /** A field of the labelled claims that names each claim's task: tasks as the file has them, not by size. */
  taskField?: string;
  /** The registry org: task.toml's [task] name is `<org>/<task>`. */
  org?: string;
  /** `--author` (repeatable): "Name <email>" or "Name". */
  author?: string[];
  /** `--keyword` (repeatable). */
  keyword?: string[];
  /** [task] description of every task. */
  description?: string;
  /** [metadata] difficulty. */
  difficulty?: string;
  /**
   * `--verifier`: where each task's verifier runs (default: separate in Harbor's layout, shared in SkillsBench 1.1's).
   */
  verifier?: VerifierMode;
  /** `--base-image`: both Dockerfiles' FROM, pinned by digest. */
  baseImage?: string;
  /** `--apt-version` (repeatable): `PKG=VERSION`. */
  aptVersion?: string[];
  /** `--image-repo`, `--verifier-image-repo`: prebuilt images named in every task.toml. */
  imageRepo?: string;
  verifierImageRepo?: string;
  /** `--agent-network`, `--verifier-network`. */
  agentNetwork?: Network;
  verifierNetwork?: Network;
  /** `--license`: an SPDX expression. */
  license?: string;
  /** `--audit`: quotecheck audit --json of this dataset. */
  audit?: string;
}

/** Where the tasks run and what their images are: the options checked, with their defaults. */
export interface WhereOptions {
  image: ImageOptions;
  repositories: ImageRepositories;
  networks: { agent: Network; verifier: Network };
  verifier: VerifierMode;
  license?: string;
}

/**
 * --base-image, --apt-version, --image-repo, --verifier-image-repo, --agent-network, --verifier-network and --license,
 * checked before anything is read: each one's own rule, and the combinations a task cannot have (a live edition's agent
 * without the network it reads its sources from; a verifier image, or network, for a verifier that is not separate; a
 * verifier image the agent could pull with its own).
 */
export function whereOptions(opts: ExportCommandOptions): WhereOptions {
  const layout = opts.layout ?? 'harbor';
  const verifier: VerifierMode = opts.verifier ?? (layout === 'harbor' ? 'separate' : 'shared');
  const frozen = opts.warc !== undefined;
  const agent = opts.agentNetwork ?? (frozen && layout === 'harbor' ? 'no-network' : 'public');
  if (agent === 'no-network' && !frozen)
    throw new ExportError(
      "--agent-network no-network: a live edition's agent reads its sources on the web; it is for a frozen edition " +
        '(--warc), whose tasks hold their sources',
    );
  if (agent === 'no-network' && layout !== 'harbor')
    throw new ExportError(
      "--agent-network no-network: task.md (--layout skillsbench) has no network for the agent's run",
    );
  if (opts.verifierNetwork !== undefined && verifier !== 'separate')
    throw new ExportError(
      "--verifier-network: a shared verifier runs in the agent's container, on its network; give --verifier separate",
    );
  if ((opts.imageRepo !== undefined || opts.verifierImageRepo !== undefined) && layout !== 'harbor')
    throw new ExportError(
      '--image-repo, --verifier-image-repo: task.md (--layout skillsbench) names no prebuilt image',
    );
  if (opts.verifierImageRepo !== undefined && verifier !== 'separate')
    throw new ExportError('--verifier-image-repo: a shared verifier has no image of its own; give --verifier separate');
  if (opts.imageRepo !== undefined && opts.imageRepo === opts.verifierImageRepo)
    throw new ExportError(
      '--verifier-image-repo: the same repository as --image-repo; the verifier images hold the gold labels, so they ' +
        'need a repository of their own that the agent cannot pull from',
    );
  const image: ImageOptions = {
    ...(opts.baseImage !== undefined ? { baseImage: checkBaseImage(opts.baseImage) } : {}),
    ...(opts.aptVersion?.length ? { aptVersions: parseAptVersions(opts.aptVersion) } : {}),
  };
  return {
    image,
    repositories: {
      ...(opts.imageRepo !== undefined ? { agent: checkImageRepository('--image-repo', opts.imageRepo) } : {}),
      ...(opts.verifierImageRepo !== undefined
        ? { verifier: checkImageRepository('--verifier-image-repo', opts.verifierImageRepo) }
        : {}),
    },
    networks: { agent, verifier: opts.verifierNetwork ?? 'public' },
    verifier,
    ...(opts.license !== undefined ? { license: checkLicense(opts.license) } : {}),
  };
}

/** A file option's value as the card shows it: its base name (a folder's with a slash), not where it was here. */
const fileArg = (path: string, folder = false): string => `${basename(resolve(path))}${folder ? '/' : ''}`;

/** The export's command line, as its card gives it: every option given, file paths by their base names. */
export function commandLine(opts: ExportCommandOptions): string {
  const args: (string | undefined)[][] = [
    ['--labelled', fileArg(opts.labelled)],
    ['--out', fileArg(opts.out, true)],
    ...(opts.taskField !== undefined ? [['--task-field', opts.taskField]] : [['--per-task', String(opts.perTask)]]),
    ['--name', opts.name],
    ['--layout', opts.layout],
    ['--verifier', opts.verifier],
    ...(opts.warc ?? []).map((w) => ['--warc', fileArg(w)]),
    ...(opts.withSkill === true
      ? [['--with-skill']]
      : [['--with-skill', typeof opts.withSkill === 'string' ? fileArg(opts.withSkill, true) : undefined]]),
    ...(opts.withMcp ? [['--with-mcp']] : []),
    ...(opts.allowPrivate ? [['--allow-private']] : []),
    ...(opts.allowDisagreement ? [['--allow-disagreement']] : []),
    ['--org', opts.org],
    ...(opts.author ?? []).map((a) => ['--author', a]),
    ...(opts.keyword ?? []).map((k) => ['--keyword', k]),
    ['--description', opts.description],
    ['--difficulty', opts.difficulty],
    ['--base-image', opts.baseImage],
    ...(opts.aptVersion ?? []).map((v) => ['--apt-version', v]),
    ['--image-repo', opts.imageRepo],
    ['--verifier-image-repo', opts.verifierImageRepo],
    ['--agent-network', opts.agentNetwork],
    ['--verifier-network', opts.verifierNetwork],
    ['--license', opts.license],
    ['--audit', opts.audit && fileArg(opts.audit)],
  ];
  const words = args.flatMap((a) => (a.length === 1 ? a : a[1] === undefined ? [] : a)) as string[];
  return ['quotecheck', 'export', ...words.map(shellQuote)].join(' ');
}
