// The program: run the command line, then exit (sources still in flight after a stop, sockets or a pdftotext child,
// must not keep the process alive).
import { main } from '../main.js';

process.exit(await main(process.argv));
