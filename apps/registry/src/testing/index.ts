export {
  createRandom,
  generatePack,
  toGeneratedTarball,
  toGeneratedVersionDoc,
} from './generate-packs.ts';
