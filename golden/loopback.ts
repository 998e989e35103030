// The loopback listening the golden server and the tests use: src/loopback.ts (the Wayback stand-in command needs it too, and src/ imports nothing from golden/).
export * from '../src/loopback.js';
