import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { controlAuthorized } from './control-token.js';
import { loginPage } from './harness/ui-page.js';
import { sendPage } from './harness/ui.js';

/**
 * The browsable API reference at `/_emulator/docs`: Swagger UI's own files, served from the
 * installed package (never a CDN, so it works offline), reading `/_emulator/openapi.json`. Files
 * are read on first request, so a server that never shows the reference pays nothing at start.
 */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css',
  'index.css': 'text/css',
  'swagger-ui-bundle.js': 'text/javascript',
  'swagger-ui-standalone-preset.js': 'text/javascript',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

const INITIALIZER = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '/_emulator/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    docExpansion: 'list',
    validatorUrl: null,
    // A box that narrows the long operation list by tag, and tokens that survive a reload.
    filter: true,
    persistAuthorization: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
  });
};
`;

const page = (base: string) => `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>understudy API reference</title>
    <link rel="stylesheet" type="text/css" href="${base}/swagger-ui.css" />
    <link rel="stylesheet" type="text/css" href="${base}/index.css" />
    <link rel="icon" type="image/png" href="${base}/favicon-32x32.png" sizes="32x32" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${base}/swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="${base}/swagger-ui-standalone-preset.js" charset="UTF-8"></script>
    <script src="${base}/initializer.js" charset="UTF-8"></script>
  </body>
</html>
`;

function assetDirectory(): string {
  return join(dirname(createRequire(import.meta.url).resolve('@fastify/swagger-ui/package.json')), 'static');
}

/**
 * Registers `/docs` and `/docs/static/:file` on the control plane (mounted at `/_emulator`). With
 * a control token set, a browser without the login cookie gets the inspector's login form first;
 * the cookie it sets then also carries the reference's own requests (`openapi.json`, "Try it out").
 */
export function docsRoutes(app: FastifyInstance, guard: string | null): void {
  const base = '/_emulator/docs/static';
  const cache = new Map<string, Buffer>();
  app.get('/docs', async (request, reply) => {
    if (!controlAuthorized(request, guard)) return sendPage(reply, 401, loginPage);
    return reply.type('text/html; charset=utf-8').send(page(base));
  });
  app.get<{ Params: { file: string } }>('/docs/static/:file', async (request, reply) => {
    const { file } = request.params;
    if (file === 'initializer.js') return reply.type('text/javascript').send(INITIALIZER);
    const type = ASSETS[file];
    if (!type) return reply.code(404).send({ error: 'no such file in the API reference' });
    let content = cache.get(file);
    if (!content) {
      content = await readFile(join(assetDirectory(), file));
      cache.set(file, content);
    }
    return reply.type(type).header('cache-control', 'public, max-age=3600').send(content);
  });
}
