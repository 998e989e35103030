// The plain alternative a user might write instead of quotecheck: sequential fetch, pdftotext,
// tags stripped by a regular expression, lowercase `includes`. Run as a child process by the benchmark.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [claimsPath, outPath] = process.argv.slice(2);
const claims = JSON.parse(readFileSync(claimsPath!, 'utf8')) as { id: string; quote: string; url: string }[];
const squash = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();
const texts = new Map<string, string>();
const dir = mkdtempSync(join(tmpdir(), 'plain-'));
const answers: Record<string, string> = {};
for (const c of claims) {
  if (!texts.has(c.url)) {
    let text = '';
    try {
      const res = await fetch(c.url);
      const body = Buffer.from(await res.arrayBuffer());
      if (res.ok && (res.headers.get('content-type') ?? '').includes('pdf')) {
        writeFileSync(join(dir, 'f.pdf'), body);
        text = execFileSync('pdftotext', ['-enc', 'UTF-8', join(dir, 'f.pdf'), '-'], {
          stdio: ['ignore', 'pipe', 'ignore'],
        }).toString('utf8');
      } else if (res.ok) {
        text = body
          .toString('utf8')
          .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
          .replace(/<[^>]+>/g, ' ');
      }
    } catch {
      text = '';
    }
    texts.set(c.url, squash(text));
  }
  answers[c.id] = texts.get(c.url)!.includes(squash(c.quote)) ? 'verbatim' : 'no_match';
}
rmSync(dir, { recursive: true, force: true });
writeFileSync(outPath!, JSON.stringify(answers));
