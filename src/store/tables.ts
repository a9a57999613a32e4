/** Every table, one import for the rest of the code (schema files stay one per area). */
export * from './schema/platform.js';
export * from './schema/secrets.js';
