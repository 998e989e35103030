// Which of Harbor's environment providers can run a dataset's tasks
// (docs/datasets.md#where-a-dataset-runs-harbors-providers): what each provider needs of a task, as its own code in
// Harbor v0.22.0 says (each row names its file), and the verdict for a task of a given shape (how it gets its images,
// where its verifier runs, which networks it asks for).
import type { Network } from '../task/task-toml.js';

/** How a provider gets the agent's image. */
type ImageSource =
  /** It builds environment/Dockerfile (and takes [environment].docker_image instead when one is given). */
  | 'dockerfile'
  /** Only a prebuilt [environment].docker_image: it builds no Dockerfile. */
  | 'docker_image'
  /** Neither: it runs the task on a machine of its own, never the task's image. */
  | 'none';

/** What a provider does with a separate verifier ([verifier] environment_mode = "separate"). */
type SeparateVerifier =
  /** Builds tests/ as an image of its own (or takes [verifier.environment].docker_image). */
  | 'own'
  /** Only with [verifier.environment].docker_image: it builds no Dockerfile, or boots another image (separateWhy). */
  | 'prebuilt'
  /** Never the verifier's own image: only a shared verifier runs there. */
  | 'never';

export interface Provider {
  /** Harbor's environment type (`harbor run --env <name>`). */
  name: string;
  /** Its code, under src/harbor/environments/ of Harbor v0.22.0. */
  file: string;
  image: ImageSource;
  /** Can run a container with no network (its EnvironmentCapabilities.disable_internet, for one container). */
  noNetwork: boolean;
  /** Can switch the network per phase (dynamic_network_policy): what an [agent] network_mode needs. */
  phaseNetwork: boolean;
  separate: SeparateVerifier;
  /** Why `separate` is not `own`: what the provider does with the verifier's environment. */
  separateWhy?: string;
  /** How it sizes memory, disk and CPUs from the task's numbers. */
  resources: string;
  /** What else a task meets there: the agent's user, older versions, run options. */
  notes?: string;
}

/** Harbor's release the table was read from (harbor-framework/harbor, tag v0.22.0). */
export const HARBOR_VERSION = '0.22.0';

const EXACT = 'as given';

