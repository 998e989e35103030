// The archive layer: WARC 1.1 recording of every HTTP exchange, reading, replay without network, and subsets per
// source.
export { WarcRecorder } from './record.js';
export {
  readArchive,
  recordedWaybackBases,
  ArchiveError,
  type Archive,
  type ArchivedRecord,
} from './read.js';
export { ReplayDispatcher, openReplay, NOT_IN_ARCHIVE } from './replay.js';
export { selectForSources, writeArchive } from './subset.js';
export { decodeContent } from './warc.js';
export type { HeaderPair } from './warc.js';
