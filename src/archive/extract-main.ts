// warc-extract.mjs (scripts/bundle.ts): `node warc-extract.mjs ARCHIVE.warc.gz [DIR]` writes every recorded response
// body to DIR/bodies/ and DIR/index.json (extract.ts), and prints one line per response: status, type, file, URL.
import { extractArchive } from './extract.js';

const USAGE = `usage: warc-extract ARCHIVE.warc.gz [DIR]
Writes every HTTP response recorded in a WARC file (WARC 1.1 or 1.0, gzipped or not) to DIR (default: sources):
  DIR/bodies/N.ext   the body, de-chunked and content-decoded (N counts the responses in the archive's order)
  DIR/index.json     one entry per response: url, date, status, content_type, location, file, source_uri
`;

async function main(argv: string[]): Promise<number> {
  if (argv.length < 1 || argv.length > 2 || argv[0] === '-h' || argv[0] === '--help') {
    process.stdout.write(USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  const [archive, dir = 'sources'] = argv as [string, string?];
  const entries = await extractArchive(archive, dir);
  for (const e of entries) {
    const type = (e.content_type ?? '-').split(';')[0];
    const to = e.location ? ` -> ${e.location}` : '';
    process.stdout.write(`${e.status}\t${type}\t${e.file ?? '(empty)'}\t${e.url}${to}\n`);
  }
  process.stdout.write(`${entries.length} responses written to ${dir}/ (index: ${dir}/index.json)\n`);
  return 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`warc-extract: ${(err as Error).message}\n`);
  process.exitCode = 1;
}
