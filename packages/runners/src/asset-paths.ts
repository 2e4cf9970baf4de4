import { fileURLToPath } from 'node:url';

/**
 * The PowerShell host script shipped in `assets/`. This module sits directly under `src/`
 * and the bundle directly under `dist/`, so `../assets` points at the package's
 * `assets/` folder from both.
 */
export function resolveHostScriptPath(): string {
  return fileURLToPath(new URL('../assets/host.ps1', import.meta.url));
}

/** The folder of the confined warm-up's script (`startup-profile.ts`), shipped in `assets/`. */
export function resolveWarmUpFolder(): string {
  return fileURLToPath(new URL('../assets/warm-up/', import.meta.url)).replace(/\/$/u, '');
}
