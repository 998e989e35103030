#!/usr/bin/env node
// Thin entry point: the command line lives in dist/src/cli/main.js (run `npm run build` first).
import { main } from '../dist/src/cli/main.js';

await main(process.argv);
// Sources still in flight after a stop (sockets, a pdftotext child) must not keep the process alive.
process.exit(process.exitCode ?? 0);