/** Every provider of Harbor v0.22.0 that runs a Linux task, in the order of its docs' table, then the newer ones. */
export const PROVIDERS: readonly Provider[] = [
  {
    name: 'docker',
    file: 'docker/docker.py',
    image: 'dockerfile',
    noNetwork: true,
    phaseNetwork: true,
    separate: 'own',
    resources: EXACT,
    notes:
      'no-network and phase switching by an egress-control sidecar (nftables): Linux containers, a kernel with ' +
      'CONFIG_NFT_FIB_INET',
  },
  {
    name: 'daytona',
    file: 'daytona/environment.py',
    image: 'dockerfile',
    noNetwork: true,
    phaseNetwork: true,
    separate: 'own',
    resources: 'memory and disk in whole GB, rounded down (memory_mb // 1024, storage_mb // 1024)',
  },
  {
    name: 'modal',
    file: 'modal.py',
    image: 'dockerfile',
    noNetwork: true,
    phaseNetwork: true,
    separate: 'own',
    resources: EXACT,
  },
  {
    name: 'e2b',
    file: 'e2b.py',
    image: 'dockerfile',
    noNetwork: true,
    phaseNetwork: true,
    separate: 'own',
    resources: EXACT,
    notes: 'a docker_image, when given, is used even beside a Dockerfile',
  },
  {
    name: 'langsmith',
    file: 'langsmith.py',
    image: 'dockerfile',
    noNetwork: true,
    phaseNetwork: false,
    separate: 'own',
    resources: 'disk at least 32 GiB (its snapshot floor)',
  },
  {
    name: 'novita',
    file: 'novita.py',
    image: 'dockerfile',
    noNetwork: true,
    phaseNetwork: true,
    separate: 'own',
    resources: 'memory at least 512 MB per CPU',
    notes:
      'replays the Dockerfile into its template builder; runs any user but root as its own `user` (the image makes ' +
      '/app writable by it)',
  },
  {
    name: 'singularity',
    file: 'singularity/singularity.py',
    image: 'docker_image',
    noNetwork: false,
    phaseNetwork: false,
    separate: 'prebuilt',
    separateWhy: 'builds no Dockerfile, tests/ included',
    resources: 'memory by a watchdog; CPUs not enforced',
    notes: 'converts the docker_image to a .sif file; never builds a Dockerfile',
  },
  {
    name: 'cwsandbox',
    file: 'cwsandbox.py',
    image: 'docker_image',
    noNetwork: true,
    phaseNetwork: false,
    separate: 'prebuilt',
    separateWhy: 'builds no Dockerfile, tests/ included',
    resources: EXACT,
    notes: '"cwsandbox does not build images"',
  },
  {
    name: 'wandb',
    file: 'wandb.py',
    image: 'docker_image',
    noNetwork: true,
    phaseNetwork: false,
    separate: 'prebuilt',
    separateWhy: 'builds no Dockerfile, tests/ included',
    resources: EXACT,
    notes: "cwsandbox's, with W&B's sign-in",
  },
  {
    name: 'hf_sandbox',
    file: 'hf_sandbox.py',
    image: 'docker_image',
    noNetwork: false,
    phaseNetwork: false,
    separate: 'prebuilt',
    separateWhy: 'builds no Dockerfile, tests/ included',
    resources: EXACT,
    notes: "no user switching: the agent runs as the image's default user, root",
  },
  {
    name: 'opensandbox',
    file: 'opensandbox.py',
    image: 'docker_image',
    noNetwork: true,
    phaseNetwork: false,
    separate: 'prebuilt',
    separateWhy: 'builds no Dockerfile, tests/ included',
    resources: 'no disk limit',
    notes: "users by number only: the agent (`agent`) runs as the sandbox's default user",
  },
  {
    name: 'gke',
    file: 'gke.py',
    image: 'dockerfile',
    noNetwork: false,
    phaseNetwork: false,
    separate: 'own',
    resources: EXACT,
    notes:
      'builds with Cloud Build and ignores docker_image outside compose; no-network only for compose tasks; before ' +
      "0.22 its image was `<task>:latest`, so a separate verifier booted the agent's",
  },
  {
    name: 'apple_container',
    file: 'apple_container.py',
    image: 'dockerfile',
    noNetwork: false,
    phaseNetwork: false,
    separate: 'own',
    resources: EXACT,
    notes: 'tags every image `hb__<task>` and rebuilds it at each start: run one trial of a task at a time',
  },
  {
    name: 'blaxel',
    file: 'blaxel.py',
    image: 'dockerfile',
    noNetwork: true,
    phaseNetwork: false,
    separate: 'own',
    resources: EXACT,
    notes: 'no-network since 0.22',
  },
  {
    name: 'use_computer',
    file: 'use_computer.py',
    image: 'none',
    noNetwork: false,
    phaseNetwork: false,
    separate: 'never',
    separateWhy: "runs no task's image",
    resources: 'disk in whole GB, rounded up',
    notes: "a desktop VM of its own (macOS, Ubuntu, Windows, iOS); never builds or pulls the task's image",
  },
  {
    name: 'ack',
    file: 'ack.py',
    image: 'dockerfile',
    noNetwork: false,
    phaseNetwork: false,
    separate: 'prebuilt',
    separateWhy: "builds `<registry>/<task>:latest` only when missing, so the verifier boots the agent's image",
    resources: EXACT,
  },
  {
    name: 'openshift',
    file: 'openshift.py',
    image: 'dockerfile',
    noNetwork: false,
    phaseNetwork: false,
    separate: 'prebuilt',
    separateWhy: "reuses the image of build `hb-build-<task>`, so the verifier boots the agent's image",
    resources: EXACT,
  },
  {
    name: 'runloop',
    file: 'runloop.py',
    image: 'dockerfile',
    noNetwork: true,
    phaseNetwork: false,
    separate: 'never',
    separateWhy:
      "reuses the blueprint `harbor_<task>_blueprint`, so the verifier boots the agent's image, docker_image or " +
      'not (only `--force-build` builds each from its own folder)',
    resources: 'memory and disk in whole GB, rounded down',
    notes: 'a task changed under the same name runs its old blueprint unless `--force-build`',
  },
  {
    name: 'islo',
    file: 'islo.py',
    image: 'dockerfile',
    noNetwork: true,
    phaseNetwork: true,
    separate: 'prebuilt',
    separateWhy: "runs a Dockerfile's image with `-v /tests:/tests`, hiding the verifier image's own /tests",
    resources: 'disk in whole GB, rounded down',
  },
  {
    name: 'tensorlake',
    file: 'tensorlake.py',
    image: 'dockerfile',
    noNetwork: true,
    phaseNetwork: false,
    separate: 'own',
    resources: 'memory at least 4 GB, disk at least 30 GB',
    notes:
      'builds an OCI image since 0.22; before, or when that build fails, it replays RUN and COPY onto its own ' +
      'Debian image, which has no Node.js (`--ek use_oci_image_build=true` before 0.22)',
  },
  {
    name: 'beam',
    file: 'beam.py',
    image: 'dockerfile',
    noNetwork: true,
    phaseNetwork: true,
    separate: 'own',
    resources: EXACT,
  },
  {
    name: 'ec2',
    file: 'ec2.py',
    image: 'dockerfile',
    noNetwork: true,
    phaseNetwork: false,
    separate: 'own',
    resources: EXACT,
    notes: 'an instance per environment; in attach mode the images of one task share a tag',
  },
  {
    name: 'skypilot',
    file: 'skypilot.py',
    image: 'dockerfile',
    noNetwork: true,
    phaseNetwork: false,
    separate: 'own',
    resources: 'memory in GB',
    notes: 'builds and pushes `<registry>/<task>:<environment hash>`: needs its `registry` (`--ek registry=...`)',
  },
  {
    name: 'vercel',
    file: 'vercel/environment.py',
    image: 'dockerfile',
    noNetwork: true,
    phaseNetwork: true,
    separate: 'own',
    resources: 'memory rounded up to 2 GB per vCPU; disk at most 32 GB',
  },
  {
    name: 'cua_cloud',
    file: 'cua_cloud.py',
    image: 'docker_image',
    noNetwork: false,
    phaseNetwork: false,
    separate: 'never',
    separateWhy: "runs the image with the VM's `-v /tests:/tests`, hiding the verifier image's own /tests",
    resources: "the pool's",
    notes: 'a desktop VM that runs the docker_image; without one the task runs on the VM itself',
  },
  {
    name: 'hyperbrowser',
    file: 'hyperbrowser.py',
    image: 'dockerfile',
    noNetwork: true,
    phaseNetwork: true,
    separate: 'own',
    resources: EXACT,
  },
];

