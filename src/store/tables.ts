/** Every table, one import for the rest of the code (schema files stay one per area). */
export * from './schema/platform.js';
export * from './schema/secrets.js';
export * from './schema/workspaces.js';
export * from './schema/run-tasks.js';
export * from './schema/leases.js';
export * from './schema/admin.js';
export * from './schema/lists.js';
export * from './schema/registry.js';
export * from './schema/state.js';
export * from './schema/runs.js';
export * from './schema/variable-sets.js';
export * from './schema/tag-bindings.js';
export * from './schema/registry-providers.js';
export * from './schema/notifications.js';
export * from './schema/agents.js';
export * from './schema/reserved-tag-keys.js';
export * from './schema/policies.js';
