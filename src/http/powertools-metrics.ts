/**
 * The Powertools metrics module, required (not imported) by src/http/metrics.ts on first use: as a module of our
 * own, esbuild bundles its ES module build (tree-shaken) and evaluates it on that call, not at init.
 */
export { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
