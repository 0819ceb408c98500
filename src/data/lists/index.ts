/**
 * The list engine's one door (docs/pagination.md): what the stores use of the lists with holes, in terms of
 * lists, entries, positions and pages: positions reserved, entries placed, moved, restatused and removed in a
 * write's transaction, pages read. Summaries, maps, shards, folds, hints and versions stay inside; the modules
 * beside this one are that inside: only this folder imports them.
 */
export {
  changeStatus,
  listPartitions,
  moveEntry,
  placeAt,
  placeInList,
  removeEntry,
  type ListEntry,
  type PlacedEntry,
} from './counter';
export { readPage, type ListPage, type PageReading } from './page';
export { dryReservation, reservedTime, reserveEntries, type Reservation } from './sequence';
export { filterOf, readEntries, readPositions, readWith, recordsOf } from './store';
export { statusCode } from '../../domain/list-map';
