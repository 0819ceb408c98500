import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REDOC_PACKAGE_FILE } from '../http/routes';

/**
 * The HTML API reference (`GET /docs`, contract §12): Redoc rendering the
 * OpenAPI document, in one self-contained response. The machines that run the
 * API (and many that read the docs) have no internet, so nothing comes from a
 * CDN: the document and Redoc's standalone bundle are both inlined.
 *
 * Inlining without escaping pitfalls: both are embedded as JSON text in
 * `<script type="application/json">` elements with every `<` written as
 * `\u003c`, so no byte sequence of the bundle (`</script>`, `<!--`) can end
 * the element early; a two-line loader parses them and runs the bundle with
 * an indirect (global) eval, then calls `Redoc.init`.
 *
 * Where the bundle comes from (it must work under tsx/jest and in the esbuild
 * bundle of the Lambda, where node_modules does not exist):
 * 1. `redoc.standalone.js` next to the running code (`__dirname`): the CDK
 *    NodejsFunction of `get-docs` copies it there with a `commandHooks.afterBundling`
 *    hook (see REDOC_BUNDLE_FILE; esbuild cannot bundle a file as text without a
 *    global `.js` loader, which would break every other import);
 * 2. otherwise `require.resolve('redoc/bundles/redoc.standalone.js')`, i.e. the
 *    installed package (`npm start`, tests). esbuild leaves require.resolve alone.
 * If neither exists the function throws, which is a 500 and an Errors alarm.
 *
 * The page's Content-Security-Policy allows no network origin but this one: Redoc's
 * side menu shows a logo from cdn.redoc.ly, which is blocked (and then hidden) instead
 * of leaking a request from the reader's browser.
 */

/** The package file (declared on the get-docs route row), and the name under which the Lambda bundle carries it. */
export { REDOC_PACKAGE_FILE };
export const REDOC_BUNDLE_FILE = path.basename(REDOC_PACKAGE_FILE);

export function loadRedocBundle(candidates: readonly string[] = [path.join(__dirname, REDOC_BUNDLE_FILE)]): string {
  for (const file of candidates) {
    if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8');
  }
  let installed: string;
  try {
    installed = require.resolve(REDOC_PACKAGE_FILE);
  } catch {
    throw new Error(
      `Redoc bundle not found: looked for ${candidates.join(', ')} and the package ${REDOC_PACKAGE_FILE}. ` +
        'The get-docs Lambda bundle must carry it (commandHooks.afterBundling).',
    );
  }
  return fs.readFileSync(installed, 'utf8');
}

/** JSON safe inside an HTML script element: no `<`, `>`, `&` survive literally. */
export const jsonForScript = (value: unknown): string =>
  JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');

const REDOC_OPTIONS = {
  expandResponses: '200,201',
  requiredPropsFirst: true,
  pathInMiddlePanel: true,
  hideHostname: true,
  jsonSampleExpandLevel: 3,
  theme: {
    typography: {
      fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
      headings: { fontFamily: 'inherit' },
    },
  },
};

/** Runs the inlined bundle (indirect eval: global scope, like a classic script) and renders. */
const LOADER = `
(function () {
  var json = function (id) { return JSON.parse(document.getElementById(id).textContent); };
  (0, eval)(json('redoc-standalone'));
  Redoc.init(json('openapi-document'), json('redoc-options'), document.getElementById('redoc-container'));
})();
`;

/**
 * Only the loader runs as an inline script (by hash); eval for the bundle (and ajv inside
 * Redoc); Redoc's styled-components inject styles; its search worker is a blob.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `script-src 'sha256-${createHash('sha256').update(LOADER).digest('base64')}' 'unsafe-eval' blob:`,
  'worker-src blob:',
  "style-src 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function renderDocsPage(document: { info: { title: string } }, redocBundle: string): string {
  const title = document.info.title.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} reference</title>
<link rel="icon" href="data:,">
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<noscript>This reference needs JavaScript. The raw OpenAPI document is at <a href="/services/api/v1/openapi.json">/services/api/v1/openapi.json</a>.</noscript>
<div id="redoc-container"></div>
<script id="openapi-document" type="application/json">${jsonForScript(document)}</script>
<script id="redoc-options" type="application/json">${jsonForScript(REDOC_OPTIONS)}</script>
<script id="redoc-standalone" type="application/json">${jsonForScript(redocBundle)}</script>
<script>${LOADER}</script>
</body>
</html>
`;
}
