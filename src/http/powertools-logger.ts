/**
 * The Powertools logger module, required (not imported) by src/http/logger.ts on first use: as a module of our
 * own, esbuild bundles its ES module build (tree-shaken) and evaluates it on that call, not at init.
 */
export { Logger } from '@aws-lambda-powertools/logger';
