/**
 * The list engine's one door (docs/pagination.md): what the stores and services use of the lists with holes
 * (positions reserved and placed, summaries and maps kept, pages read). The modules beside this one are its
 * inside: only this folder imports them.
 */
export { countInSummary, mapWritesAt, mapWritesFrom, moveInSummary, placeAt, placeInList } from './counter';
export { readMappedPage, readSummary, type ListPage } from './page';
export { dryReservation, reservedTime, reservePositions, type Reservation } from './sequence';
export { filterOf, readEntries, readPositions, readWith, recordsOf } from './store';
