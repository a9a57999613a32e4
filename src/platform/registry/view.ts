import { IncludeRegistry } from '../jsonapi/include.js';
import type { LoadedNoCode } from './no-code.js';
import { noCodeResource, variableOptionResources } from './resource.js';
import type { Loaded } from './service.js';

/** What a registry module can include (list and reads): each module's no-code modules, loaded with the modules. */
export const moduleIncludes = new IncludeRegistry<readonly Loaded[]>({
  'no-code-modules': (loaded) => loaded.flatMap(({ noCode, organization }) => noCode.map((row) => noCodeResource(row, organization.name))),
});

/** What a no-code module can include: its variable options, stored on its row. */
export const noCodeIncludes = new IncludeRegistry<LoadedNoCode>({
  'variable-options': (loaded) => variableOptionResources(loaded.row),
});
