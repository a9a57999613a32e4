import { isoTimestamp } from '../../core/clock.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { CountedTag } from './repo.js';

export function tagResource(tag: CountedTag, organizationName: string): ResourceObject {
  return {
    id: tag.id,
    type: 'tags',
    attributes: {
      name: tag.name,
      'created-at': isoTimestamp(tag.createdAt),
      'instance-count': tag.instanceCount,
    },
    relationships: { organization: { data: { id: organizationName, type: 'organizations' } } },
    links: { self: `/api/v2/tags/${tag.id}` },
  };
}
