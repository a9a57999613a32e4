import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * `/app/…`: the links the platform's web UI would answer, which the terraform CLI prints (the run
 * link of every remote plan and apply, the tokens page of `terraform login`) and the API hands out
 * (`self-html`, notification and run task payloads). Runs and workspaces open in the inspector;
 * the tokens page says where tokens come from here; anything else is a 404 page that says what
 * understudy has instead, rather than a bare JSON error.
 */

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

const STYLE = 'body { font: 14px system-ui, sans-serif; margin: 24px; max-width: 46em; } code { background: #eee; padding: 0 3px; }';

function sendNotice(reply: FastifyReply, status: number, title: string, paragraphs: string[]): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
    .send(
      `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>understudy: ${escape(title)}</title>` +
        `<style>${STYLE}</style>` +
        `</head><body><h1>${escape(title)}</h1>${paragraphs.map((p) => `<p>${p}</p>`).join('')}` +
        `<p><a href="/_emulator/ui">The inspector</a> shows runs, workspaces and the live request journal.</p></body></html>`,
    );
}

const pathOf = (url: string) => url.split('?')[0] ?? '';

const inspector = (query: Record<string, string>) => `/_emulator/ui?${new URLSearchParams(query)}`;

const TOKENS = [
  'understudy has no sign-in and no token settings. For <code>terraform login</code>, paste the platform admin token: ' +
    '<code>UNDERSTUDY_ADMIN_TOKEN</code>, printed at start as <code>export TFE_TOKEN=…</code>.',
  'Tokens for other users, teams and organizations are made through the API, as on the real service: ' +
    '<code>POST /api/v2/users/:id/authentication-tokens</code>, <code>POST /api/v2/teams/:id/authentication-token</code>, ' +
    '<code>POST /api/v2/organizations/:name/authentication-token</code>.',
];

export function appLinkRoutes(app: FastifyInstance): void {
  type RunLink = { Params: { org: string; workspace: string; id: string } };
  const openRun = async (request: { params: { id: string } }, reply: FastifyReply) => reply.redirect(inspector({ run: request.params.id }));
  app.get<RunLink>(
    '/:org/:workspace/runs/:id',
    { schema: { summary: 'a run link the CLI prints: opens the run in the inspector' } },
    openRun,
  );
  app.get<RunLink>('/:org/workspaces/:workspace/runs/:id', { schema: { summary: 'a run link: opens the run in the inspector' } }, openRun);

  type WorkspaceLink = { Params: { org: string; workspace: string } };
  const openWorkspace = async (request: { params: { org: string; workspace: string } }, reply: FastifyReply) =>
    reply.redirect(inspector({ workspace: `${request.params.org}/${request.params.workspace}` }));
  const workspaceSummary = { schema: { summary: "a workspace link: the workspace's runs in the inspector" } };
  app.get<WorkspaceLink>('/:org/:workspace/runs', workspaceSummary, openWorkspace);
  app.get<WorkspaceLink>('/:org/workspaces/:workspace', workspaceSummary, openWorkspace);
  app.get<WorkspaceLink>('/:org/workspaces/:workspace/runs', workspaceSummary, openWorkspace);

  const openOrganization = async (request: { params: { org: string } }, reply: FastifyReply) =>
    reply.redirect(inspector({ organization: request.params.org }));
  const organizationSummary = { schema: { summary: "an organization link: the organization's runs in the inspector" } };
  app.get<{ Params: { org: string } }>('/:org', organizationSummary, openOrganization);
  app.get<{ Params: { org: string } }>('/:org/workspaces', organizationSummary, openOrganization);

  app.get(
    '/settings/tokens',
    { schema: { summary: 'the tokens page terraform login opens: where tokens come from here' } },
    async (_r, reply) => sendNotice(reply, 200, 'API tokens', TOKENS),
  );

  app.setNotFoundHandler((request, reply) =>
    sendNotice(reply, 404, 'No page here', [
      `understudy stands in for the platform's API, not its web pages, and has no page at <code>${escape(pathOf(request.url))}</code>.`,
      'Run links (<code>/app/:organization/:workspace/runs/:id</code>, as the CLI prints them) and workspace links open in the inspector.',
    ]),
  );
}
