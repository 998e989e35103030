// The loopback Wayback Machine stand-in, kept at its old path for golden/ and bench/: it lives in src/wayback/stub.ts (served by `quotecheck wayback-stub`), where the tests import it from.
export * from '../src/wayback/stub.js';
