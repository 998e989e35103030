// The loopback Wayback Machine stand-in, kept at its old path for golden/, bench/ and the tests: it lives in src/wayback/stub.ts (served by `quotecheck wayback-stub`).
export * from '../src/wayback/stub.js';
