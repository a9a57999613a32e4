import { IncludeRegistry } from '../jsonapi/include.js';
import type { PlatformSummary } from './repo.js';
import { versionResource, type LinkMaker } from './resource.js';
import type { LoadedProvider } from './service.js';

/** What the provider include loaders get: the page's providers, how to load platforms, and the request's link maker. */
interface ProviderPage {
  loaded: readonly LoadedProvider[];
  platformsOf: (versionIds: string[]) => PlatformSummary[];
  links: LinkMaker;
}

/** What a registry provider can include: each provider's versions, with their platforms (one query for the page). */
export const providerIncludes = new IncludeRegistry<ProviderPage>({
  'registry-provider-versions': ({ loaded, platformsOf, links }) => {
    const platforms = platformsOf(loaded.flatMap(({ versions }) => versions.map((version) => version.id)));
    return loaded.flatMap(({ provider, versions, canManage }) =>
      versions.map((version) =>
        versionResource(
          provider,
          version,
          platforms.filter((platform) => platform.versionId === version.id),
          canManage,
          links,
        ),
      ),
    );
  },
});
