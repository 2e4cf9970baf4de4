export { TOOL_FOLDER_PARSER, discoverToolFolders } from './discover-tool-folders.ts';
export type { DiscoverToolFoldersOptions } from './discover-tool-folders.ts';
export { TOOL_FOLDER_SCRIPT_EXTENSIONS } from './check-tool-script.ts';
export { METADATA_FILE_NAMES, describeToolFolder } from './describe-tool-folder.ts';
export type { DescribeToolFolderInput } from './describe-tool-folder.ts';
export { parseLocatedDocument } from './yaml-document.ts';
export type { LocatedDocument } from './yaml-document.ts';
