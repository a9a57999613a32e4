/**
 * The backing-data actions of state versions and configuration versions (self-hosted edition):
 * `POST /state-versions/:id/actions/<action>` and `POST /configuration-versions/:id/actions/<action>`.
 * Soft delete hides the bytes (downloads answer 404) but keeps them, restore brings them back,
 * permanent delete drops the bytes of a soft-deleted version for good. Both domains share the names.
 */
export const BACKING_DATA_ACTIONS = ['soft_delete_backing_data', 'restore_backing_data', 'permanently_delete_backing_data'] as const;
export type BackingDataAction = (typeof BACKING_DATA_ACTIONS)[number];

/** The statuses a version's backing data gives it once deleted. */
export const SOFT_DELETED = 'backing_data_soft_deleted';
export const PERMANENTLY_DELETED = 'backing_data_permanently_deleted';

/** Where each action moves a version, given the status a version with its bytes has (`finalized`, `uploaded`). */
export function backingDataMove<S extends string>(
  action: BackingDataAction,
  live: S,
): { from: S | typeof SOFT_DELETED; to: S | typeof SOFT_DELETED | typeof PERMANENTLY_DELETED } {
  switch (action) {
    case 'soft_delete_backing_data':
      return { from: live, to: SOFT_DELETED };
    case 'restore_backing_data':
      return { from: SOFT_DELETED, to: live };
    case 'permanently_delete_backing_data':
      return { from: SOFT_DELETED, to: PERMANENTLY_DELETED };
  }
}

/** Whether a status means the backing data is gone (for now or for good). */
export const backingDataDeleted = (status: string): boolean => status === SOFT_DELETED || status === PERMANENTLY_DELETED;
