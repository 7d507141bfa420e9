/** Manifests: the YAML a user writes, loaded, checked and expanded into request bodies. */
export { manifestId, manifestKeyOf, manifestRealPath, readManifestId, type ManifestKey } from './identity.js';
export { loadManifest, MAX_REPORTED_ISSUES, type LoadOptions } from './load.js';
export { catalogueIssues, expandManifest, stepInstances, type Expansion, type StepInstance } from './expand/expand.js';
export { ALL_STYLES, chunks, type StyleCatalogue } from './expand/html-ads.js';
export { ManifestSchema, StepSchema, CUSTOM_TEMPLATE_MODES, type CustomTemplateMode } from './check/schema.js';
export { manifestJsonSchema } from './check/json-schema.js';
export { requestSchemaFor, takesPathId, RESULTS } from './check/kinds.js';
export type { Manifest, ManifestStep, DeclaredEstimate } from './types.js';
export type { Placeholder } from './syntax/placeholders.js';
