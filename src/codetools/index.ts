/** @module Code tools (the Vectoralix dialect): names, casts, derived schemas, validation, the document, the live set. */
export { type CastArguments, castArguments, castValue } from './cast.ts';
export { CodeTools, isListed, type Outcome } from './code-tools.ts';
export {
  type CodeToolsDocument,
  DOCUMENT_FORMAT,
  exportDocument,
  type PortableTool,
  parseDocument,
} from './document.ts';
export { paramNameProblem, toolNameProblem } from './names.ts';
export { type DerivedSchema, inputSchema } from './schema.ts';
export { type CodeToolCaps, checkCreate, checkParam, checkSave } from './validate.ts';