/** What of a task decides where it runs: its images, its verifier, the networks it asks for. */
export interface TaskShape {
  verifier: 'separate' | 'shared';
  /** [verifier.environment] network_mode (a separate verifier's). */
  verifierNetwork: Network;
  /** [agent] network_mode: the agent's run (a phase policy); `public` writes none. */
  agentNetwork: Network;
  /** [environment].docker_image is given. */
  agentImage: boolean;
  /** [verifier.environment].docker_image is given. */
  verifierImage: boolean;
}

/** Why a provider cannot run a task: what it does, and the export option that would fix it (`no`: none can). */
interface CannotRun {
  why: string;
  fix: string;
}

/**
 * Why a provider cannot run a task of `shape`, each reason with what would fix it: none when it can. A provider that
 * runs no task's image has that one reason.
 */
export function cannotRun(provider: Provider, shape: TaskShape): CannotRun[] {
  if (provider.image === 'none') return [{ why: "runs a machine of its own, never the task's image", fix: 'no' }];
  const found: CannotRun[] = [];
  if (provider.image === 'docker_image' && !shape.agentImage)
    found.push({ why: 'builds no Dockerfile: needs [environment].docker_image', fix: '--image-repo' });
  if (shape.agentNetwork === 'no-network' && !provider.phaseNetwork)
    found.push({
      why: "cannot turn the network off for the agent's run alone ([agent] network_mode): Harbor refuses the trial",
      fix: '--agent-network public',
    });
  if (shape.verifier === 'shared') return found;
  if (provider.separate === 'never') found.push({ why: `${provider.separateWhy}`, fix: '--verifier shared' });
  else if (provider.separate === 'prebuilt' && !shape.verifierImage)
    found.push({
      why: `${provider.separateWhy}: needs [verifier.environment].docker_image`,
      fix: '--verifier-image-repo or --verifier shared',
    });
  if (shape.verifierNetwork === 'no-network' && !provider.noNetwork)
    found.push({
      why: "has no no-network: the verifier's sandbox is refused, after the agent has run",
      fix: '--verifier-network public',
    });
  return found;
}

/** A provider a task cannot run on: why (every reason, in words) and what would fix it (`needs ...`, or the reason). */
export interface NotOn {
  name: string;
  why: string;
  fix: string;
}

/** The providers a task of `shape` runs on, and the others with why not and what would fix it. */
export function whereItRuns(shape: TaskShape): { runs: string[]; not: NotOn[] } {
  const runs: string[] = [];
  const not: NotOn[] = [];
  for (const p of PROVIDERS) {
    const found = cannotRun(p, shape);
    if (found.length === 0) runs.push(p.name);
    else
      not.push({
        name: p.name,
        why: found.map((c) => c.why).join('; '),
        fix: found.some((c) => c.fix === 'no') ? found[0]!.why : `needs ${found.map((c) => c.fix).join(', ')}`,
      });
  }
  return { runs, not };
}
