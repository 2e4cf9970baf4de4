/* global process */
// Swaps a folder for a symbolic link to another folder and back, as fast as it can, until a
// stop file appears or the round limit is reached; always leaves the real folder in place.
// Usage: node swap-folder.mjs <folder> <link target> <stop file> <max rounds> <ready file>
import { existsSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';

const [folder, target, stopFile, maxRounds, readyFile] = process.argv.slice(2);
const parked = `${folder}.parked`;
const link = `${folder}.link`;
symlinkSync(target, link);
writeFileSync(readyFile, 'ready');
let rounds = 0;
while (rounds < Number(maxRounds) && (rounds % 64 !== 0 || !existsSync(stopFile))) {
  renameSync(folder, parked);
  renameSync(link, folder);
  renameSync(folder, link);
  renameSync(parked, folder);
  rounds += 1;
}
unlinkSync(link);
writeFileSync(stopFile, String(rounds));
