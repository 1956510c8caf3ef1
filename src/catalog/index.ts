/** @module The tool catalog: search, listings, descriptions with TypeScript signatures, toolkits. */
export {
  CATALOG_OPS,
  Catalog,
  type CatalogOp,
  type CatalogSource,
  type DeclarationScope,
} from './catalog.ts';
export {
  type DeclarationDialect,
  type ScopeDeclarations,
  type ScopeInput,
  scopeDeclarations,
} from './declarations.ts';
export { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, page, pageParams } from './paging.ts';
export { ToolIndex } from './tool-index.ts';
export type { CatalogEnvelope, Page, ToolEntry, Toolkit } from './types.ts';
export { toolSignature, toolTypes } from './typescript.ts';
