/** The default project's id follows from the organization's, so rendering a workspace never queries for it. */
export function defaultProjectId(organizationId: string): string {
  return `prj-${organizationId.replace(/^org-/, '')}`;
}

export const DEFAULT_PROJECT_NAME = 'Default Project';
