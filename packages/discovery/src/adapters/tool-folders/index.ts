export { discoverToolFolders } from './discover-tool-folders.ts';
