// The program: run the command line, then exit (sources still in flight after a stop, sockets or a pdftotext child, must not keep the process alive).
import { main } from './main.js';

await main(process.argv);
process.exit(process.exitCode ?? 0);
