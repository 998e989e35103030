// The PDF runner: one small child process that spawns pdftotext, so the main process never forks itself.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { ExtractError } from './errors.js';
import type { PdfRunnerReply, PdfRunnerRequest } from './pdf-runner.js';

export interface PdfText {
  text: string;
  normalized: string;
}

interface Pending {
  resolve: (t: PdfText) => void;
  reject: (e: Error) => void;
}

/** Compiled code runs in the child; from the source tree (vitest) that is the compiled copy in dist/. */
function runnerUrl(): URL {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return new URL(here.replace(/\/src\/extract\/pdf-pool\.ts$/, '/dist/src/extract/pdf-runner.js'));
  return new URL('./pdf-runner.js', here);
}

class PdfRunner {
  private child: ChildProcess | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  /** pdftotext processes at once: one per core (each is CPU-bound). */
  private readonly limit = pLimit(Math.max(1, availableParallelism()));

  private start(): ChildProcess {
    const child = fork(runnerUrl(), [], { serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    child.on('message', (reply: PdfRunnerReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      this.idle();
      if (reply.ok) p.resolve({ text: reply.text, normalized: reply.normalized });
      else p.reject(new ExtractError(reply.kind, reply.message));
    });
    child.on('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      for (const p of this.pending.values()) p.reject(new ExtractError('failed', `the PDF runner exited (${signal ?? code})`));
      this.pending.clear();
    });
    child.on('error', () => {});
    return child;
  }

  /** While nothing is pending, the runner does not keep the process alive. */
  private idle(): void {
    if (this.pending.size === 0 && this.child) {
      this.child.unref();
      (this.child.channel as { unref?: () => void } | undefined)?.unref?.();
    }
  }

  run(bytes: Uint8Array, timeoutMs: number, command?: string, signal?: AbortSignal): Promise<PdfText> {
    return this.limit(async () => {
      if (signal?.aborted) throw new ExtractError('timeout', 'pdftotext not started: the run was stopped');
      // pdftotext reads a file; writing it here keeps the PDF's bytes out of the runner.
      const dir = await mkdtemp(join(tmpdir(), 'quotecheck-pdf-'));
      try {
        const file = join(dir, 'source.pdf');
        await writeFile(file, bytes);
        return await this.send(file, timeoutMs, command, signal);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }

  private send(file: string, timeoutMs: number, command?: string, signal?: AbortSignal): Promise<PdfText> {
    this.child ??= this.start();
    const child = this.child;
    child.ref();
    (child.channel as { ref?: () => void } | undefined)?.ref?.();
    const id = this.nextId++;
    const cancel = () => {
      if (child.connected) child.send({ cancel: id } satisfies PdfRunnerRequest);
    };
    signal?.addEventListener('abort', cancel, { once: true });
    return new Promise<PdfText>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const request: PdfRunnerRequest = { id, file, timeoutMs, command };
      child.send(request);
    }).finally(() => signal?.removeEventListener('abort', cancel));
  }
}

let shared: PdfRunner | undefined;

/** pdftotext's text of a PDF and its normalized form, from the shared runner process. */
export function pdfToText(bytes: Uint8Array, options: { timeoutMs: number; command?: string; signal?: AbortSignal }): Promise<PdfText> {
  shared ??= new PdfRunner();
  return shared.run(bytes, options.timeoutMs, options.command, options.signal);
}
