// The loopback listening the golden server and bench/ use: src/loopback.ts (the Wayback stand-in command needs it too, and src/ imports nothing from golden/), where the tests import it from.
export * from '../src/loopback.js';
