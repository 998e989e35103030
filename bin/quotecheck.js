#!/usr/bin/env node
// Thin entry point: the program lives in dist/src/cli/entries/entry.js (run `npm run build` first).
import '../dist/src/cli/entries/entry.js';
