/**
 * Identity templates in policy paths (`{{identity.entity.id}}`, `{{identity.groups.names.ops.id}}`):
 * each `{{…}}` is replaced by what `lookup` gives for its (trimmed) name. A template that does not
 * resolve leaves the whole path unrendered, so its rule matches nothing, as in the real service.
 */
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

export type TemplateLookup = (name: string) => string | undefined;

export function renderTemplate(template: string, lookup: TemplateLookup): string | undefined {
  let unresolved = false;
  const rendered = template.replace(PLACEHOLDER, (_whole, name: string) => {
    const value = lookup(name.trim());
    if (value === undefined) unresolved = true;
    return value ?? '';
  });
  // A brace left over is a malformed template: nothing sensible to match.
  if (unresolved || rendered.includes('{{') || rendered.includes('}}')) return undefined;
  return rendered;
}
